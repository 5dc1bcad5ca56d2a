"""The numbers a kernel author compares between two compiles of a kernel, one row of them per
kernel: registers, spills, shared memory, instructions, the widest global accesses, the
tensor-core path, asynchronous copies, loop factors, occupancy and issue cycles per loop trip.

One place for them (the sweep's table, `diff`'s summary and the baseline gate read these), each
read from the analyses' typed facts.
"""

from __future__ import annotations

from typing import Any

from sassview.analyses.loops.entry import UnrollFacts
from sassview.analyses.records import OccupancyFacts
from sassview.analyses.records_compute import ScheduleFacts, TensorCoreFacts
from sassview.analyses.records_memory import AsyncCopyFacts, MemoryFacts, SpillFacts
from sassview.inspection import Inspection


def _loops(insp: Inspection) -> str:
    parts = []
    for e in insp.typed_facts(UnrollFacts).loops:
        if not e.get("statement", True):
            continue
        line = e["source_line"]
        f = e["achieved_factor"]
        mark = "full" if not e["has_back_edge"] else (f"x{f}" if f else "?")
        parts.append(f"{line}:{mark}")
    return " ".join(parts)


def _occupancy(insp: Inspection) -> float | None:
    """Occupancy % at the kernel's own block size; None when it is unknown (a sweep of sizes)."""
    f = insp.typed_facts(OccupancyFacts)
    if not f.known or f.block_source == "sweep":
        return None
    return f.points[0].percent


def _occupancy_sweep(insp: Inspection) -> str | None:
    """Occupancy % at each block size sassview tries when the kernel names none
    ("128:100 256:100 512:75"); None when its own size is known (then `occupancy` says it)."""
    f = insp.typed_facts(OccupancyFacts)
    if not f.known or f.block_source != "sweep":
        return None
    return " ".join(f"{p.threads}:{p.percent:g}" for p in f.points)


def _loop_cycles(insp: Inspection) -> str:
    """`9:44 13:72`: issue cycles per trip of each innermost loop, by its line (the schedule)."""
    return " ".join(
        f"{s['source_line'] if s['source_line'] is not None else '?'}:{s['issue_cycles']}"
        for s in insp.typed_facts(ScheduleFacts).loops
    )


def row_values(insp: Inspection) -> dict[str, Any]:
    r = insp.kernel.resources
    mem = insp.typed_facts(MemoryFacts)
    spill = insp.typed_facts(SpillFacts)
    async_ = insp.typed_facts(AsyncCopyFacts)
    return {
        "registers": r.registers,
        "spill_bytes": (spill.spill_store_bytes or 0) + (spill.spill_load_bytes or 0),
        # Triton's shared memory is all dynamic: count what the launch requests too.
        "shared_bytes": r.shared_user + (r.shared_dynamic or 0),
        "instructions": sum(1 for i in insp.kernel.instructions if i.opcode != "NOP"),
        "global_load_bits": mem.max_global_load_bits,
        "global_store_bits": mem.max_global_store_bits,
        "tensor": insp.typed_facts(TensorCoreFacts).path,
        "cp_async": async_.cp_async,
        "tma_loads": async_.tma["loads"],
        "loops": _loops(insp),
        "occupancy": _occupancy(insp),
        "occupancy_sweep": _occupancy_sweep(insp),
        "loop_cycles": _loop_cycles(insp),
    }
