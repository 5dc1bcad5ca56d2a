"""Memory access widths: how many bits each load, store and atomic moves per thread.

Detects, on every architecture sassview reads (sm_80 ... sm_120):
  - the width of every memory instruction (LDG/STG/LD/ST/LDS/STS/LDL/STL/LDC/LDGSTS/LDSM/STSM/
    ATOM*/RED*, and TMA / bulk copies as "bulk"), with the PTX instruction it came from;
  - "narrow-access" (NOTE): source lines whose global loads and stores are all narrower than
    128 bits (LDG.E rather than LDG.E.128), one note per run of consecutive such lines; INFO
    where the coalescing analysis proves every one of them coalesced (no traffic is lost);
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
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import (
    MemoryAccess,
    base_text,
    distinct_locs,
    kernel_accesses,
    line_keys,
    ptx_lines,
    user_locs,
)
from sassview.analyses.records_memory import AccessWidth, MemoryFacts
from sassview.analyses.width_hints import MERGE_HINT, NARROW_HINT, hints_for
from sassview.ir import Kernel, OperandKind, PtxInstruction, SassInstruction, SourceLoc
from sassview.memo import memoized

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


def width_notes_reviser(kind: str) -> Any:
    """The function a frontend names (`FrontendSpec.width_notes`, a module in this layer) that
    rewords narrow-access and merge-candidate notes by their cause, or None."""
    import importlib

    from sassview.frontends.registry import spec

    frontend = spec(kind)
    module = frontend.width_notes if frontend is not None else None
    return importlib.import_module(module).revised if module else None


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    table = ctx.shared(ptx_lines)
    found = ctx.shared(kernel_accesses)
    keys = ctx.shared(line_keys)
    locs = user_locs([a.instruction for a in found])  # each access' user line, or None
    lines = keys.keys(locs)  # and its JSON key
    widest, bulk = _widest(found)
    facts = MemoryFacts(
        max_global_load_bits=widest.get(("global", "load")),
        max_global_store_bits=widest.get(("global", "store")),
        max_shared_load_bits=widest.get(("shared", "load")),
        max_shared_store_bits=widest.get(("shared", "store")),
        bulk_global_loads=bulk.get(("global", "load"), 0),
        bulk_global_stores=bulk.get(("global", "store"), 0),
        accesses=_access_facts(kernel, table, found, locs),
        by_line=_by_line(found, lines),
    )
    narrow_hint, merge_hint = hints_for(ctx.program.artifacts.kind)
    annotations = [
        *_narrow_lines(found, lines, locs, narrow_hint, _proven_coalesced(ctx)),
        *_by_line_notes(_merge_candidates(kernel.instructions, found, merge_hint)),
    ]
    revise = width_notes_reviser(ctx.program.artifacts.kind)
    if revise is not None:  # the frontend's hint for what made these narrow (the CuTe DSL's)
        annotations = revise(annotations, found, locs)
    return Findings(facts=facts, annotations=tuple(annotations))


def _proven_coalesced(ctx: AnalysisContext) -> frozenset[int]:
    """Addresses of the global accesses the coalescing analysis proves coalesced, or whose few
    running lanes each need a sector anyway (`sparse_lanes`: a halo column): a narrow one of
    those costs instructions at most, not memory traffic, so it gets no note."""
    from sassview.analyses.coalescing import global_accesses, sparse_lanes

    return frozenset(
        m.fact["address"]
        for m in global_accesses(ctx)
        if m.fact["coalesced"] or (m.fact["sectors"] is not None and sparse_lanes(m.fact))
    )


def _widest(
    found: Iterable[MemoryAccess],
) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], int]]:
    """(space, direction) -> the widest access in bits; and -> how many bulk copies (TMA and
    cp.async.bulk move a tile: they have no width)."""
    out: dict[tuple[str, str], int] = {}
    bulk: dict[tuple[str, str], int] = {}
    for a in found:
        bits = a.bits
        if isinstance(bits, int):
            key = (a.space, a.direction)
            held = out.get(key)
            if held is None or bits > held:
                out[key] = bits
        elif bits == "bulk":
            key = (a.space, a.direction)
            bulk[key] = bulk.get(key, 0) + 1
    return out, bulk


def _access_facts(
    kernel: Kernel,
    table: Mapping[int, PtxInstruction],
    found: Iterable[MemoryAccess],
    locs: Iterable[SourceLoc | None],
) -> list[AccessWidth]:
    """One fact per access. A kernel has thousands of accesses but a handful of SASS and PTX
    instruction forms: each mnemonic text is made once, and shared by the facts."""
    to_ptx = kernel.correspondence.sass_ptx
    # (opcode, modifiers) -> mnemonic, for SASS and PTX forms alike: the text is the same
    # function of the two in both.
    names: dict[tuple[str, tuple[str, ...]], str] = {}
    out: list[AccessWidth] = []
    for acc, loc in zip(found, locs, strict=True):
        ins = acc.instruction
        form = (ins.opcode, ins.modifiers)
        mnemonic = names.get(form)
        if mnemonic is None:
            mnemonic = names[form] = ins.mnemonic
        line = to_ptx.get(ins.address)
        p = table.get(line) if line is not None else None
        ptx = None
        if p is not None:
            form = (p.opcode, p.modifiers)
            ptx = names.get(form)
            if ptx is None:
                ptx = names[form] = p.mnemonic
        out.append(
            {
                "address": ins.address,
                "opcode": mnemonic,
                "space": acc.space,
                "direction": acc.direction,
                "bits": acc.bits,
                "source_line": loc.line if loc is not None else None,
                "ptx": ptx,
            }
        )
    return out


_BUCKETS = {"load": "loads", "store": "stores", "atomic": "atomics"}


def _by_line(
    found: Sequence[MemoryAccess], lines: Sequence[str | None]
) -> dict[str, dict[str, dict[str, int]]]:
    """Source line -> {"loads"|"stores"|"atomics": {bits: count}}; constant loads left out."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    texts: dict[int | str, str] = {}  # bits -> "32": one string per width, not per access
    for acc, key in zip(found, lines, strict=True):
        if key is None or acc.space == "constant":
            continue
        entry = out.get(key)
        if entry is None:
            entry = out[key] = {"loads": {}, "stores": {}, "atomics": {}}
        bucket = entry[_BUCKETS[acc.direction]]
        bits = texts.get(acc.bits)
        if bits is None:
            bits = texts[acc.bits] = str(acc.bits)
        bucket[bits] = bucket.get(bits, 0) + 1
    return out


