"""Where the CUDA tools live, which versions they are, and one place that runs them.

Everything comes from pip wheels found through `cuda.pathfinder`; a system CUDA is never needed.
Each tool can be overridden by an environment variable (see `locate.OVERRIDES`).
"""

from sassview.toolchain.locate import (
    OVERRIDES,
    ToolInfo,
    cuobjdump,
    nvdisasm,
    survey,
    toolchain_versions,
)
from sassview.toolchain.run import run_tool

__all__ = [
    "OVERRIDES",
    "ToolInfo",
    "cuobjdump",
    "nvdisasm",
    "run_tool",
    "survey",
    "toolchain_versions",
]
