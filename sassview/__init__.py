"""sassview: see what the CUDA compiler made of your kernel — PTX and SASS, annotated.

    import sassview
    prog = sassview.compile(path="kernel.cu", arch="sm_90a")
    k = prog.kernel("saxpy")
    k.resources.registers, k.instructions[0].mnemonic

`import sassview` stays light: the compiler bindings and every view load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sassview.errors import SassviewError
from sassview.ir import SCHEMA_VERSION, Kernel, Program

__version__ = "0.1.0"

__all__ = [
    "SCHEMA_VERSION",
    "Kernel",
    "Program",
    "SassviewError",
    "__version__",
    "analyze",
    "compile",
    "cuda",
    "cuda_file",
    "cute",
    "from_artifacts",
    "from_ptx",
    "inspect",
    "load",
    "load_kernel_file",
    "tensor",
    "tensor_descriptor",
    "triton",
]

if TYPE_CHECKING:
    from sassview.api import (
        analyze,
        compile,
        from_artifacts,
        from_ptx,
        inspect,
        load,
        load_kernel_file,
    )
    from sassview.declare import cuda, cuda_file, cute, tensor, tensor_descriptor, triton


def __getattr__(name: str) -> Any:
    if name in (
        "compile",
        "from_artifacts",
        "from_ptx",
        "load",
        "load_kernel_file",
        "inspect",
        "analyze",
    ):
        from sassview import api

        return getattr(api, name)
    if name in ("cuda", "cuda_file", "triton", "cute", "tensor", "tensor_descriptor"):  # kernel.py
        from sassview import declare

        return getattr(declare, name)
    raise AttributeError(f"module 'sassview' has no attribute {name!r}")
