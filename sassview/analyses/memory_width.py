"""Memory access widths: how many bits each load, store and atomic moves per thread.

Detects, on every architecture sassview reads (sm_80 ... sm_120):
  - the width of every memory instruction (LDG/STG/LD/ST/LDS/STS/LDL/STL/LDC/LDGSTS/LDSM/STSM/
    ATOM*/RED*, and TMA / bulk copies as "bulk"), with the PTX instruction it came from;
  - "narrow-access" (NOTE): source lines whose global loads and stores are all narrower than
    128 bits (LDG.E rather than LDG.E.128);
  - "merge-candidate" (NOTE): several narrow accesses through one base register at consecutive
    offsets ([R2.64], [R2.64+0x4], [R2.64+0x8], [R2.64+0xc]) — one vector access could do it.

How it can be wrong:
  - A narrow access is not always a missed chance: a scalar per thread that is coalesced across a
    warp is often as fast, and the element may simply be one float. The note says what the
    compiler did, not what the hardware costs.
  - Merge candidates are found without dataflow: a base register counts as unchanged until an
    instruction names it as its first (destination) operand, and groups end at branches, branch
    targets, barriers and fences. A write the heuristic misses could pair accesses from different
    bases; accesses split by control flow it cannot see past are not paired. Consecutive offsets
    do not prove alignment: ptxas kept them apart because it could not prove a 16-byte aligned
    base (or because they sit on two sides of something it must not reorder across).
  - Generic LD/ST/ATOM/RED are counted as "generic" unless their PTX says .global/.shared; the
    SASS -> PTX map is per instruction and sometimes lands on a neighbouring PTX line.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import (
    LineKeys,
    MemoryAccess,
    accesses,
    base_text,
    distinct_locs,
    ptx_for,
    ptx_lines,
    user_loc,
)
from sassview.ir import OperandKind, SassInstruction

MERGE_SPACES = frozenset({"global", "generic", "shared"})
NARROW_BELOW = 128
_NO_DEST = frozenset(
    {"STG", "ST", "STS", "STL", "STSM", "RED", "REDG", "UTMASTG", "UBLKCP", "BAR", "BRA", "EXIT",
     "WARPSYNC", "BSSY", "BSYNC", "MEMBAR", "FENCE", "DEPBAR", "LDGDEPBAR", "NOP"}
)  # fmt: skip
# Accesses on the two sides of a barrier or fence cannot become one access.
_ORDERING = frozenset(
    {"BAR", "MEMBAR", "FENCE", "ERRBAR", "CCTL", "WARPSYNC", "SYNCS", "DEPBAR", "LDGDEPBAR",
     "ARRIVES", "UCGABAR_ARV", "UCGABAR_WAIT", "NANOSLEEP", "YIELD"}
)  # fmt: skip
MERGE_HINT = (
    "use vector types (float4/int4/float2) on 16-byte aligned data (`__align__(16)`, "
    "`cudaMalloc` bases) and `__restrict__` pointers; in Triton, `tl.multiple_of` / "
    "divisibility hints let the compiler prove the alignment"
)
NARROW_HINT = (
    "load and store float4/int4 (or float2) per thread where the data is 16-byte aligned; "
    "`__restrict__ const` pointers and aligned sizes let the compiler vectorize"
)


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    table = ptx_lines(kernel)
    found = accesses(kernel, table)
    keys = LineKeys(kernel.instructions)
    facts: dict[str, Any] = {
        "max_global_load_bits": _max_bits(found, "global", "load"),
        "max_global_store_bits": _max_bits(found, "global", "store"),
        "max_shared_load_bits": _max_bits(found, "shared", "load"),
        "max_shared_store_bits": _max_bits(found, "shared", "store"),
        "accesses": [_access_fact(kernel, table, a) for a in found],
        "by_line": _by_line(found, keys),
    }
    annotations = [*_narrow_lines(found, keys), *_merge_candidates(kernel.instructions, found)]
    return Findings(facts=facts, annotations=tuple(annotations))


def _max_bits(found: Iterable[MemoryAccess], space: str, direction: str) -> int | None:
    widths = [a.bits for a in found if a.space == space and a.direction == direction]
    ints = [w for w in widths if isinstance(w, int)]
    return max(ints) if ints else None


def _access_fact(kernel: Any, table: Any, acc: MemoryAccess) -> dict[str, Any]:
    ins = acc.instruction
    loc = user_loc(ins)
    ptx = ptx_for(kernel, table, ins.address)
    return {
        "address": ins.address,
        "opcode": ins.mnemonic,
        "space": acc.space,
        "direction": acc.direction,
        "bits": acc.bits,
        "source_line": loc.line if loc is not None else None,
        "ptx": ptx.mnemonic if ptx is not None else None,
    }


def _by_line(found: Iterable[MemoryAccess], keys: LineKeys) -> dict[str, dict[str, dict[str, int]]]:
    """Source line -> {"loads"|"stores"|"atomics": {bits: count}}; constant loads left out."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for acc in found:
        key = keys.of(acc.instruction)
        if key is None or acc.space == "constant":
            continue
        entry = out.setdefault(key, {"loads": {}, "stores": {}, "atomics": {}})
        bucket = entry[acc.direction + "s"]
        bucket[str(acc.bits)] = bucket.get(str(acc.bits), 0) + 1
    return out