def _narrow_lines(
    found: Sequence[MemoryAccess],
    lines: Sequence[str | None],
    locs: Sequence[SourceLoc | None],
    hint: str = NARROW_HINT,
    coalesced: frozenset[int] = frozenset(),
) -> list[Annotation]:
    """One note per run of consecutive source lines whose global loads and stores are all
    narrower than 128 bits ("line 18: ...", "lines 12-13: ..."). A line whose accesses are
    all at `coalesced` (proven coalesced: they cost instructions, not memory traffic) is INFO,
    not a note: kept for what reads the kind (`sassview try`'s Triton divisibility trial),
    out of `check`'s findings; such lines make runs of their own.

    Unrolled code has a line per access: a generated kernel of 4096 such lines gets one note,
    not 4096 of the same text (its per-line figures stay in the `by_line` fact). So the work per
    line is kept to a list updated in place and a plain tuple to sort (no key function, no
    record per line)."""
    # Line key -> [its user line, widest bits, loads, addresses, all coalesced]; a key names
    # one (file, line).
    stats: dict[str, list[Any]] = {}
    for acc, key, loc in zip(found, lines, locs, strict=True):
        bits = acc.bits
        if key is None or acc.space != "global" or acc.direction == "atomic":
            continue
        if isinstance(bits, int):
            proven = acc.instruction.address in coalesced
            entry = stats.get(key)
            if entry is None:
                stats[key] = [loc, bits, acc.direction == "load", [acc.instruction.address], proven]
            else:
                if bits > entry[1]:
                    entry[1] = bits
                entry[2] += acc.direction == "load"
                entry[3].append(acc.instruction.address)
                entry[4] = entry[4] and proven
    order = sorted(
        [(e[0].file, e[0].line, e[4], key) for key, e in stats.items() if e[1] < NARROW_BELOW]
    )
    # Stretches of consecutive narrow lines, then each stretch's proven lines and the others
    # apart: a generated kernel whose every 8th line is proven coalesced gets one note and
    # one info, not a note per 7 lines between them (4096 notes on the 65k benchmark).
    stretches: list[list[tuple[bool, str]]] = []
    last: tuple[Any, int] = (None, 0)
    for file, line, proven, key in order:
        if file == last[0] and line == last[1] + 1:
            stretches[-1].append((proven, key))
        else:
            stretches.append([(proven, key)])
        last = (file, line)
    runs = [
        keys
        for stretch in stretches
        for kind in (False, True)
        if (keys := [key for proven, key in stretch if proven is kind])
    ]
    notes = [_narrow_note(run, stats, hint) for run in runs]
    notes.sort(key=lambda note: note.addresses[0])  # in code order, as before
    return notes


