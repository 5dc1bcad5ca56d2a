"""NVRTC of a stored CUDA release (toolchain/store.py), called through ctypes.

cuda.bindings binds one libnvrtc per process, and it takes whichever is loaded first: with
libnvrtc.so.12 loaded, `cuda.bindings.nvrtc.nvrtcVersion()` answered 12.9 (measured with
bindings 13.5). So another release's NVRTC is loaded only in the forked child that compiles
(toolchain/child.py), never in sassview's own process, and called through its C API with ctypes
(the eight functions below, whose signatures have not changed since CUDA 11.1). Before the child
loads it, the library and its builtins are re-hashed against the store's manifest.

How it can be wrong: libnvrtc loads its builtins library by name; it is found beside it (its
RUNPATH is $ORIGIN), which is checked here, not elsewhere on the loader's path.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Sequence

from sassview.errors import CompileError, ToolchainError
from sassview.frontends.nvrtc_api import NvrtcOutput, in_directory
from sassview.toolchain.child import call_in_child, compile_timeout
from sassview.toolchain.store import Toolchain

log = logging.getLogger("sassview")
_SUCCESS = 0
_INVALID_OPTION = 5


def compile_with(
    toolchain: Toolchain,
    source: bytes,
    name: str,
    options: Sequence[str],
    headers: Sequence[tuple[str, bytes]] = (),
    cwd: str | None = None,
) -> NvrtcOutput:
    """Compile one translation unit with `toolchain`'s NVRTC, in a child process. `headers`
    and `cwd` as nvrtc_api.nvrtc_compile's (a rolled build's headers, read in memory under
    their include names, from the includer's directory: frontends/cuda_rolled.py)."""
    lib = toolchain.nvrtc
    builtins = toolchain.nvrtc_builtins
    if lib is None or builtins is None:
        raise ToolchainError(
            f"toolchain {toolchain.release} has no NVRTC library",
            f"add it again: sassview toolchain add {toolchain.release} --force",
        )
    toolchain.check_files([lib, builtins], hashes=True)
    timeout = compile_timeout()
    log.info("nvrtc %s: compiling %s (%s)", toolchain.release, name, lib)
    return call_in_child(
        _compile,
        str(lib),
        source,
        name,
        list(options),
        list(headers),
        cwd,
        what=f"NVRTC {toolchain.release}",
        timeout=timeout,
    )


def _check(lib: ctypes.CDLL, status: int, what: str) -> None:
    if status != _SUCCESS:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        text = lib.nvrtcGetErrorString(status) or b"error %d" % status
        raise ToolchainError(f"NVRTC {what} failed: {text.decode(errors='replace')}")


def _text(lib: ctypes.CDLL, prog: ctypes.c_void_p, size_fn: str, get_fn: str) -> bytes:
    size = ctypes.c_size_t()
    _check(lib, getattr(lib, size_fn)(prog, ctypes.byref(size)), size_fn)
    buf = ctypes.create_string_buffer(size.value)
    _check(lib, getattr(lib, get_fn)(prog, buf), get_fn)
    return buf.raw[: size.value]


def _compile(
    path: str,
    source: bytes,
    name: str,
    options: Sequence[str],
    headers: Sequence[tuple[str, bytes]] = (),
    cwd: str | None = None,
) -> NvrtcOutput:
    """In the child: load, compile (from `cwd`, where given), read the log, PTX and cubin."""
    with in_directory(cwd):
        return _compile_here(path, source, name, options, headers)


def _compile_here(
    path: str,
    source: bytes,
    name: str,
    options: Sequence[str],
    headers: Sequence[tuple[str, bytes]],
) -> NvrtcOutput:
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    prog = ctypes.c_void_p()
    count = len(headers)
    texts = (ctypes.c_char_p * count)(*(h[1] for h in headers)) if count else None
    names = (ctypes.c_char_p * count)(*(h[0].encode() for h in headers)) if count else None
    _check(
        lib,
        lib.nvrtcCreateProgram(ctypes.byref(prog), source, name.encode(), count, texts, names),
        "create",
    )
    try:
        encoded = [o.encode() for o in options]
        argv = (ctypes.c_char_p * len(encoded))(*encoded)
        status = lib.nvrtcCompileProgram(prog, len(encoded), argv)
        text = _text(lib, prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog")
        log_text = text.rstrip(b"\0").decode(errors="replace")
        if status == _INVALID_OPTION:
            raise CompileError(
                "NVRTC rejected an option", "check the extra options you passed", detail=log_text
            )
        if status != _SUCCESS:
            return NvrtcOutput(False, log_text)
        ptx = _text(lib, prog, "nvrtcGetPTXSize", "nvrtcGetPTX").rstrip(b"\0")
        cubin = _text(lib, prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")
        return NvrtcOutput(True, log_text, ptx.decode(errors="replace"), cubin)
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
