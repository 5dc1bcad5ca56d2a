"""sassview: see what the CUDA compiler made of your kernel — PTX and SASS, annotated.

    import sassview
    prog = sassview.compile(path="kernel.cu", arch="sm_90a")
    k = prog.kernel("saxpy")
    k.resources.registers, k.instructions[0].mnemonic

`import sassview` stays light: the compiler bindings and every view load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sassview.errors import SassviewError
from sassview.frontends.registry import declaration, declaration_names
from sassview.ir import SCHEMA_VERSION, Kernel, Program
from sassview.lazy import lazy_exports

__version__ = "0.1.0"

__all__ = [
    "SCHEMA_VERSION",
    "BuildOptions",
    "Kernel",
    "Program",
    "SassviewError",
    "__version__",
    "analyze",
    "compile",
    "from_artifacts",
    "from_ptx",
    "inspect",
    "load",
    "load_kernel_file",
    *declaration_names(),  # sv.cuda, sv.triton, ...: each frontend's (frontends/registry.py)
]

if TYPE_CHECKING:
    from sassview.api import (
        BuildOptions,
        analyze,
        compile,
        from_artifacts,
        from_ptx,
        inspect,
        load,
        load_kernel_file,
    )

    # the built-in frontends' declarations, for type checkers (at run time: __getattr__)
    from sassview.declare import cuda as cuda
    from sassview.declare import cuda_file as cuda_file
    from sassview.declare import cute as cute
    from sassview.declare import cutile as cutile
    from sassview.declare import gluon as gluon
    from sassview.declare import tensor as tensor
    from sassview.declare import tensor_descriptor as tensor_descriptor
    from sassview.declare import triton as triton

_API = (
    "BuildOptions",
    "compile",
    "from_artifacts",
    "from_ptx",
    "load",
    "load_kernel_file",
    "inspect",
    "analyze",
)
# the API's names, from api.py on first use; any other name may be a frontend's declaration,
# for a kernel.py (sv.cuda, sv.triton, ...: frontends/registry.py)
__getattr__ = lazy_exports(__name__, dict.fromkeys(_API, "api"), otherwise=declaration)
