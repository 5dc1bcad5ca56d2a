"""A checked call into nvJitLink through cuda.bindings: PTX assembled to a cubin, in a forked
child with a deadline (toolchain/child.py), the library loaded here first so the child inherits
it loaded. A PTX that does not assemble is a CompileError whose hint names the target to use
(frontends/diagnose.py). Apart from nvrtc_api.py, which `frontends.arch` asks for NVRTC's
targets: the hint reads that table, so the two calls cannot share a module without a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sassview.errors import CompileError
from sassview.frontends.diagnose import arch_hint
from sassview.toolchain.child import call_in_child, compile_timeout


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
    return arch_hint(log, arch) or "read the assembler's message above"
