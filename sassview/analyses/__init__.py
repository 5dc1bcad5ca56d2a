"""The registry: every analysis sassview runs, in the order it runs them.

Adding an analysis means writing one module with `run(ctx) -> Findings` and adding one line
here. Modules are imported when first run, so `import sassview` stays light.

Every other module here is a helper, listed in HELPERS with what it is for (so a reader tells
an analysis from its helpers at a glance; tests/test_typed_facts.py checks that each module of
this package is in one list or the other):

| helper | what it is for |
|---|---|
| base, facts | what an analysis is given and returns; the base of its typed facts |
| records, records_compute, records_memory | the analyses' facts records, importable alone |
| loops/ | the loop census `unroll` reports (one entry per loop statement) |
| memory, warp, width_hints, cute_width_hints | what the memory analyses share |
| launches | the launch's block, read from the host code (occupancy, memory use) |
| sm_limits, tcgen05_idesc | tables: per-SM limits; tcgen05 instruction descriptors |
| tile_loops | Triton's own IR on its loops, for the census |
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


# module -> what it is for: the modules of this package that are not analyses.
HELPERS: Mapping[str, str] = MappingProxyType(
    {
        "base": "what every analysis is given and returns",
        "facts": "the base of an analysis' typed facts",
        "records": "facts records of eight analyses, importable without them",
        "records_compute": "facts records of tensor cores, schedule, ptxas advice",
        "records_memory": "facts records of memory widths, async copies, spills",
        "loops": "the loop census the unroll analysis reports",
        "memory": "which SASS instructions touch memory, where, how wide",
        "warp": "the warp model coalescing and bank conflicts share",
        "width_hints": "the fixes the width notes suggest, per frontend",
        "cute_width_hints": "the CuTe DSL's words for narrow global accesses",
        "launches": "the block a kernel is launched with, from its host code",
        "sm_limits": "what one SM of each architecture holds",
        "tcgen05_idesc": "tcgen05.mma shapes and types from its instruction descriptor",
        "tile_loops": "what Triton's IR says about its loops",
    }
)


def run_all(ctx: AnalysisContext) -> dict[str, Findings]:
    results = {}
    for name, module in REGISTRY.items():
        results[name] = importlib.import_module(module).run(ctx)
    return results


__all__ = [
    "HELPERS",
    "REGISTRY",
    "AnalysisContext",
    "Annotation",
    "Findings",
    "Severity",
    "run_all",
]
