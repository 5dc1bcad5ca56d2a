"""Global memory coalescing: how many 32-byte sectors one warp-wide execution of each global
access touches, against the fewest its width and active lanes allow.

Detects, on every architecture sassview reads (sm_80 ... sm_120), for LDG/STG/ATOMG/REDG/
LDGSTS (its global source) and the generic LD/ST/ATOM/RED whose PTX says .global:
  - per access: the sectors one warp touches (each lane's bytes, 32-byte sectors counted
    once), the minimum (the warp's bytes / 32, rounded up: 4 for 32 lanes x 32 bits, 16 for
    128 bits, 1 for a broadcast's 4 bytes), the lane stride that explains it, or why it is
    unknown (a gather, a stride only known at run time: see sassview.graph.lanes);
  - "uncoalesced": a source line whose accesses touch more sectors than the minimum; a WARNING
    when the access is in a loop, a NOTE otherwise; the hint in the kernel's language.

How it can be wrong:
  - The lanes are one warp of the block shape known (`.reqntid`, `--block`) or, by default, 32
    consecutive threadIdx.x with threadIdx.y and z the same in every lane: a kernel launched
    with blockDim.x < 32 gets a different answer (pass --block).
  - Every lane is taken to be active: a bounds check that switches lanes off is not seen.
  - The symbolic part of an address (pointer arguments, block and loop offsets) is taken to be
    a multiple of 32 bytes (cudaMalloc returns 256-byte aligned memory) where the address
    arithmetic does not prove it; each access says so in `assumption`. Known constant offsets
    (a[i + 1]) are counted: that one spans 5 sectors.
  - L1/L2 hit rates, and whether two accesses of one line share sectors, are not modelled: a
    sector count is per instruction, as Nsight Compute's sectors per request.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypedDict

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import MemoryAccess, accesses, ptx_lines, user_locs
from sassview.analyses.warp import (
    block_shape,
    index_of,
    loop_addresses,
    pattern_text,
    shared_box,
    stride_of,
    warp_model,
)
from sassview.graph.lanes import LaneValue, Unknown
from sassview.ir import OperandKind, SourceLoc

SECTOR = 32
ALIGNMENT_ASSUMPTION = (
    "the symbolic part of the address (pointer arguments, block and loop offsets) is taken "
    "as a multiple of 32 bytes"
)


class GlobalAccess(TypedDict):
    """One global access, one warp-wide execution (the `accesses` of the facts)."""

    address: int
    opcode: str
    direction: str  # load, store, atomic
    bits: int
    source_line: int | None
    in_loop: bool
    active_lanes: int
    sectors: int | None  # None when unknown
    min_sectors: int
    stride: int | None  # bytes between consecutive lanes, when one stride holds for all
    pattern: str | None  # the lanes' steps in words
    coalesced: bool | None  # sectors <= min_sectors; None when unknown
    assumption: str | None  # what the count rests on, beyond the address arithmetic
    unknown: str | None  # why the sectors are unknown


class CoalescingFacts(TypedDict):
    block: str  # the lanes the counts are for, in words
    accesses: list[GlobalAccess]
    coalesced: int
    uncoalesced: int
    unknown: int


_GLOBAL = frozenset({"LDG", "STG", "ATOMG", "REDG", "LDGSTS", "LD", "ST", "ATOM", "RED"})

_CUDA_HINT = (
    "make threadIdx.x index the contiguous (last) dimension: swap the roles of threadIdx.x "
    "and threadIdx.y or transpose the index; when reads and writes walk different dimensions "
    "(a transpose), stage the tile through shared memory (padded, [32][33])"
)
_TRITON_HINT = (
    "make the contiguous dimension the fastest-varying offsets of the block (the last axis of "
    "the `tl.arange` offsets, `order=` of a block pointer), or load the tile along its "
    "contiguous dimension and `tl.trans` it"
)
_CUTE_HINT = (
    "give the copy a thread-value layout whose consecutive threads walk the tensor's "
    "stride-1 mode (the TV layout of the tiled copy), or stage through shared memory"
)
_MISALIGNED_HINT = (
    "the access starts past a 32-byte boundary: align the base (an offset that is a multiple "
    "of 8 floats, or padding at the row's start)"
)


class Measured(NamedTuple):
    """One global access, its fact, and the lane addresses it rests on."""

    access: MemoryAccess
    fact: GlobalAccess
    value: LaneValue | Unknown


def hint_for(kind: str) -> str:
    """The fix for an uncoalesced access, in the terms of the kernel's language."""
    return {"triton": _TRITON_HINT, "cute": _CUTE_HINT}.get(kind, _CUDA_HINT)


