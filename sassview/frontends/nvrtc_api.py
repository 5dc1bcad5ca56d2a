"""Thin, checked calls into NVRTC and nvJitLink through cuda.bindings.

cuda.bindings returns (status, value...) tuples; these helpers turn a bad status into a
SassviewError and hide the buffer-size dance. Loading goes through the toolchain locator, so an
environment override of the library applies. A compile or an assembly runs in a forked child
with a deadline (toolchain/child.py: Ctrl-C stops it at once, $SASSVIEW_COMPILE_TIMEOUT bounds
it); the library is loaded here first, so the child inherits it loaded.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
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


def nvrtc_compile(source: bytes, name: str, options: Sequence[str]) -> NvrtcOutput:
    """Compile one translation unit; a compile error is reported through `ok` and `log`."""
    _nvrtc()
    timeout = compile_timeout()
    log.info("nvrtc: compiling %s (a child process, at most %.0f s)", name, timeout)
    return call_in_child(_compile, source, name, list(options), what="NVRTC", timeout=timeout)


def _compile(source: bytes, name: str, options: Sequence[str]) -> NvrtcOutput:
    nvrtc = _nvrtc()
    prog = _ok(nvrtc.nvrtcCreateProgram(source, name.encode(), 0, [], []), nvrtc, "create")
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


def nvjitlink_ptx_to_cubin(ptx: str, arch: str, options: Sequence[str] = ()) -> tuple[bytes, str]:
    """Assemble PTX for `arch` with nvJitLink; returns (cubin, info log with the ptxas report)."""
    from sassview.toolchain.locate import nvjitlink_info

    nvjitlink_info()  # loads it here: the child inherits it loaded
    return call_in_child(
        _assemble, ptx, arch, list(options), what="nvJitLink", timeout=compile_timeout()
    )


def _assemble(ptx: str, arch: str, options: Sequence[str]) -> tuple[bytes, str]:
    from cuda.bindings import nvjitlink

    opts = [f"-arch={arch}", "-lineinfo", "-Xptxas=-v", *options]
    handle = nvjitlink.create(len(opts), opts)

    def log(getter_size: Any, getter: Any) -> str:
        size = getter_size(handle)
        if not size:
            return ""
        buf = bytearray(size)
        getter(handle, buf)
        return bytes(buf).rstrip(b"\0").decode(errors="replace")

    try:
        data = ptx.encode()
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "input.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as exc:
            text = log(nvjitlink.get_error_log_size, nvjitlink.get_error_log)
            raise CompileError(
                "the PTX does not assemble", _ptx_hint(text, arch), detail=text or str(exc)
            ) from None
        info = log(nvjitlink.get_info_log_size, nvjitlink.get_info_log)
        size = nvjitlink.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin), info
    finally:
        nvjitlink.destroy(handle)


def _ptx_hint(log: str, arch: str) -> str:
    from sassview.frontends.diagnose import arch_hint

    return arch_hint(log, arch) or "read the assembler's message above"
