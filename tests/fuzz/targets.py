"""The readers under fuzz: each takes bytes and may raise only sassview's ParseError."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from sassview.errors import SassviewError


def _sass_json(data: bytes) -> None:
    from sassview.parse.sass_json import parse_sass_json

    parse_sass_json(data)


def _sass_text(data: bytes) -> None:
    from sassview.parse.sass_text import parse_sass_text, read_line_info

    text = data.decode("utf-8", errors="replace")
    parse_sass_text(text)
    read_line_info(text)


def _sass_json_with_line_info(data: bytes) -> None:
    from sassview.parse.sass_json import parse_sass_json
    from sassview.parse.sass_text import read_line_info

    # Half of the input as JSON, the other half (from a listing) as text: both cross-reference.
    parse_sass_json(data, line_info=read_line_info(data.decode("utf-8", errors="replace")))


def _ptx(data: bytes) -> None:
    from sassview.parse.inline_asm import CallSites, asm_blocks
    from sassview.parse.ptx import parse_ptx

    text = data.decode("utf-8", errors="replace")
    module = parse_ptx(text)
    # What build_program does next: put inline-asm lines back on their statements.
    sites = CallSites(asm_blocks(text, module.files))
    for func in module.functions:
        for ins in func.instructions:
            sites.fix(ins.source, ins.line)


def _elf(data: bytes) -> None:
    from sassview.binary.elf import read_cubin

    read_cubin(data)


def _ptxas_log(data: bytes) -> None:
    from sassview.parse.ptxas_log import parse_ptxas_log

    parse_ptxas_log(data.decode("utf-8", errors="replace"))


def _mlir(data: bytes) -> None:
    from sassview.analyses.tile_loops import triton_loops
    from sassview.parse.stage_lines import rows_by_line

    # Triton's stages come from its compile, or from the cache: read as the analysis and the
    # TUI read them.
    text = data.decode("utf-8", errors="replace")
    triton_loops({"ttir": text}, "/src/triton_kernels.py")
    rows_by_line(text, "/src/triton_kernels.py")


def _filecheck(data: bytes) -> None:
    from sassview.testing.filecheck import run_filecheck

    # The checks are the fuzzed input; a real listing is what they run against.
    text = data.decode("utf-8", errors="replace")
    run_filecheck(text, _LISTING)


# A cache entry as one input: its manifest, then each file after a `@@file NAME` line. Mutants
# edit the manifest (keys, sizes, digests, JSON structure) and the files alike.
_FILE_MARK = re.compile(rb"\n@@file ([^\n]*)\n")
_ENTRY_KEY = "ab" + "0" * 62
# Each input is a small directory tree made and removed: in memory where there is a tmpfs
# (a directory removal costs 5 ms on this machine's disk, 7 us in /dev/shm).
_SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def pack_entry(manifest: bytes, files: dict[str, bytes]) -> bytes:
    return manifest + b"".join(b"\n@@file " + n.encode() + b"\n" + d for n, d in files.items())


def _cache_entry(data: bytes) -> None:
    from sassview import cache
    from sassview.cache.layout import claim

    manifest, *parts = _FILE_MARK.split(data)
    with tempfile.TemporaryDirectory(dir=_SCRATCH) as tmp:
        root = Path(tmp)
        claim(root)
        mine = root / "notes.txt"
        mine.write_bytes(b"the user's")
        where = root / f"v{cache.FORMAT_VERSION}" / "fuzz" / _ENTRY_KEY[:2] / _ENTRY_KEY
        where.mkdir(parents=True)
        (where / "manifest.json").write_bytes(manifest)
        for name, content in zip(parts[::2], parts[1::2], strict=True):  # split pairs them
            text = name.decode("utf-8", errors="replace")
            if text not in ("", ".", "..") and "/" not in text and "\x00" not in text:
                with contextlib.suppress(OSError):  # a name too long to write: not written
                    (where / text).write_bytes(content)
        store = cache.Store("fuzz", root)
        entry = store.get(_ENTRY_KEY)
        if entry is not None:  # served: each file is what the manifest vouches for
            listed = json.loads(manifest)["files"]
            for name in entry.files:
                if cache.digest(entry.read_bytes(name)) != listed[name]["sha256"]:
                    raise AssertionError(f"served {name} that does not match its digest")
                entry.read_text(name)
        cache.info(root)
        cache.prune(0, root)
        cache.clear(root)
        if mine.read_bytes() != b"the user's":
            raise AssertionError("the cache removed or changed a file that is not its own")


_LISTING = (Path(__file__).parents[1] / "corpus" / "vecadd" / "sm_90a" / "sass.txt").read_text()


# name -> (corpus glob of seed inputs, reader)
TARGETS: dict[str, tuple[str, Callable[[bytes], None]]] = {
    "sass-json": ("*/*/sass*.json", _sass_json),
    "sass-text": ("*/*/sass*.txt", _sass_text),
    "cuobjdump-text": ("*/*/cuobjdump-sass.txt", _sass_text),
    "sass-json-lineinfo": ("*/*/sass.json", _sass_json_with_line_info),
    "ptx": ("*/*/kernel.ptx", _ptx),
    "elf": ("*/*/kernel.cubin", _elf),
    "ptxas-log": ("*/*/compile.log", _ptxas_log),
    "filecheck": ("../data/filecheck/*.checks", _filecheck),
    "mlir": ("../data/stages/*.tt*ir", _mlir),
    "cache-entry": ("../data/cache/*.entry", _cache_entry),
}


def run_target(name: str, data: bytes) -> None:
    """Run one reader; sassview's own errors are the expected way to fail."""
    with contextlib.suppress(SassviewError):
        TARGETS[name][1](data)
