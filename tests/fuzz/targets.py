"""The readers under fuzz: each takes bytes and may raise only sassview's ParseError."""

from __future__ import annotations

import contextlib
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
    from sassview.analyses.unroll import triton_loops
    from sassview.views.stage_lines import rows_by_line

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
}


def run_target(name: str, data: bytes) -> None:
    """Run one reader; sassview's own errors are the expected way to fail."""
    with contextlib.suppress(SassviewError):
        TARGETS[name][1](data)
