"""Merge candidates: narrow accesses through one base register at consecutive offsets
([R2.64], [R2.64+0x4], [R2.64+0x8], [R2.64+0xc]) that one vector access could do.

Its own module because two analyses read the runs: memory_width reports them (the
`merge-candidate` note), and coalescing leaves a line whose accesses interleave to them (one
cause, one finding). How it can be wrong: see `sassview.analyses.memory_width`.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from sassview.analyses.base import AnalysisContext, Annotation, Severity
from sassview.analyses.memory import MemoryAccess, base_text, distinct_locs, kernel_accesses
from sassview.analyses.warp import shared_box
from sassview.analyses.width_hints import MERGE_HINT
from sassview.ir import OperandKind, SassInstruction

NARROW_BELOW = 128


MERGE_SPACES = frozenset({"global", "generic", "shared"})


_NO_DEST = frozenset(
    {"STG", "ST", "STS", "STL", "STSM", "RED", "REDG", "UTMASTG", "UBLKCP", "BAR", "BRA", "EXIT",
     "WARPSYNC", "BSSY", "BSYNC", "MEMBAR", "FENCE", "DEPBAR", "LDGDEPBAR", "NOP"}
)  # fmt: skip


# Accesses on the two sides of a barrier or fence cannot become one access.
_ORDERING = frozenset(
    {"BAR", "MEMBAR", "FENCE", "ERRBAR", "CCTL", "WARPSYNC", "SYNCS", "DEPBAR", "LDGDEPBAR",
     "ARRIVES", "UCGABAR_ARV", "UCGABAR_WAIT", "NANOSLEEP", "YIELD"}
)  # fmt: skip


def owns(run: Annotation) -> bool:
    """Whether a run owns its accesses (their narrow and interleaving notes fold into it):
    one whole aligned 16-byte chunk of its base (+0x0..+0xc of 32-bit loads), which one
    128-bit access does. A run of another shape (a 12-byte struct's +0x0..+0x8) may not be
    mergeable at all where the base's alignment is unknown: the other notes stay."""
    offsets = run.data["offsets"]
    return bool(run.data["bytes"] == 16 and offsets[0] % 16 == 0)


def owned_addresses(ctx: AnalysisContext) -> frozenset[int]:
    """The accesses of the runs that own theirs (`owns`)."""
    return frozenset(a for run in merge_runs(ctx) if owns(run) for a in run.addresses)


def merge_runs(ctx: AnalysisContext) -> list[Annotation]:
    """The kernel's merge-candidate runs (one note each, the plain hint), made once per
    inspection: the coalescing analysis leaves an interleaved line of their accesses to them
    (the cause is one: narrow accesses)."""
    box = shared_box(ctx)
    found = box.get("merge runs")
    if found is None:
        runs = _merge_candidates(ctx.kernel.instructions, ctx.shared(kernel_accesses))
        found = box["merge runs"] = [r for run in runs if (r := _aligned(ctx, run)) is not None]
    return cast(list[Annotation], found)


def _aligned(ctx: AnalysisContext, run: Annotation) -> Annotation | None:
    """The run as wide as the lanes' addresses let one access be, or None where no two of
    its accesses can merge in every lane. A W-byte access needs a W-aligned address in every
    active lane: the lanes' own parts (the warp model's, graph/lanes.py) must agree modulo W
    (a 12-byte struct's lanes, 12 apart, never do for W = 8), and a W-byte chunk of the run
    must start on a W boundary. The second needs the symbolic part of the address: it is
    taken as 16-byte aligned where it is kernel parameters alone (pointers, as cudaMalloc's
    are) and multiples of 16, so `a + 4*tid + 1`'s +0x4..+0x10 can be one 8-byte access
    (+0x8..+0xc) and no 16-byte one; with another term (a block index times 4) only the
    first test applies. A base the model cannot follow keeps the run as it is."""
    from sassview.analyses.warp import index_of, lanes_in, warp_model
    from sassview.graph.lanes import Unknown

    first = ctx.kernel.instruction_at(run.addresses[0])
    if first is None:
        return run
    operand = next((op for op in first.operands if op.kind is OperandKind.MEMORY), None)
    if operand is None:
        return run
    mask, base, offset = warp_model(ctx).access(index_of(ctx)[first.address], operand)
    lanes = lanes_in(mask)
    if isinstance(base, Unknown) or base.scaled or base.wrap is not None or not lanes:
        return run
    step = run.data["bits"] // 8
    start = run.data["offsets"][0]
    end = run.data["offsets"][-1] + step
    # lane l's address of the access at immediate o: (symbolic part) + at[l] + o
    at = [base.lanes[lane] + offset - start for lane in lanes]
    known = all(name.startswith("c[") or c % 16 == 0 for name, c in base.terms)
    width = 16
    while width > end - start:
        width //= 2
    while width > step:
        residues = {a % width for a in at}
        if len(residues) == 1:
            chunk = start + (-(residues.pop() + start) % width) if known else start
            if chunk + width <= end:
                return run if width == _claimed(run) else _narrowed(run, width, chunk, step)
        width //= 2
    return None


def _claimed(run: Annotation) -> int:
    """The width in bytes the run's message says its accesses could be (`_chains`)."""
    width = 16
    while width > run.data["bytes"]:
        width //= 2
    return width


def _narrowed(run: Annotation, width: int, chunk: int, step: int) -> Annotation:
    """The run cut to the chunk one `width`-byte access can do (+chunk..), reworded."""
    keep = [o for o in run.data["offsets"] if chunk <= o < chunk + width]
    index = [run.data["offsets"].index(o) for o in keep]
    bits, space, direction = run.data["bits"], run.data["space"], run.data["direction"]
    span = f"+{keep[0]:#x}..+{keep[-1]:#x}"
    return dataclasses.replace(
        run,
        message=(
            f"{len(keep)} {bits}-bit {space} {direction}s from {run.data['base']} at consecutive "
            f"offsets ({span}, {width} bytes) could be a {width * 8}-bit access; the run "
            f"+{run.data['offsets'][0]:#x}..+{run.data['offsets'][-1]:#x} is not "
            f"{_claimed(run)}-byte aligned in every lane, so not one {_claimed(run) * 8}-bit "
            "access"
        ),
        addresses=tuple(run.addresses[n] for n in index),
        data={**run.data, "offsets": keep, "bytes": width},
    )


def _written_registers(ins: SassInstruction) -> range:
    """R registers the instruction (probably) writes: its first register operand, widened."""
    ops = ins.operands
    if not ops or ins.opcode in _NO_DEST:
        return _NONE
    regs = ops[0].registers
    if not regs:
        return _NONE
    reg = regs[0]
    if reg.file == "P" and len(ops) > 1:
        regs = ops[1].registers  # ATOMG PT, R28, [...]: a predicate before the value
        if not regs:
            return _NONE
        reg = regs[0]
    if reg.file != "R" or reg.index is None:
        return _NONE
    mods = ins.modifiers
    span = reg.count
    if mods:
        if "256" in mods:
            span = 16 if ins.opcode in ("LDG", "LD") else 8  # LDG.E.ENL2.256 R8, R4: two halves
        elif "128" in mods:
            span = 4
        elif "64" in mods or "WIDE" in mods:
            span = max(span, 2)
    if span == 16:
        return range(0, 256)  # two destination operands: treat every register as written
    return range(reg.index, reg.index + span)


_NONE = range(0)


def _merge_candidates(
    instructions: tuple[SassInstruction, ...], found: list[MemoryAccess], hint: str = MERGE_HINT
) -> list[Annotation]:
    """Chains of narrow accesses with one key — (segment, space, direction, opcode, width, base,
    guard) — at consecutive offsets; a segment ends at a branch, a branch target, a barrier or a
    fence. A chain needs two offsets one width apart in its group, so the accesses are grouped
    by width, then base, then the rest of the key, and each step keeps only groups that still
    have such a pair: most kernels stop at the first, cheap one (no base text, no segments).
    Only the spans of the groups left are checked for writes to their base registers."""
    by_width: dict[int, list[MemoryAccess]] = {}
    for acc in found:
        bits, operand = acc.bits, acc.operand
        if (
            isinstance(bits, int)
            and bits < NARROW_BELOW
            and acc.space in MERGE_SPACES
            and acc.direction != "atomic"
            and operand is not None
            and operand.kind is OperandKind.MEMORY
        ):
            by_width.setdefault(bits, []).append(acc)
    cuts: list[int] | None = None
    index: dict[int, int] | None = None
    out: list[Annotation] = []
    for bits, same_width in by_width.items():
        step = bits // 8
        if not _has_neighbours(same_width, step):
            continue
        for base, same_base in _group(same_width, _base_of).items():
            if not _has_neighbours(same_base, step):
                continue
            if cuts is None:
                cuts = _segment_starts(instructions)
            groups = _group(same_base, functools.partial(_rest_of_key, cuts))
            for (_segment, space, direction, opcode, guard, negated), group in groups.items():
                if not _has_neighbours(group, step):
                    continue
                if index is None:
                    index = {ins.address: n for n, ins in enumerate(instructions)}
                key = (space, direction, opcode, bits, base, guard, negated)
                for version in _split_at_writes(instructions, index, group):
                    out.extend(_chains(key, version, hint))
    # Chains share no access, so no two start at one address: the order is the same whatever
    # order the groups were visited in.
    out.sort(key=lambda a: a.addresses[0])
    return out


_K = TypeVar("_K")


def _group(
    accs: list[MemoryAccess], key: Callable[[MemoryAccess], _K]
) -> dict[_K, list[MemoryAccess]]:
    """Accesses by key, in first-seen order, each group in address order."""
    out: dict[_K, list[MemoryAccess]] = {}
    for acc in accs:
        out.setdefault(key(acc), []).append(acc)
    return out


def _base_of(acc: MemoryAccess) -> str:
    assert acc.operand is not None  # a merge candidate has its address operand
    return base_text(acc.operand)


def _rest_of_key(cuts: list[int], acc: MemoryAccess) -> tuple[Any, ...]:
    """(segment, space, direction, opcode, guard, negated): the key beyond width and base."""
    ins = acc.instruction
    segment = bisect.bisect_right(cuts, ins.address)
    return segment, acc.space, acc.direction, ins.opcode, ins.guard, ins.guard_negated


def _segment_starts(instructions: tuple[SassInstruction, ...]) -> list[int]:
    """Addresses where a segment starts: branch targets, and whatever follows a branch, a
    barrier or a fence (accesses on the two sides of one cannot become one access)."""
    starts = {i.target for i in instructions if i.target is not None}
    starts.update(i.address + 1 for i in instructions if i.control_flow or i.opcode in _ORDERING)
    return sorted(starts)


def _has_neighbours(members: list[MemoryAccess], step: int) -> bool:
    offsets = {(a.operand.offset if a.operand is not None else None) or 0 for a in members}
    return any(off + step in offsets for off in offsets)


def _split_at_writes(
    instructions: tuple[SassInstruction, ...], index: dict[int, int], members: list[MemoryAccess]
) -> list[list[MemoryAccess]]:
    """Cut a group (in address order) wherever an instruction between two members writes one of
    the base registers: the accesses on either side use different base values."""
    operand = members[0].operand
    base = {
        r
        for reg in (operand.registers if operand is not None else ())
        if reg.file == "R" and reg.index is not None
        for r in range(reg.index, reg.index + reg.count)
    }
    versions = [[members[0]]]
    for prev, acc in zip(members, members[1:], strict=False):
        lo, hi = index[prev.address], index[acc.address]
        if any(base.intersection(_written_registers(instructions[n])) for n in range(lo, hi)):
            versions.append([acc])
        else:
            versions[-1].append(acc)
    return versions


def _chains(key: tuple[Any, ...], members: list[MemoryAccess], hint: str) -> list[Annotation]:
    space, direction, _opcode, bits, base, _guard, _negated = key
    step = bits // 8
    by_offset: dict[int, MemoryAccess] = {}
    for acc in members:
        offset = (acc.operand.offset if acc.operand is not None else None) or 0
        by_offset.setdefault(offset, acc)
    offsets = sorted(by_offset)
    runs: list[list[int]] = []
    for off in offsets:
        if runs and off == runs[-1][-1] + step:
            runs[-1].append(off)
        else:
            runs.append([off])
    out = []
    for run in runs:
        if len(run) < 2:
            continue
        accs = [by_offset[o] for o in run]
        nbytes = len(run) * step
        widest = NARROW_BELOW
        while widest > nbytes * 8:
            widest //= 2
        span = f"+{run[0]:#x}..+{run[-1]:#x}"
        out.append(
            Annotation(
                kind="merge-candidate",
                severity=Severity.NOTE,
                message=(
                    f"{len(run)} {bits}-bit {space} {direction}s from {base} at consecutive "
                    f"offsets ({span}, {nbytes} bytes) could be {widest}-bit accesses"
                ),
                hint=hint,
                addresses=tuple(a.address for a in accs),
                source=distinct_locs(a.instruction for a in accs),
                data={
                    "base": base,
                    "bits": bits,
                    "offsets": run,
                    "bytes": nbytes,
                    "space": space,
                    "direction": direction,
                },
            )
        )
    return out
