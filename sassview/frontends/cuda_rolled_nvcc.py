"""The rolled build of an nvcc compile (frontends/cuda_rolled.py says what a rolled build is).

nvcc reads files, not texts in memory: the rolled main file and every file the real build read
from under its directory (rolled where it has loops, as it was elsewhere) are written into a
private directory in the same layout, each opened by `#line 1 "<the file it replaces>"`, so
the line tables name the user's files and lines (C++ held in a kernel.py string is written as
the kernel file: its text at its lines there, the others blank). Includes resolve as before: a
quoted include first beside the including file (its copy), then the real build's `-I`
directories, then the main file's own directory (appended last, for a `"../x.h"` that leaves
the copied tree). The compile is the real one's: its options (nvcc.py's fixed ones aside), its
host compiler, its `--instantiate` appendix (in nvcc.py's wrapper), through `nvcc_compile`,
whose every argument passes the shell check (nvcc_shell.py); the private directory's name is
tempfile's own.

How it can be wrong: a file path with a line break cannot be named by `#line` (no rolled
build then); `__FILE__` reads the user's path as before, but a `#include` computed from it, or
`#include_next`, resolves in the copy's directory.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from sassview import cache
from sassview.ir import Artifacts
from sassview.toolchain.locate import HostCompiler


def _fixed(arch: str) -> tuple[str, ...]:
    """The options cuda.py's nvcc build records ahead of the user's (nvcc.py adds them)."""
    return ("-cubin", f"-arch={arch}", "-lineinfo", "-Xptxas", "-v")


def nvcc_rolled(
    artifacts: Artifacts, main: Path, text: str, rolled: list[tuple[str, bytes]]
) -> tuple[str, Callable[[], tuple[bool, str, str, bytes]]] | None:
    """The cache key and the compile of the rolled build of `artifacts` (an nvcc compile of
    `main`), for cuda_rolled.cached_rolled: `text` the rolled main file, `rolled` (name under
    main's directory, rolled text) its headers with loops. None where there is nothing to
    replay."""
    fixed = _fixed(artifacts.arch)
    if artifacts.options[: len(fixed)] != fixed or not artifacts.host_compiler:
        return None  # not recorded by cuda.py's nvcc build: nothing known to replay
    files = _tree(main, text, dict(rolled), artifacts.inputs)
    if files is None:
        return None
    options = [*artifacts.options[len(fixed) :], f"-I{main.parent}"]
    key = cache.make_key(
        {
            "frontend": "cuda-nvcc-rolled",
            "name": str(main),
            "files": {name: cache.digest(data) for name, data in files.items()},
            "options": options,
            "appendix": artifacts.appendix,
            "arch": artifacts.arch,
            "tools": dict(artifacts.toolchain),
            "host_path": artifacts.host_compiler,
            "real": cache.digest((artifacts.ptx or "").encode()),  # every file read decides it
        }
    )

    def compile_() -> tuple[bool, str, str, bytes]:
        return _compile(artifacts, main, files, options)

    return key, compile_


def _tree(
    main: Path, text: str, rolled: dict[str, bytes], inputs: tuple[str, ...]
) -> dict[str, bytes] | None:
    """(name under main's directory, text with its `#line`) of every file to write: the main
    file, its rolled headers and the other files the real build read from under its
    directory; None where a path cannot be named by `#line`."""
    texts = {main.name: text.encode()}
    for p in inputs:
        path = Path(p)
        if path == main or not path.is_relative_to(main.parent):
            continue
        name = path.relative_to(main.parent).as_posix()
        if name not in rolled:
            try:
                rolled[name] = path.read_bytes()
            except OSError:
                continue
    texts.update(rolled)
    out = {}
    for name, data in texts.items():
        original = str(main.parent / name)
        if "\n" in original or "\r" in original:
            return None
        quoted = original.replace("\\", "\\\\").replace('"', '\\"')
        out[name] = f'#line 1 "{quoted}"\n'.encode() + data
    return out


def _compile(
    artifacts: Artifacts, main: Path, files: dict[str, bytes], options: list[str]
) -> tuple[bool, str, str, bytes]:
    from sassview.frontends.nvcc import nvcc_compile

    host = HostCompiler(artifacts.host_compiler, artifacts.toolchain.get("host", ""), "option")
    with tempfile.TemporaryDirectory(prefix="sassview-rolled-") as tmp:
        root = Path(tmp)
        for name, data in files.items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        out = nvcc_compile(
            files[main.name], root / main.name, artifacts.arch, options, host,
            appendix=artifacts.appendix,
        )  # fmt: skip
    return out.ok, out.log, out.ptx, out.cubin
