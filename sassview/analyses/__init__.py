"""The registry: every analysis sassview runs, in the order it runs them.

Adding an analysis means writing one module with `run(ctx) -> Findings` and adding one line
here. Modules are imported when first run, so `import sassview` stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity

# name -> module. The name keys each analysis' facts in reports and JSON.
REGISTRY: Mapping[str, str] = MappingProxyType(
    {
        "unroll": "sassview.analyses.unroll",
        "memory": "sassview.analyses.memory_width",
        "coalescing": "sassview.analyses.coalescing",
        "bank_conflicts": "sassview.analyses.bank_conflicts",
        "tensor_cores": "sassview.analyses.tensor_cores",
        "async_copy": "sassview.analyses.async_copy",
        "spills": "sassview.analyses.spills",
        "ptxas": "sassview.analyses.ptxas_advice",
        "register_cap": "sassview.analyses.register_cap",
        "occupancy": "sassview.analyses.occupancy",
        "register_budget": "sassview.analyses.register_budget",
        "schedule": "sassview.analyses.schedule",
        "triton_strides": "sassview.analyses.triton_strides",
        "warp_partitions": "sassview.analyses.warp_partitions",
        "warp_roles": "sassview.analyses.warp_roles",
    }
)


def run_all(ctx: AnalysisContext) -> dict[str, Findings]:
    results = {}
    for name, module in REGISTRY.items():
        results[name] = importlib.import_module(module).run(ctx)
    return results


__all__ = [
    "REGISTRY",
    "AnalysisContext",
    "Annotation",
    "Findings",
    "Severity",
    "run_all",
]
