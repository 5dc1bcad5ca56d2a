"""The per-kernel facts `sassview check` reports, as plain data (the JSON output's schema).

Documented in docs/json.md; `schema_version` changes whenever a field changes meaning or goes.
The human report (views/render.py) is made from this same data, so text and JSON cannot disagree.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sassview.analyses import Annotation
from sassview.analyses.facts import plain
from sassview.analyses.loops.entry import LoopKey, UnrollFacts
from sassview.analyses.records import (
    BankFacts,
    CoalescingFacts,
    OccupancyFacts,
    RegisterBudgetFacts,
    WarpPartitionFacts,
    WarpRoleFacts,
    memory_use_text,
)
from sassview.analyses.records_compute import (
    PtxasFacts,
    ScheduleFacts,
    TensorCoreFacts,
    placed_text,
)
from sassview.analyses.records_memory import AsyncCopyFacts, MemoryFacts, SpillFacts
from sassview.inspection import Inspection
from sassview.ir import SCHEMA_VERSION, Kernel, Program, SourceLoc
from sassview.opcodes import MOVES_AS_MATH, category, instruction_category

_REGISTER_ORDER = re.compile(r"([A-Z]+)(\d+)")
_FILE, _LINE, _INLINED = (operator.attrgetter(n) for n in ("file", "line", "inlined_at"))
_OPCODE = operator.attrgetter("opcode")


def _resources(kernel: Kernel) -> dict[str, Any]:
    r = kernel.resources
    return {
        "registers": r.registers,
        "stack_frame_bytes": r.stack_frame,
        "spill_store_bytes": r.spill_store_bytes,
        "spill_load_bytes": r.spill_load_bytes,
        "shared_bytes": r.shared_user,
        "shared_reserved_bytes": r.shared_reserved,
        "shared_dynamic_bytes": r.shared_dynamic,
        "local_bytes": r.local,
        "constant_bytes": {str(bank): size for bank, size in sorted(r.constant.items())},
        "max_threads": r.max_threads,
        "maxntid": list(r.maxntid) if r.maxntid else None,
        "reqntid": list(r.reqntid) if r.reqntid else None,
        "min_blocks_per_sm": r.min_blocks_per_sm,
        "max_registers": r.max_registers,
        "barriers": r.barriers,
        "param_bytes": r.param_bytes,
    }


def _source_text(loc: Any) -> str:
    outer = loc.outermost
    return f"{outer.file}:{outer.line}"


def _source_texts(locs: Sequence[SourceLoc]) -> list[str]:
    """The sorted distinct "file:line" of the outermost frames of `locs`.

    The 65k benchmark kernel's 32 findings name 94k source lines, every one of which the JSON
    lists, so the walk is as long as the output; it is made cheap instead. The fields are read
    by `map` (in C), and where the lines share one file (the usual case, and inlined code's
    outermost frames too) they stay ints until the distinct ones are formatted: 48 -> 19 ms
    for those 94k, the same lists (a set of tuples, then formatting each, cost the rest)."""
    outer = [loc.outermost for loc in locs] if any(map(_INLINED, locs)) else locs
    files = set(map(_FILE, outer))
    if len(files) == 1:
        (file,) = files
        return sorted([f"{file}:{line}" for line in set(map(_LINE, outer))])
    # "file:line" is one (file, line) pair: the line, an int, has no ":" to blur them
    return sorted({f"{loc.file}:{loc.line}" for loc in outer})


def annotation_data(a: Annotation) -> dict[str, Any]:
    return {
        "kind": a.kind,
        "severity": a.severity.name.lower(),
        "message": a.message,
        "hint": a.hint,
        "addresses": list(a.addresses),
        "loops": list(a.loops),
        "source": _source_texts(a.source),
    }


def _register_key(name: str) -> tuple[str, int]:
    m = _REGISTER_ORDER.fullmatch(name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


# A loop's keys (docs/json.md): schema 1's, then the census' (schema 2), then Triton's factor
# (only on loops of Triton kernels). Typed as LoopJson's keys: a key it lost is a mypy error.
_LOOP_KEYS: tuple[LoopKey, ...] = (
    *("source_line", "file", "depth", "has_back_edge", "achieved_factor", "requested_factor"),
    *("remainder", "statement", "requested_by"),
    *("kind", "factor", "ptx_factor", "copies", "trip_count", "inlined_at", "parent"),
    "fallbacks",  # the copies a diverged warp runs instead (BRA.DIV), not counted
    "decided_by",  # what settled copies / factor: "count" or "rolled build" (loops/rolled.py)
    "summary",  # the loop in words (LoopEntry.summary): what `check` prints
    "triton_factor",
)


def _schedule(insp: Inspection) -> list[dict[str, Any]]:
    """Per innermost loop, the schedule ptxas encoded (sassview/analyses/schedule.py), the
    loop named as the census names it (a remainder loop says so)."""
    entries = insp.typed_facts(UnrollFacts).entries
    out = []
    for s in insp.typed_facts(ScheduleFacts).loops:
        row = {k: s[k] for k in ("loop", "source_line", "issue_cycles", "math_share")}
        place = next((p for e in entries if (p := e.place_of(s["loop"])) is not None), None)
        out.append({**row, "text": placed_text(s, place)})
    return out


def _partition_spins(insp: Inspection) -> set[int]:
    """The SASS loops a warp-partition finding already counts as spins (mbarrier waits,
    setmaxnreg retries, the dispatch loop): left out of the loop census."""
    parts = insp.typed_facts(WarpPartitionFacts).partitions
    return {i for p in parts for loops in p.spins.values() for i in loops}


def _analysis(insp: Inspection) -> dict[str, Any]:
    mem = insp.typed_facts(MemoryFacts)
    tc = insp.typed_facts(TensorCoreFacts)
    async_ = insp.typed_facts(AsyncCopyFacts)
    spills = insp.typed_facts(SpillFacts)
    live = insp.liveness
    peak_ins = insp.kernel.instructions[live.peak_index] if insp.kernel.instructions else None
    spins = _partition_spins(insp)
    return {
        "loops": [
            {k: e[k] for k in _LOOP_KEYS if k in e}
            for e in (
                entry.to_json()
                for entry in insp.typed_facts(UnrollFacts).entries
                if not (spins and set(entry.sass_loops) <= spins)
            )
        ],  # fmt: skip
        # Warp-specialized kernels: each partition's loops, its spin loops folded by kind.
        "partitions": [a.message for a in insp.annotations if a.kind == "warp-partition"],
        "max_global_load_bits": mem.max_global_load_bits,
        "bulk_global_loads": mem.bulk_global_loads,
        "bulk_global_stores": mem.bulk_global_stores,
        "max_global_store_bits": mem.max_global_store_bits,
        "max_shared_load_bits": mem.max_shared_load_bits,
        "max_shared_store_bits": mem.max_shared_store_bits,
        "tensor_core_path": tc.path,
        "wgmma_serialized": insp.typed_facts(PtxasFacts).wgmma_serialized,
        "tensor_core_ops": [
            {
                **{k: op[k] for k in ("mnemonic", "shape", "accumulator", "inputs", "count")},
                "kind": op.get("kind"),  # tcgen05: the PTX kind::
                "descriptor": op.get("descriptor"),  # tcgen05: a constant instruction descriptor
            }
            for op in tc.ops
        ],
        "cp_async": async_.cp_async,
        "tma": async_.tma,
        "spills": bool(spills.spills),
        "spill_store_bytes": spills.spill_store_bytes,
        "spill_load_bytes": spills.spill_load_bytes,
        "spill_instructions": spills.spill_instructions,  # marked SpillRefill (or the guess)
        "local_bytes": spills.local_bytes,
        "occupancy": _occupancy(insp),
        "register_budget": _register_budget(insp),
        "schedule": _schedule(insp),
        "memory_use": _memory_use(insp),
        "warp_roles": plain(insp.typed_facts(WarpRoleFacts).roles),
        "register_peak": {
            "live": live.peak,
            "address": peak_ins.address if peak_ins else None,
            "source": _source_text(peak_ins.source) if peak_ins and peak_ins.source else None,
            "registers": sorted(live.live_at(live.peak_index), key=_register_key),
        },
    }


def _register_budget(insp: Inspection) -> dict[str, Any] | None:
    """setmaxnreg per warp group: sassview/analyses/register_budget.py; None without one."""
    f = insp.typed_facts(RegisterBudgetFacts)
    if not f.budgets:
        return None
    data: dict[str, Any] = plain(f)  # every field, in field order (with budgets, none hidden)
    return data


def _occupancy(insp: Inspection) -> dict[str, Any] | None:
    """Blocks and warps per SM at the kernel's block size(s): sassview/analyses/occupancy.py."""
    f = insp.typed_facts(OccupancyFacts)
    if not f.known:
        return None
    return {
        "block_source": f.block_source,
        "max_warps": f.max_warps,
        "text": f.text,
        "points": [
            {
                "threads": p.threads,
                "blocks": p.blocks,
                "warps": p.warps,
                "percent": p.percent,
                "limiters": p.limiters,
                "limits": p.limits,
                "carveout_kb": p.carveout_kb,
                "registers_for_next_block": p.registers_for_next_block,
                "shared_for_next_block": p.shared_for_next_block,
            }
            for p in f.points
        ],
    }


