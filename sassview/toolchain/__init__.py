"""Where the CUDA tools live, which versions they are, and one place that runs them.

Everything comes from pip wheels found through `cuda.pathfinder`; a system CUDA is never needed.
Each tool can be overridden by an environment variable (see `locate.OVERRIDES`).

The names below load their module on first use (as sassview.cache's do): a warm run asks the
remembered versions (locate.py) and runs no tool, so it need not import run.py and subprocess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sassview.lazy import lazy_exports

if TYPE_CHECKING:
    from sassview.toolchain.locate import (
        OVERRIDES,
        ToolInfo,
        cuobjdump,
        nvdisasm,
        survey,
        toolchain_versions,
    )
    from sassview.toolchain.run import run_tool

_WHERE: dict[str, str | tuple[str, str]] = {
    **dict.fromkeys(
        ("OVERRIDES", "ToolInfo", "cuobjdump", "nvdisasm", "survey", "toolchain_versions"),
        "locate",
    ),
    "run_tool": "run",
}


__getattr__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "OVERRIDES",
    "ToolInfo",
    "cuobjdump",
    "nvdisasm",
    "run_tool",
    "survey",
    "toolchain_versions",
]