def _narrow_lines(found: Iterable[MemoryAccess], keys: LineKeys) -> list[Annotation]:
    lines: dict[str, list[MemoryAccess]] = {}
    for acc in found:
        if acc.space == "global" and acc.direction != "atomic" and isinstance(acc.bits, int):
            key = keys.of(acc.instruction)
            if key is not None:
                lines.setdefault(key, []).append(acc)
    out = []
    for key, accs in lines.items():
        widest = max(int(a.bits) for a in accs)
        if widest >= NARROW_BELOW:
            continue
        loads = sum(a.direction == "load" for a in accs)
        stores = len(accs) - loads
        counts = ", ".join(
            f"{n} {what}{'s' if n != 1 else ''}"
            for n, what in ((loads, "load"), (stores, "store"))
            if n
        )
        out.append(
            Annotation(
                kind="narrow-access",
                severity=Severity.NOTE,
                message=f"line {key}: global accesses at most {widest} bits wide ({counts})",
                hint=NARROW_HINT,
                addresses=tuple(a.address for a in accs),
                source=distinct_locs(a.instruction for a in accs),
                data={"line": key, "max_bits": widest, "loads": loads, "stores": stores},
            )
        )
    return out


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
    instructions: tuple[SassInstruction, ...], found: list[MemoryAccess]
) -> list[Annotation]:
    """Group narrow accesses by (segment, space, direction, opcode, width, base, guard); a
    segment ends at a branch, a branch target, a barrier or a fence. Only groups holding two
    accesses at consecutive offsets are then checked for writes to their base registers, so the
    cost is one cheap pass over the kernel plus the spans of the few real candidates."""
    cands = [
        a
        for a in found
        if a.space in MERGE_SPACES
        and a.direction != "atomic"
        and isinstance(a.bits, int)
        and a.bits < NARROW_BELOW
        and a.operand is not None
        and a.operand.kind is OperandKind.MEMORY
    ]
    if len(cands) < 2:
        return []
    # Segment starts: branch targets, and whatever follows a branch / barrier / fence.
    starts = {i.target for i in instructions if i.target is not None}
    starts.update(i.address + 1 for i in instructions if i.control_flow or i.opcode in _ORDERING)
    cuts = sorted(starts)
    groups: dict[tuple[Any, ...], list[MemoryAccess]] = {}
    for acc in cands:
        ins, operand = acc.instruction, acc.operand
        assert operand is not None  # kept by the filter above
        segment = bisect.bisect_right(cuts, ins.address)
        base = base_text(operand)
        key = (segment, acc.space, acc.direction, ins.opcode, acc.bits, base, ins.guard,
               ins.guard_negated)  # fmt: skip
        members = groups.get(key)
        if members is None:
            groups[key] = [acc]
        else:
            members.append(acc)
    index: dict[int, int] | None = None
    out: list[Annotation] = []
    for key, members in groups.items():
        if len(members) < 2 or not _has_neighbours(members, int(key[4]) // 8):
            continue
        if index is None:
            index = {ins.address: n for n, ins in enumerate(instructions)}
        for version in _split_at_writes(instructions, index, members):
            out.extend(_chains(key[1:], version))
    out.sort(key=lambda a: a.addresses[0])
    return out


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


def _chains(key: tuple[Any, ...], members: list[MemoryAccess]) -> list[Annotation]:
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
                hint=MERGE_HINT,
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