def global_accesses(ctx: AnalysisContext) -> list[Measured]:
    """Every global access with its sector count, computed once per inspection."""
    box = shared_box(ctx)
    found = box.get("global")
    if found is None:
        found = box["global"] = _measure(ctx)
    return found


def _measure(ctx: AnalysisContext) -> list[Measured]:
    kernel = ctx.kernel
    picked = [
        a
        for a in accesses(kernel, ctx.shared(ptx_lines))
        if a.space == "global" and a.instruction.opcode in _GLOBAL and isinstance(a.bits, int)
    ]
    if not picked:
        return []
    model = warp_model(ctx)
    index = index_of(ctx)
    in_loop = loop_addresses(ctx)
    active = block_shape(ctx).active_lanes
    out = []
    for acc, loc in zip(picked, user_locs([a.instruction for a in picked]), strict=True):
        ins = acc.instruction
        operand = acc.operand
        if ins.opcode == "LDGSTS":  # [shared], [global]: the global source is the last one
            operand = [op for op in ins.operands if op.kind is OperandKind.MEMORY][-1]
        assert isinstance(acc.bits, int)
        nbytes = max(1, acc.bits // 8)
        value = (
            model.address(index[ins.address], operand)
            if operand is not None
            else Unknown("no address operand")
        )
        fact = _fact(acc, loc, value, nbytes, active, ins.address in in_loop)
        out.append(Measured(acc, fact, value))
    return out


def _fact(
    acc: MemoryAccess,
    loc: SourceLoc | None,
    value: LaneValue | Unknown,
    nbytes: int,
    active: int,
    in_loop: bool,
) -> GlobalAccess:
    ins = acc.instruction
    least = -(-active * nbytes // SECTOR)
    fact = GlobalAccess(
        address=ins.address,
        opcode=ins.mnemonic,
        direction=acc.direction,
        bits=nbytes * 8,
        source_line=loc.line if loc is not None else None,
        in_loop=in_loop,
        active_lanes=active,
        sectors=None,
        min_sectors=least,
        stride=None,
        pattern=None,
        coalesced=None,
        assumption=None,
        unknown=None,
    )
    if isinstance(value, Unknown):
        fact["unknown"] = value.reason
        return fact
    lanes = value.lanes[:active]
    count = fact["sectors"] = sectors(lanes, nbytes)
    fact["stride"] = stride_of(lanes)
    fact["pattern"] = pattern_text(lanes)
    fact["coalesced"] = count <= least
    if value.terms and value.alignment_bits < 5 and not value.uniform:
        fact["assumption"] = ALIGNMENT_ASSUMPTION
    return fact


def sectors(lanes: tuple[int, ...] | list[int], nbytes: int) -> int:
    """Distinct 32-byte sectors the lanes' accesses of `nbytes` each touch."""
    seen: set[int] = set()
    for a in lanes:
        seen.update(range(a // SECTOR, (a + nbytes - 1) // SECTOR + 1))
    return len(seen)


def run(ctx: AnalysisContext) -> Findings:
    measured = global_accesses(ctx)
    facts = [m.fact for m in measured]
    summary = CoalescingFacts(
        block=block_shape(ctx).describe(),
        accesses=facts,
        coalesced=sum(1 for f in facts if f["coalesced"] is True),
        uncoalesced=sum(1 for f in facts if f["coalesced"] is False),
        unknown=sum(1 for f in facts if f["coalesced"] is None),
    )
    kind = ctx.program.artifacts.kind
    found = _findings(measured, hint_for(kind), _vector_hint(kind))
    return Findings(facts=dict(summary), annotations=tuple(found))


def _vector_hint(kind: str) -> str:
    from sassview.analyses.memory_width import hints_for

    return hints_for(kind)[1]


def _together(members: list[Measured], active: int) -> int | None:
    """Sectors the accesses of one line touch together, when they share one symbolic base and
    their bytes form one contiguous range (each thread's elements are contiguous and the
    threads' accesses interleave: one vector access per thread would be one request); else
    None."""
    values = [m.value for m in members if isinstance(m.value, LaneValue)]
    if len(values) < 2 or len(values) != len(members) or len({v.terms for v in values}) != 1:
        return None
    spans = sorted(
        (a, a + m.fact["bits"] // 8)
        for m, v in zip(members, values, strict=True)
        for a in v.lanes[:active]
    )
    if any(prev[1] != nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False)):
        return None
    return (spans[-1][1] - 1) // SECTOR - spans[0][0] // SECTOR + 1


def _findings(measured: list[Measured], hint: str, vector_hint: str) -> list[Annotation]:
    """One `uncoalesced` finding per (source line, direction), for its worst access."""
    groups: dict[tuple[Any, str], list[Measured]] = {}
    every: dict[tuple[Any, str], list[Measured]] = {}
    for m in measured:
        loc = m.access.instruction.source
        outer = loc.outermost if loc is not None else None
        key = ((outer.file, outer.line) if outer is not None else None, m.fact["direction"])
        every.setdefault(key, []).append(m)
        if m.fact["coalesced"] is False:
            groups.setdefault(key, []).append(m)
    out = []
    for key, members in groups.items():
        worst_m = max(members, key=lambda m: (m.fact["sectors"] or 0) / m.fact["min_sectors"])
        worst = worst_m.fact
        loc = worst_m.access.instruction.source
        outer = loc.outermost if loc is not None else None
        line = f"line {outer.line}" if outer is not None else f"/*{worst['address']:04x}*/"
        looped = any(m.fact["in_loop"] for m in members)
        count = len(members)
        together = _together(every[key], worst["active_lanes"])
        message = (
            f"{line}: global {key[1]} touches {worst['sectors']} sectors per warp where "
            f"{worst['min_sectors']} would do ({worst['pattern']}"
            + (f"; {count} accesses" if count > 1 else "")
            + (", in a loop)" if looped else ")")
        )
        fix = hint
        if together is not None:
            message += (
                f"; the line's {len(every[key])} accesses interleave and touch {together} "
                "sectors together: one wider access per thread would do it in one request"
            )
            fix = vector_hint
        elif worst["stride"] is not None and worst["stride"] == worst["bits"] // 8:
            fix = _MISALIGNED_HINT
        out.append(
            Annotation(
                kind="uncoalesced",
                # Interleaved accesses mostly hit in L1: requests, not DRAM traffic, are lost.
                severity=Severity.WARNING if looped and together is None else Severity.NOTE,
                message=message,
                hint=fix,
                addresses=tuple(m.fact["address"] for m in members),
                source=(outer,) if outer is not None else (),
                data={
                    "line": outer.line if outer is not None else None,
                    "direction": key[1],
                    "sectors": worst["sectors"],
                    "min_sectors": worst["min_sectors"],
                    "stride": worst["stride"],
                    "accesses": count,
                    "interleaved_sectors": together,
                },
            )
        )
    out.sort(key=lambda a: a.addresses[0])
    return out
