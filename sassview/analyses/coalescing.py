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
  - The lanes that run an access are those a lane-exact guard leaves on (`if (threadIdx.x <
    16)`: 16 lanes, whose minimum is then 2 sectors); a bounds check against a run-time value
    (`if (i < n)`) is taken to leave every lane on, as it does in every block but the last.
  - A wrapped index (`(threadIdx.x + r) % 256`) is counted for every residue of r the
    alignment assumption below leaves; where the counts differ, the access is unknown.
  - The symbolic part of an address (pointer arguments, block and loop offsets) is taken to be
    a multiple of 32 bytes (cudaMalloc returns 256-byte aligned memory) where the address
    arithmetic does not prove it; each access says so in `assumption`. Known constant offsets
    (a[i + 1]) are counted: that one spans 5 sectors.
  - L1/L2 hit rates, and whether two accesses of one line share sectors, are not modelled: a
    sector count is per instruction, as Nsight Compute's sectors per request.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from typing import Any, NamedTuple

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import MemoryAccess, kernel_accesses, user_locs
from sassview.analyses.param_names import named, program_param_names
from sassview.analyses.records import CoalescingFacts, GlobalAccess
from sassview.analyses.warp import (
    block_shape,
    index_of,
    lanes_in,
    loop_addresses,
    pattern_text,
    shared_box,
    stride_of,
    warp_model,
)
from sassview.analyses.width_hints import hints_for
from sassview.graph.lanes import LaneValue, Unknown, Value, instances
from sassview.ir import OperandKind, SassInstruction, SourceLoc

SECTOR = 32
ALIGNMENT_ASSUMPTION = (
    "the symbolic part of the address (pointer arguments, block and loop offsets) is taken "
    "as a multiple of 32 bytes"
)


_GLOBAL = frozenset({"LDG", "STG", "ATOMG", "REDG", "LDGSTS", "LD", "ST", "ATOM", "RED"})

_CUDA_HINT = (
    "make threadIdx.x index the contiguous (last) dimension: swap the roles of threadIdx.x "
    "and threadIdx.y or transpose the index; when reads and writes walk different dimensions "
    "(a transpose), stage the tile through shared memory (padded, [32][33])"
)
_MISALIGNED_HINT = (
    "the access starts past a 32-byte boundary: align the base (an offset that is a multiple "
    "of 8 floats, or padding at the row's start)"
)
# Lanes a few elements apart, each reading one: a field of an array of structures, or a
# thread mapping with a small stride. Swapping thread roles is not the fix there.
_STRIDED_HINT = (
    "consecutive lanes use {bits} bytes of every {stride}: a field of an array of structures, "
    "or a small stride between threads; keep each field in its own array (a structure of "
    "arrays), or let each thread move whole elements (one wider access) and use them all"
)


class Measured(NamedTuple):
    """One global access, its fact, and the lane addresses it rests on (base + offset)."""

    access: MemoryAccess
    fact: GlobalAccess
    base: LaneValue | Unknown
    offset: int
    loc: SourceLoc | None  # the user's line (outermost frame)
    picks: tuple[int, ...]  # the lanes that run it

    @property
    def value(self) -> LaneValue | Unknown:
        base, offset = self.base, self.offset
        if isinstance(base, Unknown) or not offset:
            return base
        return base._replace(lanes=tuple(map(offset.__add__, base.lanes)))


def hint_for(kind: str) -> str:
    """The fix for an uncoalesced access, in the terms of the kernel's language."""
    from sassview.frontends.registry import words

    return words(kind).coalesce or _CUDA_HINT


def global_accesses(ctx: AnalysisContext) -> list[Measured]:
    """Every global access with its sector count, computed once per inspection."""
    box = shared_box(ctx)
    found = box.get("global")
    if found is None:
        found = box["global"] = _measure(ctx)
    return found