def _memory_use(insp: Inspection) -> dict[str, Any]:
    """Coalescing and bank conflicts: the kernel's counts, its line of text, every access."""
    glob, banks = insp.typed_facts(CoalescingFacts), insp.typed_facts(BankFacts)
    return {
        "text": memory_use_text(glob, banks),
        "block": glob.block,
        "global": {
            "coalesced": glob.coalesced,
            "uncoalesced": glob.uncoalesced,
            "unknown": glob.unknown,
        },
        "shared": {
            "conflicted": banks.conflicted,
            "unknown": banks.unknown,
            "worst_ways": banks.worst_ways,
        },
        "global_accesses": list(glob.accesses),
        "shared_accesses": list(banks.accesses),
    }


def _mix(kernel: Kernel) -> tuple[dict[str, int], dict[str, int]]:
    """(opcode -> count, category -> count) of the kernel's instructions, NOPs left out.
    Counted by opcode (Counter, in C), each opcode's count then going to its category whole,
    but for the opcodes that can be a move (opcodes.MOVES_AS_MATH), read one by one: the same
    counts as `instruction_category` of each instruction, 65k instructions in 3 ms, not 15."""
    opcodes = Counter(map(_OPCODE, kernel.instructions))
    del opcodes["NOP"]
    mix: dict[str, int] = {}
    for opcode, count in opcodes.items():
        if opcode in MOVES_AS_MATH:
            continue
        mix[category(opcode)] = mix.get(category(opcode), 0) + count
    for ins in kernel.instructions if not MOVES_AS_MATH.isdisjoint(opcodes) else ():
        if ins.opcode in MOVES_AS_MATH:
            cat = instruction_category(ins)
            mix[cat] = mix.get(cat, 0) + 1
    return dict(sorted(opcodes.items())), mix


