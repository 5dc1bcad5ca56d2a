"""The registry: every analysis sassview runs, in the order it runs them.

Adding an analysis means writing one module with `run(ctx) -> Findings` and its facts record
(a `Facts`, sassview/analyses/facts.py: its keys in `check --json`, its rows in `check`, its
pairs in the TUI header), and adding one line here, or calling `register` (an analysis outside
sassview). Modules are imported when first run, so `import sassview` stays light.

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
| spins | what a short retry loop waits on: the partitions' and the census' one reading |
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from sassview.analyses.base import (
    AnalysisContext,
    Annotation,
    Findings,
    HintStanding,
    Severity,
)
from sassview.analyses.facts import Facts


def _absolute(module: str) -> str:
    return f"{__name__}{module}" if module.startswith(".") else module


class Analysis(NamedTuple):
    """One analysis: the module with its `run(ctx) -> Findings`, and its facts record as
    "module:Class" (the views read the record's rows and keys; a warm run imports the record,
    a light module, not the analysis). A name with a leading "." is under sassview.analyses."""

    module: str
    facts: str


_REGISTERED: dict[str, Analysis] = {
    "unroll": Analysis(".unroll", ".loops.entry:UnrollFacts"),
    "memory": Analysis(".memory_width", ".records_memory:MemoryFacts"),
    "coalescing": Analysis(".coalescing", ".records:CoalescingFacts"),
    "bank_conflicts": Analysis(".bank_conflicts", ".records:BankFacts"),
    "tensor_cores": Analysis(".tensor_cores", ".records_compute:TensorCoreFacts"),
    "async_copy": Analysis(".async_copy", ".records_memory:AsyncCopyFacts"),
    "spills": Analysis(".spills", ".records_memory:SpillFacts"),
    "ptxas": Analysis(".ptxas_advice", ".records_compute:PtxasFacts"),
    "register_cap": Analysis(".register_cap", ".records:RegisterCapFacts"),
    "occupancy": Analysis(".occupancy", ".records:OccupancyFacts"),
    "register_budget": Analysis(".register_budget", ".records:RegisterBudgetFacts"),
    "schedule": Analysis(".schedule", ".records_compute:ScheduleFacts"),
    "triton_strides": Analysis(".triton_strides", ".records:TritonStrideFacts"),
    "warp_partitions": Analysis(".warp_partitions", ".records:WarpPartitionFacts"),
    "warp_roles": Analysis(".warp_roles", ".records:WarpRoleFacts"),
}

_BUILT_IN = tuple(_REGISTERED.items())
_MODULES = {name: _absolute(a.module) for name, a in _REGISTERED.items()}
# name -> module, in the order they run. The name keys each analysis' facts in reports and JSON.
REGISTRY: Mapping[str, str] = MappingProxyType(_MODULES)


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
        "merge_runs": "runs of narrow accesses at consecutive offsets that could be one wide one",
        "param_names": "kernel parameters' names by their constant-bank offsets",
        "spins": "what a short retry loop waits on (partitions, loop census)",
    }
)


def register(name: str, analysis: Analysis) -> Callable[[], None]:
    """Run `analysis` after the others, its facts keyed by `name` (an analysis outside
    sassview, or a test's); returns what takes it out again."""
    if name in _REGISTERED:
        raise ValueError(f"an analysis named {name!r} is registered already")
    _REGISTERED[name] = analysis
    _refresh()

    def unregister() -> None:
        if _REGISTERED.get(name) is analysis:
            del _REGISTERED[name]
            _refresh()

    return unregister


def _refresh() -> None:
    _MODULES.clear()
    _MODULES.update((n, _absolute(a.module)) for n, a in _REGISTERED.items())


def built_in() -> bool:
    """Is the registry sassview's own? The model cache keeps only what those analyses found
    (a cached kernel's Inspection has their facts: one registered beside them runs anew)."""
    return tuple(_REGISTERED.items()) == _BUILT_IN


def facts_record(name: str) -> type[Facts]:
    """The facts record the analysis `name` returns (imported: the record's module is light)."""
    module, _, cls = _REGISTERED[name].facts.partition(":")
    record = getattr(importlib.import_module(_absolute(module)), cls)
    if not (isinstance(record, type) and issubclass(record, Facts)):
        raise TypeError(f"{name}: {_REGISTERED[name].facts} is no Facts record")
    return record


def facts_records() -> tuple[type[Facts], ...]:
    """Every analysis' facts record, in the registry's order: what the views loop over."""
    return tuple(facts_record(name) for name in _REGISTERED)


def run_all(ctx: AnalysisContext) -> dict[str, Findings]:
    results = {}
    for name, module in REGISTRY.items():
        results[name] = importlib.import_module(module).run(ctx)
    return results


__all__ = [
    "HELPERS",
    "REGISTRY",
    "Analysis",
    "AnalysisContext",
    "Annotation",
    "HintStanding",
    "Findings",
    "Severity",
    "built_in",
    "facts_record",
    "facts_records",
    "register",
    "run_all",
]