def _measure(ctx: AnalysisContext) -> list[Measured]:
    picked = [
        a
        for a in ctx.shared(kernel_accesses)
        if a.space == "global" and a.instruction.opcode in _GLOBAL and isinstance(a.bits, int)
    ]
    if not picked:
        return []
    model = warp_model(ctx)
    index = index_of(ctx)
    in_loop = loop_addresses(ctx)
    # The fact of an access, less its address, line and loop, by what decides the rest: its
    # form (opcode, modifiers, width, active lanes) and its lanes (the base value, the offset
    # within a sector). Unrolled code has thousands of accesses of one base at different
    # offsets and a handful of forms: each of those takes a copy of its template. Keyed by
    # the base's id: the model keeps every value it returned alive, and hashing 32 lanes per
    # access would cost more than the rest of the key. Measured on the 65k benchmark (32k
    # accesses, benchmarks/bench_coalescing.py, CPU): the templates 0.150 -> 0.141 s for the
    # measure (the model's part included).
    templates: dict[tuple[Any, ...], tuple[GlobalAccess, tuple[int, ...]]] = {}
    forms: dict[tuple[Any, ...], tuple[str, int, int, tuple[int, ...]]] = {}
    access, active = model.access, model.active
    names = program_param_names(ctx.program, ctx.kernel)
    new = tuple.__new__  # a Measured without its generated __new__'s Python frame
    out: list[Measured] = []
    append = out.append
    for acc, loc in zip(picked, user_locs([a.instruction for a in picked]), strict=True):
        ins = acc.instruction
        operand = acc.operand
        if ins.opcode == "LDGSTS":  # [shared], [global]: the global source is the last one
            operand = [op for op in ins.operands if op.kind is OperandKind.MEMORY][-1]
        at = index[ins.address]
        if operand is not None:
            mask, base, offset = access(at, operand)
        else:
            mask, base, offset = active(at), Unknown("no address operand"), 0
        key = (ins.opcode, ins.modifiers, acc.bits, mask, acc.direction, id(base), offset % SECTOR)
        held = templates.get(key)
        # A run-time stride's fact reads the offset whole: made for each access.
        if held is None or not isinstance(base, Unknown) and base.scaled:
            form = forms.get(key[:4])
            if form is None:
                form = forms[key[:4]] = _form(ins, acc.bits, mask)
            held = templates[key] = (_fact(acc.direction, form, base, offset, names), form[3])
        fact = held[0].copy()
        fact["address"] = ins.address
        fact["source_line"] = loc.line if loc is not None else None
        fact["in_loop"] = ins.address in in_loop
        append(new(Measured, (acc, fact, base, offset, loc, held[1])))
    return out


def _fact(
    direction: str,
    form: tuple[str, int, int, tuple[int, ...]],
    base: Value,
    offset: int,
    names: dict[str, str],
) -> GlobalAccess:
    """The fact of an access of this form at base + offset, its address, line and loop left
    for the caller to fill in."""
    mnemonic, nbytes, least, picks = form
    fact: GlobalAccess = {
        "address": 0,
        "opcode": mnemonic,
        "direction": direction,
        "bits": nbytes * 8,
        "source_line": None,
        "in_loop": False,
        "active_lanes": len(picks),
        "sectors": None,
        "min_sectors": least,
        "stride": None,
        "pattern": None,
        "coalesced": None,
        "assumption": None,
        "unknown": None,
    }
    if isinstance(base, Unknown):
        fact["unknown"] = named(base.reason, names)
    elif not picks:
        fact["unknown"] = (
            "no lane of the warp runs it (a guard on the lane index or the block's shape)"
        )
    elif base.scaled:
        if base.wrap is not None:
            fact["unknown"] = named(f"a run-time stride and a wrap ({base.wrap.residue})", names)
        else:
            _run_time(fact, base, offset, nbytes, picks, names)
    else:
        count, fact["stride"], fact["pattern"], fact["assumption"] = _shape(
            base, offset % SECTOR, nbytes, picks
        )
        if isinstance(count, str):
            fact["unknown"] = count
        else:
            fact["sectors"] = count
            fact["coalesced"] = count <= least
    return fact