def kernel_summary(insp: Inspection) -> dict[str, Any]:
    kernel = insp.kernel
    opcodes, mix = _mix(kernel)
    return {
        "name": kernel.name,
        "display_name": kernel.display_name,
        "arch": kernel.arch,
        "is_entry": kernel.is_entry,
        "resources": _resources(kernel),
        "instruction_count": sum(mix.values()),
        "mix": dict(sorted(mix.items(), key=lambda kv: (-kv[1], kv[0]))),
        "opcodes": opcodes,
        "analysis": _analysis(insp),
        "annotations": [annotation_data(a) for a in insp.annotations],
    }


def program_summary(program: Program, inspections: list[Inspection]) -> dict[str, Any]:
    a = program.artifacts
    return {
        "source": a.source_path,
        "label": a.label or None,  # kernel.py declarations: the kernel and its variant
        "variant": dict(a.variant),
        "kind": a.kind,
        "compiler": a.compiler or None,  # CUDA C++: "nvrtc" or "nvcc"
        "arch": program.arch,
        # The cubin's own note; the older ABI Triton's ptxas writes has none: say which ran.
        "producer": program.producer
        or (f"ptxas {a.toolchain['ptxas']}" if a.toolchain.get("ptxas") else ""),
        "elf_abi_version": program.abi_version,
        "options": list(a.options),
        "toolchain": dict(a.toolchain),
        "kernels": [kernel_summary(i) for i in inspections],
    }


def check_document(
    programs: list[dict[str, Any]], toolchain: dict[str, str], across: Sequence[Any] = ()
) -> dict[str, Any]:
    """The `check --json` document; `across`: the loops' `ArchDifference`s (loops/across.py)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "sassview": _version(),
        "toolchain": toolchain,
        "programs": programs,
        "loops_across_archs": [d.to_json() for d in across],
    }


def _version() -> str:
    from sassview import __version__

    return __version__
