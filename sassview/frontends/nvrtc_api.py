"""Thin, checked calls into NVRTC through cuda.bindings (nvJitLink's: nvjitlink_api.py).

cuda.bindings returns (status, value...) tuples; these helpers turn a bad status into a
SassviewError and hide the buffer-size dance. Loading goes through the toolchain locator, so an
environment override of the library applies. A compile or an assembly runs in a forked child
with a deadline (toolchain/child.py: Ctrl-C stops it at once, $SASSVIEW_COMPILE_TIMEOUT bounds
it); the library is loaded here first, so the child inherits it loaded.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sassview.errors import CompileError, ToolchainError
from sassview.toolchain.child import call_in_child, compile_timeout

log = logging.getLogger("sassview")


def _nvrtc() -> Any:
    from sassview.toolchain.locate import nvrtc_info

    nvrtc_info()  # raises a clear "missing" error before cuda.bindings does
    from cuda.bindings import nvrtc

    return nvrtc


def _ok(result: Any, nvrtc: Any, what: str) -> Any:
    status, *values = result if isinstance(result, tuple) else (result,)
    if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, name = nvrtc.nvrtcGetErrorString(status)
        raise ToolchainError(f"NVRTC {what} failed: {name.decode()}")
    return values[0] if len(values) == 1 else values


def supported_archs() -> tuple[int, ...]:
    nvrtc = _nvrtc()
    return tuple(
        int(a) for a in _ok(nvrtc.nvrtcGetSupportedArchs(), nvrtc, "nvrtcGetSupportedArchs")
    )


@dataclass(frozen=True, slots=True)
class NvrtcOutput:
    ok: bool
    log: str
    ptx: str = ""
    cubin: bytes = b""


def nvrtc_compile(
    source: bytes,
    name: str,
    options: Sequence[str],
    headers: Sequence[tuple[str, bytes]] = (),
    cwd: str | None = None,
) -> NvrtcOutput:
    """Compile one translation unit; a compile error is reported through `ok` and `log`.
    `headers`: (include name, text) pairs NVRTC reads in place of the files of those names
    (the rolled variant's headers, frontends/cuda_rolled.py); NVRTC names them in the line
    table by their path from the working directory, so `cwd` (the includer's directory) makes
    those the paths of the files they replace."""
    _nvrtc()
    timeout = compile_timeout()
    log.info("nvrtc: compiling %s (a child process, at most %.0f s)", name, timeout)
    args = (source, name, list(options), list(headers), cwd)
    return call_in_child(_compile, *args, what="NVRTC", timeout=timeout)


def _compile(
    source: bytes,
    name: str,
    options: Sequence[str],
    headers: Sequence[tuple[str, bytes]] = (),
    cwd: str | None = None,
) -> NvrtcOutput:
    with in_directory(cwd):
        return _compile_here(source, name, options, headers)


@contextlib.contextmanager
def in_directory(cwd: str | None) -> Iterator[None]:
    """Run the block from `cwd` (None: where we are), for a compile that names its headers by
    their path from there. In the child the parent's directory stays; in process (no fork) it
    is restored. (contextlib.chdir is 3.11+; the project runs on 3.10.)"""
    if not cwd:
        yield
        return
    back = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(back)


def _compile_here(
    source: bytes, name: str, options: Sequence[str], headers: Sequence[tuple[str, bytes]]
) -> NvrtcOutput:
    nvrtc = _nvrtc()
    texts, names = [h[1] for h in headers], [h[0].encode() for h in headers]
    created = nvrtc.nvrtcCreateProgram(source, name.encode(), len(headers), texts, names)
    prog = _ok(created, nvrtc, "create")
    try:
        opts = [o.encode() for o in options]
        (status,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        size = _ok(nvrtc.nvrtcGetProgramLogSize(prog), nvrtc, "log size")
        buf = b" " * size
        _ok(nvrtc.nvrtcGetProgramLog(prog, buf), nvrtc, "log")
        log = buf.rstrip(b"\0").decode(errors="replace")
        if status == nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_OPTION:
            raise CompileError(
                "NVRTC rejected an option", "check the extra options you passed", detail=log
            )
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return NvrtcOutput(False, log)
        size = _ok(nvrtc.nvrtcGetPTXSize(prog), nvrtc, "PTX size")
        buf = b" " * size
        _ok(nvrtc.nvrtcGetPTX(prog, buf), nvrtc, "PTX")
        ptx = buf.rstrip(b"\0").decode(errors="replace")
        size = _ok(nvrtc.nvrtcGetCUBINSize(prog), nvrtc, "cubin size")
        cubin = b" " * size
        _ok(nvrtc.nvrtcGetCUBIN(prog, cubin), nvrtc, "cubin")
        return NvrtcOutput(True, log, ptx, bytes(cubin))
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
