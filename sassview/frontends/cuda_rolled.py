"""The rolled build of a CUDA C++ compile: the same source and options, every loop statement
under `#pragma unroll 1` (parse/rolled_source.py), so one trip of each SASS loop runs its body
once. The loop census compares its per-line instructions with the real build's to count the
copies of a body the compilers made (analyses/loops/rolled.py).

NVRTC compiles: the main file and the headers beside it (found under its directory, by the path
the NVRTC include scan recorded in `Artifacts.inputs`) are rolled, handed to NVRTC in memory
under the names the sources include them by, compiled from the main file's directory so their
line tables name the files they replace; by the same NVRTC as the real build, a stored
release's (`--toolchain 12.9`, toolchain/store.py: the one whose manifest made it) where it
made it. nvcc compiles (whole programs): the same files are written rolled into a private
directory in the same layout, each under a `#line` naming the file it replaces, and compiled
with the real build's options, host compiler and instantiations (cuda_rolled_nvcc.py). C++
held in a kernel.py string is rolled at its lines of the kernel file and compiled under a
`#line` naming it (`_kernel_py_rolled`); nvcc's is the main file of that private directory.
Instantiations appended by `--instantiate` are replayed by both. Cached like any compile,
keyed by the rolled texts, the options, the architecture and the tool versions (an nvcc
build's also by its real PTX, which every file it read decides): a warm check compiles
nothing.

How it can be wrong: a header included by another name than its path from the main file's
directory (through `-I`) is read from disk unrolled: its loops are then alike in both builds
and the census says nothing from them. A rolled build that fails to compile is no evidence:
None, and the census keeps its counts; so is one whose stored release is gone or was added
again with other files since.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from sassview import cache
from sassview.cache.get_or_build import Said, keep, lookup, text_of
from sassview.ir import Artifacts
from sassview.parse.rolled_source import has_loops, rolled_source

log = logging.getLogger("sassview")


def rolled_build(
    artifacts: Artifacts, parity: int | None = None, flips: Mapping[str, int] | None = None
) -> Artifacts | None:
    """The rolled build of an NVRTC or nvcc compile of a file, or None where there is none to make:
    every loop rolled, or those of odd (`parity` 1) or even (0) nesting depth in their file
    (parse/rolled_source.py), counted one more in the files `flips` names with 1."""
    if artifacts.kind != "cuda" or artifacts.compiler not in ("nvrtc", "nvcc"):
        return None
    if not artifacts.source_path or artifacts.source_text is None:
        return None
    main = Path(artifacts.source_path)
    if "cuda_source" in artifacts.stages:  # C++ held in a kernel.py: its text is not the file's
        return _kernel_py_rolled(artifacts, main, parity, flips or {})
    text = rolled_source(artifacts.source_text, parity)
    headers = _rolled_headers(main, artifacts.inputs, parity, flips or {})
    if artifacts.compiler == "nvcc":
        return _nvcc_rolled(artifacts, main, text, headers)
    return _nvrtc_rolled(artifacts, main, text, headers)


def _nvcc_rolled(
    artifacts: Artifacts, main: Path, text: str, headers: list[tuple[str, bytes]]
) -> Artifacts | None:
    """`text` (the rolled main file) and its rolled `headers` compiled by nvcc as the real
    build was (cuda_rolled_nvcc.py), through the cache."""
    from sassview.frontends.cuda_rolled_nvcc import nvcc_rolled

    build = nvcc_rolled(artifacts, main, text, headers)
    if build is None:
        return None
    key, compile_ = build
    return cached_rolled(artifacts, key, text, compile_)


def _kernel_py_rolled(
    artifacts: Artifacts, main: Path, parity: int | None, flips: Mapping[str, int]
) -> Artifacts | None:
    """The rolled build of C++ held in a string of a kernel.py (`sv.cuda`, specs/cuda.py): its
    text at its own lines of the kernel file (the `cuda_source` stage, lines outside the string
    blank) rolled, compiled under `#line 1` naming the kernel file, so its line table is the
    real build's (which a `#line` at the string's first line pointed into the kernel file).
    None where the real build's line table does not name the kernel file (a string not found in
    it, compiled at its own lines). nvcc, which reads files, is handed it as a file standing
    for the kernel file in the private tree cuda_rolled_nvcc.py writes (under the same `#line`).
    """
    if f'"{main}"' not in (artifacts.ptx or ""):
        return None
    text = rolled_source(artifacts.stages["cuda_source"], parity)
    if "\n" in str(main) or "\r" in str(main):
        return None
    headers = _rolled_headers(main, artifacts.inputs, parity, flips)
    if artifacts.compiler == "nvcc":
        return _nvcc_rolled(artifacts, main, text, headers)
    quoted = str(main).replace("\\", "\\\\").replace('"', '\\"')
    from sassview.frontends.cuda import STRING_SOURCE_NAME

    unit = f'#line 1 "{quoted}"\n{text}'
    return _nvrtc_rolled(artifacts, main, text, headers, unit, STRING_SOURCE_NAME)


def _nvrtc_rolled(
    artifacts: Artifacts,
    main: Path,
    text: str,
    headers: list[tuple[str, bytes]],
    compiled: str | None = None,
    name: str | None = None,
) -> Artifacts | None:
    """`text` (the rolled main file, as the census reads it) compiled as `compiled` where that
    differs (a kernel.py's C++ under its `#line`), under `name` (the real build's, by default
    the main file's path)."""
    unit = text if compiled is None else compiled
    unit = f"{unit}\n{artifacts.appendix}" if artifacts.appendix else unit  # as cuda.py appends
    name = str(main) if name is None else name
    stored = artifacts.toolchain.get("stored")
    if stored is None:
        opts = [*artifacts.options, f"--use-bundled-headers={cache.scratch_dir('nvrtc-headers')}"]
    else:
        opts = list(artifacts.options)  # its release's headers by -I, as the real build's
    keyed = {
        "frontend": "cuda-rolled",
        "name": str(main),
        "source": cache.digest(unit.encode()),
        "headers": {included: cache.digest(data) for included, data in headers},
        "options": list(artifacts.options),
        "arch": artifacts.arch,
        "tools": dict(artifacts.toolchain),
    }
    key = cache.make_key(keyed if name == str(main) else {**keyed, "as": name})

    def compile_() -> tuple[bool, str, str, bytes]:
        if stored is not None:
            return _stored_compile(artifacts, unit.encode(), name, opts, headers, main.parent)
        from sassview.frontends.nvrtc_api import nvrtc_compile

        out = nvrtc_compile(unit.encode(), name, opts, headers, cwd=str(main.parent))
        return out.ok, out.log, out.ptx, out.cubin

    return cached_rolled(artifacts, key, text, compile_)


def _stored_compile(
    artifacts: Artifacts,
    unit: bytes,
    name: str,
    opts: list[str],
    headers: list[tuple[str, bytes]],
    cwd: Path,
) -> tuple[bool, str, str, bytes]:
    """The rolled build by the stored release that made the real one (toolchain/store.py),
    found by its manifest digest: a rolled build by another compiler would compare two
    compilers, not two builds. Not compiled (no evidence) where that release is gone or was
    added again with other files."""
    from sassview.errors import SassviewError
    from sassview.frontends.nvrtc_stored import compile_with
    from sassview.toolchain import store

    try:
        toolchain = store.find(artifacts.toolchain["stored"])
    except SassviewError as exc:
        return False, f"the stored toolchain is not there: {exc}", "", b""
    if toolchain.key != artifacts.toolchain.get("toolchain"):
        said = f"toolchain {toolchain.release} is no longer the one that compiled it"
        return False, said, "", b""
    out = compile_with(toolchain, unit, name, opts, headers, cwd=str(cwd))
    return out.ok, out.log, out.ptx, out.cubin


def cached_rolled(
    artifacts: Artifacts,
    key: str,
    text: str,
    compile_: Callable[[], tuple[bool, str, str, bytes]],
) -> Artifacts | None:
    """The rolled build under `key` from the cache, or `compile_`d ((ok, log, ptx, cubin)) and
    stored; None where it did not compile."""
    main = artifacts.source_path
    store = cache.Store("cuda-rolled")
    said = Said(log, "rolled build", str(main), artifacts.arch)
    found = lookup(store, key, ("kernel.ptx", "kernel.cubin"), said)
    if found is not None:
        return _artifacts(artifacts, text, text_of(found["kernel.ptx"]), found["kernel.cubin"])
    started = time.perf_counter()
    ok, out_log, ptx, cubin = compile_()
    if not ok or ".entry" not in ptx:
        spent = time.perf_counter() - started
        log.info("rolled build: %s did not compile rolled (%.2f s); no evidence", main, spent)
        return None
    files: dict[str, bytes | str] = {
        "kernel.ptx": ptx,
        "kernel.cubin": cubin,
        "compile.log": out_log,
    }
    keep(store, key, files, said=said, started=started)
    return _artifacts(artifacts, text, ptx, cubin)


def _rolled_headers(
    main: Path, inputs: tuple[str, ...], parity: int | None, flips: Mapping[str, int]
) -> list[tuple[str, bytes]]:
    """(include name, rolled text) of each header the compile read from under the main file's
    directory that has a loop."""
    out = []
    for p in inputs:
        path = Path(p)
        if path == main or not path.is_relative_to(main.parent):
            continue
        try:
            data = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        if has_loops(data):
            flip = flips.get(p, flips.get(str(path.resolve()), 0))
            text = rolled_source(data, _own(parity, flip))
            out.append((path.relative_to(main.parent).as_posix(), text.encode()))
    return out


def _own(parity: int | None, flip: int) -> int | None:
    """The parity of a file's own depths that `parity` rolls, its depths counting `flip` more."""
    return None if parity is None else (parity - flip) % 2


def _artifacts(real: Artifacts, text: str, ptx: str, cubin: bytes) -> Artifacts:
    return Artifacts(
        kind="cuda",
        arch=real.arch,
        source_path=real.source_path,
        source_text=text,
        ptx=ptx,
        cubin=cubin,
        options=real.options,
        toolchain=MappingProxyType(dict(real.toolchain)),
        compiler=f"{real.compiler}-rolled",
        inputs=real.inputs,
    )