def _narrow_note(run: list[str], stats: Mapping[str, list[Any]], hint: str) -> Annotation:
    """The note of one run of lines (their keys), from their `_narrow_lines` figures."""
    first = run[0]
    widest = loads = accesses = 0
    addresses: list[int] = []
    for key in run:  # a loop per line: no comprehension, no max()
        _loc, bits, line_loads, line_addresses, _proven = stats[key]
        if bits > widest:
            widest = bits
        loads += line_loads
        accesses += len(line_addresses)
        addresses.extend(line_addresses)
    stores = accesses - loads
    proven = stats[first][4]
    numbers = [stats[key][0].line for key in (run[0], run[-1])]
    if len(run) == 1:
        where = f"line {first}"
    elif numbers[1] - numbers[0] + 1 == len(run):
        where = f"lines {first}-{numbers[1]}"
    else:  # a stretch the other kind's lines interleave with
        where = f"{len(run)} lines ({first}-{numbers[1]})"
    message = f"{where}: global accesses at most {widest} bits wide ({_counts(loads, stores)})"
    if proven:
        message += "; coalesced, so wider accesses would save instructions, not traffic"
    return Annotation(
        kind="narrow-access",
        severity=Severity.INFO if proven else Severity.NOTE,
        message=message,
        hint=hint,
        addresses=tuple(addresses),
        source=tuple([stats[key][0] for key in run]),
        data={
            "line": first,
            "lines": run,
            "max_bits": widest,
            "loads": loads,
            "stores": stores,
            "coalesced": proven,
        },
    )


@memoized(256)
def _counts(loads: int, stores: int) -> str:
    """The counts in a note ("2 loads, 1 store"): few distinct pairs, one text each."""
    pairs = ((loads, "load"), (stores, "store"))
    return ", ".join(f"{n} {what}{'s' if n != 1 else ''}" for n, what in pairs if n)


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


def _by_line_notes(candidates: list[Annotation]) -> list[Annotation]:
    """Merge candidates of one source line as one note: an unrolled line has one chain per
    copy, the same advice each time. `data` keeps the first chain's keys and every chain in
    `chains`."""
    groups: dict[tuple[str, int] | None, list[Annotation]] = {}
    for a in candidates:
        where = (a.source[0].file, a.source[0].line) if a.source else None
        groups.setdefault(where, []).append(a)
    out = []
    for where, members in groups.items():
        first = members[0]
        if len(members) == 1 or where is None:
            out.extend(members)
            continue
        rest = len(members) - 1
        out.append(
            Annotation(
                kind=first.kind,
                severity=first.severity,
                message=f"line {where[1]}: {first.message} (and {rest} more such "
                f"run{'s' if rest != 1 else ''} on this line)",
                hint=first.hint,
                addresses=tuple(a for m in members for a in m.addresses),
                source=first.source,
                data={**first.data, "line": where[1], "chains": [dict(m.data) for m in members]},
            )
        )
    out.sort(key=lambda a: a.addresses[0])
    return out


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