def _form(
    ins: SassInstruction, bits: int | str, mask: int
) -> tuple[str, int, int, tuple[int, ...]]:
    """(mnemonic, bytes per lane, fewest sectors, lanes that run it) of an access's form."""
    nbytes = max(1, bits // 8) if isinstance(bits, int) else 1
    picks = lanes_in(mask)
    return ins.mnemonic, nbytes, max(1, -(-len(picks) * nbytes // SECTOR)), picks


def _run_time(
    fact: GlobalAccess,
    base: LaneValue,
    offset: int,
    nbytes: int,
    picks: tuple[int, ...],
    names: dict[str, str],
) -> None:
    """An address with one run-time stride (A[x*K + k], K a kernel parameter): lanes at
    different multiples of it are taken to lie in different sectors, which holds once the
    stride is large enough; the count and that condition go in the fact, the parameter by
    its name where known (`names`)."""
    if len(base.scaled) != 1:
        several = ", ".join(named(s, names) for s, _ in base.scaled)
        fact["unknown"] = f"the lanes stride by several run-time values ({several})"
        return
    symbol, multiplier = base.scaled[0]
    name = named(symbol, names)
    groups = _by_multiple(base, offset, picks)
    count = sum(sectors(lanes, nbytes) for lanes in groups.values())
    distinct = sorted(groups)
    if len(distinct) == 1:  # the lanes that run share one multiple: it cancels
        lanes = groups[distinct[0]]
        one = fact["sectors"] = sectors(lanes, nbytes)
        fact["coalesced"] = one <= fact["min_sectors"]
        fact["stride"] = stride_of(lanes)
        fact["pattern"] = pattern_text(lanes, fact["stride"])
        return
    step = min(b - a for a, b in zip(distinct, distinct[1:], strict=False))
    spread = max(max(g) - min(g) for g in groups.values()) + nbytes
    at_least = -(-(spread + SECTOR) // step)
    fact["sectors"] = count
    fact["coalesced"] = count <= fact["min_sectors"]
    concrete = stride_of([base.lanes[lane] for lane in picks])
    mult = stride_of([multiplier[lane] for lane in picks])
    if mult is not None and concrete == 0:
        fact["pattern"] = f"lane stride {mult}*{name} bytes, a run-time value"
    else:
        groups_n = len(distinct)
        fact["pattern"] = (
            f"{groups_n} groups of lanes, multiples of {name} bytes apart, a run-time value"
        )
    fact["assumption"] = (
        f"{name} (known at run time) is taken as at least {at_least}: lanes at different "
        f"multiples of it fall in different sectors"
    )


def _by_multiple(base: LaneValue, offset: int, picks: tuple[int, ...]) -> dict[int, list[int]]:
    """The lanes' concrete addresses, by their multiple of the (one) run-time stride."""
    groups: dict[int, list[int]] = {}
    multiplier, lanes = base.scaled[0][1], base.lanes
    for lane in picks:
        groups.setdefault(multiplier[lane], []).append(lanes[lane] + offset)
    return groups


def warp_sectors(value: LaneValue, nbytes: int, mask: int = (1 << 32) - 1) -> int | str | None:
    """Sectors of one warp-wide access at `value` by the lanes in `mask` (None: several
    run-time strides), lanes at different multiples of a run-time stride taken to lie apart,
    as the facts count them; a wrapped value: the count for every residue, or why not."""
    picks = lanes_in(mask)
    if not value.scaled:
        count = _shape(value, 0, nbytes, picks)[0]
        return count
    if len(value.scaled) != 1 or value.wrap is not None:
        return None
    return sum(sectors(g, nbytes) for g in _by_multiple(value, 0, picks).values())


def _shape(
    base: LaneValue, offset: int, nbytes: int, picks: tuple[int, ...]
) -> tuple[int | str, int | None, str, str | None]:
    """(sectors, lane stride, pattern, alignment assumption) of `base` + `offset` in the
    lanes `picks`; for a wrapped value whose count depends on the residue, the sectors are
    the reason (a str)."""
    assumption = None
    if base.terms and base.alignment_bits < 5 and not base.uniform:
        assumption = ALIGNMENT_ASSUMPTION
    if base.wrap is not None:
        return _wrapped(base, offset, nbytes, picks)
    lanes = [base.lanes[lane] + offset for lane in picks]
    stride = stride_of(lanes)
    return sectors(lanes, nbytes), stride, pattern_text(lanes, stride), assumption


def _wrapped(
    base: LaneValue, offset: int, nbytes: int, picks: tuple[int, ...]
) -> tuple[int | str, int | None, str, str | None]:
    """A wrapped index counted for every residue the alignment assumption leaves (r a
    multiple of 8 floats in `(threadIdx.x + r) % 256`): one count when they agree."""
    wrap = base.wrap
    assert wrap is not None
    every = instances(base, SECTOR)
    ring = f"wrapping every {abs(wrap.modulus * wrap.coefficient)} bytes ({wrap.residue})"
    if every is None:
        return f"too many positions of the ring to count ({wrap.residue})", None, ring, None
    counts = set()
    for lanes in every:
        counts.add(sectors([lanes[lane] + offset for lane in picks], nbytes))
    first = [base.lanes[lane] + offset for lane in picks]
    stride = stride_of(first)
    pattern = f"{pattern_text(first, stride)}, {ring}"
    if len(counts) > 1:
        why = f"the sectors depend on {wrap.residue}: {min(counts)} to {max(counts)}"
        return why, None, pattern, None
    count = counts.pop()
    step = math.lcm(wrap.step, SECTOR // math.gcd(abs(wrap.coefficient), SECTOR))
    assumption = (
        f"{wrap.residue} is counted at every multiple of {step} (the address's run-time part "
        f"taken as a multiple of 32 bytes): {len(every)} positions, {count} sectors at each"
    )
    return count, stride, pattern, assumption


def sectors(lanes: tuple[int, ...] | list[int], nbytes: int) -> int:
    """Distinct 32-byte sectors the lanes' accesses of `nbytes` each touch."""
    if nbytes <= SECTOR:  # a lane's bytes lie in one sector or two: its first and its last
        width = _SECTORS[: len(lanes)]
        first = set(map(operator.floordiv, lanes, width))
        ends = map(operator.add, lanes, _LAST[nbytes][: len(lanes)])
        return len(first.union(map(operator.floordiv, ends, width)))
    seen: set[int] = set()
    for a in lanes:
        seen.update(range(a // SECTOR, (a + nbytes - 1) // SECTOR + 1))
    return len(seen)


_LINE = operator.attrgetter("line")
_SECTORS = (SECTOR,) * 32
_LAST = {n: (n - 1,) * 32 for n in range(1, SECTOR + 1)}


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
    from sassview.analyses.merge_runs import owned_addresses

    owned = owned_addresses(ctx)
    found = _findings(measured, hint_for(kind), _vector_hint(kind), owned)
    return Findings(facts=summary, annotations=tuple(found))


def _vector_hint(kind: str) -> str:
    return hints_for(kind)[1]


def _together(members: list[Measured]) -> int | None:
    """Sectors the accesses of one line touch together, when they share one symbolic base and
    their bytes form one contiguous range (each thread's elements are contiguous and the
    threads' accesses interleave: one vector access per thread would be one request); else
    None."""
    if len(members) < 2:
        return None
    values = [v for v in (m.value for m in members) if isinstance(v, LaneValue)]
    if len(values) < 2 or len(values) != len(members):
        return None
    if any(v.scaled or v.wrap for v in values) or len({m.picks for m in members}) != 1:
        return None
    if len({v.terms for v in values}) != 1:
        return None
    spans = sorted(
        (a, a + m.fact["bits"] // 8)
        for m, v in zip(members, values, strict=True)
        for a in (v.lanes[lane] for lane in m.picks)
    )
    if any(prev[1] != nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False)):
        return None
    return (spans[-1][1] - 1) // SECTOR - spans[0][0] // SECTOR + 1


class _Line(NamedTuple):
    """The uncoalesced accesses of one (source line, direction), before lines are grouped."""

    loc: SourceLoc | None
    direction: str
    worst: GlobalAccess
    looped: bool
    together: int | None  # sectors the line's accesses touch together, when interleaved
    accesses: int  # of the line, in that direction
    addresses: tuple[int, ...]  # the uncoalesced ones


def _findings(
    measured: list[Measured], hint: str, vector_hint: str, owned: frozenset[int] = frozenset()
) -> list[Annotation]:
    """`uncoalesced` findings: one per (source line, direction), for its worst access; lines
    whose findings would read alike (generated or unrolled code: thousands of lines of one
    pattern) are one finding listing them. A line whose accesses interleave (one wider access
    would do) and are all in merge-candidate runs (`owned`) is the runs' to report: one cause,
    one finding (the run's note says the sectors)."""

    # The lines with an uncoalesced access first, then every access of the lines that have
    # more than one: a kernel of 32k coalesced accesses builds no per-line table at all, and
    # one of 32k lines of one access each (generated code) none but `bad`. Measured on the
    # 65k benchmark (28k uncoalesced lines, benchmarks/bench_coalescing.py, CPU): keys made
    # once, counted by Counter, a line of one access taken on a short path: 0.077 -> 0.055 s
    # for the analysis after its measure.
    bad_at = [n for n, m in enumerate(measured) if m.fact["coalesced"] is False]
    if not bad_at:
        return []
    keys = [
        ((loc.file, loc.line) if (loc := m.loc) is not None else None, m.fact["direction"])
        for m in measured
    ]
    bad: dict[tuple[Any, str], list[Measured]] = {}
    for n in bad_at:
        bad.setdefault(keys[n], []).append(measured[n])
    counts = Counter(keys)
    several = {key for key in bad if counts[key] > 1}
    every: dict[tuple[Any, str], list[Measured]] = {}
    if several:
        for key, m in zip(keys, measured, strict=True):
            if key in several:
                every.setdefault(key, []).append(m)
    alike: dict[tuple[Any, ...], list[_Line]] = {}
    new = tuple.__new__  # a _Line without its generated __new__'s Python frame
    for key, members in bad.items():
        if key not in several:  # a line of one access (generated code: thousands of them)
            m = members[0]
            f = m.fact
            file = m.loc.file if m.loc is not None else None
            looped = f["in_loop"]
            entry = new(_Line, (m.loc, key[1], f, looped, None, 1, (f["address"],)))
            # The `same` key below, of a line of one access: no interleaving, one access.
            reads = (file, key[1], f["sectors"], f["min_sectors"], f["pattern"], looped)
            alike.setdefault((*reads, None, 1, 1), []).append(entry)
            continue
        line = every[key]
        if len(members) == 1:
            worst_m = members[0]
            looped = worst_m.fact["in_loop"]
            addresses: tuple[int, ...] = (worst_m.fact["address"],)
        else:
            worst_m = max(members, key=lambda m: (m.fact["sectors"] or 0) / m.fact["min_sectors"])
            looped = any(m.fact["in_loop"] for m in members)
            addresses = tuple(m.fact["address"] for m in members)
        together = _together(line)
        if together is not None and owned.issuperset(addresses):
            continue
        entry = _Line(worst_m.loc, key[1], worst_m.fact, looped, together, len(line), addresses)
        w = entry.worst
        same = (
            *(entry.loc.file if entry.loc else None, key[1], w["sectors"], w["min_sectors"]),
            *(w["pattern"], entry.looped, entry.together, entry.accesses, len(members)),
        )
        alike.setdefault(same, []).append(entry)
    out = [_annotation(lines, hint, vector_hint) for lines in alike.values()]
    out.sort(key=lambda a: a.addresses[0])
    return out


def sparse_lanes(fact: GlobalAccess) -> bool:
    """A few running lanes, each in its own sector, whose bytes together would fit one (a
    halo column read by one lane per row): more sectors than the minimum, but no access
    pattern of those lanes would need fewer than one sector each."""
    active = fact["active_lanes"]
    return fact["min_sectors"] == 1 and 1 < active <= 8 and fact["sectors"] == active


def _small_stride(fact: GlobalAccess) -> bool:
    stride = fact["stride"]
    return stride is not None and fact["bits"] // 8 < stride <= 64


def _annotation(lines: list[_Line], hint: str, vector_hint: str) -> Annotation:
    first = lines[0]
    worst, direction = first.worst, first.direction
    numbers = sorted(e.loc.line for e in lines if e.loc is not None)
    if len(lines) == 1:
        where = f"line {numbers[0]}" if numbers else f"/*{worst['address']:04x}*/"
    else:
        where = f"{len(lines)} lines ({numbers[0]}-{numbers[-1]})"
    count = len(first.addresses)
    message = (
        f"{where}: global {direction} touches {worst['sectors']} sectors per warp where "
        f"{worst['min_sectors']} would do ({worst['pattern']}"
        + (f"; {count} accesses" + (" a line" if len(lines) > 1 else "") if count > 1 else "")
        + (", in a loop)" if first.looped else ")")
    )
    fix = hint
    if first.together is not None:
        message += (
            f"; the line's {first.accesses} accesses interleave and touch {first.together} "
            "sectors together: one wider access per thread would do it in one request"
        )
        fix = vector_hint
    elif worst["stride"] is not None and worst["stride"] == worst["bits"] // 8:
        fix = _MISALIGNED_HINT
    elif hint == _CUDA_HINT and _small_stride(worst):
        fix = _STRIDED_HINT.format(bits=worst["bits"] // 8, stride=worst["stride"])
    sparse = all(sparse_lanes(e.worst) for e in lines)
    if sparse:
        message += (
            f"; its {worst['active_lanes']} running lanes each need a sector of their own, "
            "which a wider or regrouped access would not change"
        )
    # Interleaved accesses mostly hit in L1: requests, not DRAM traffic, are lost; a few lanes
    # far apart (a halo column, one lane per row) lose a few sectors: worth knowing, no more.
    severity = Severity.WARNING if first.looped and first.together is None else Severity.NOTE
    return Annotation(
        kind="uncoalesced",
        severity=Severity.INFO if sparse else severity,
        message=message,
        hint=fix,
        addresses=tuple(sorted(a for e in lines for a in e.addresses)),
        source=tuple(sorted((e.loc for e in lines if e.loc is not None), key=_LINE)),
        data={
            "line": numbers[0] if numbers else None,
            "lines": numbers,
            "direction": direction,
            "sectors": worst["sectors"],
            "min_sectors": worst["min_sectors"],
            "stride": worst["stride"],
            "accesses": count,
            "interleaved_sectors": first.together,
        },
    )
