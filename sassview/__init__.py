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
    "compile",
    "from_artifacts",
    "from_ptx",
    "load",
]

if TYPE_CHECKING:
    from sassview.api import compile, from_artifacts, from_ptx, load


def __getattr__(name: str) -> Any:
    if name in ("compile", "from_artifacts", "from_ptx", "load"):
        from sassview import api

        return getattr(api, name)
    raise AttributeError(f"module 'sassview' has no attribute {name!r}")
