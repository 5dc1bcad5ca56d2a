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

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import (
    MemoryAccess,
    kernel_accesses,
    line_keys,
    ptx_lines,
    user_locs,
)
from sassview.analyses.merge_runs import NARROW_BELOW, merge_runs, owned_addresses, owns
from sassview.analyses.records_memory import AccessWidth, MemoryFacts
from sassview.analyses.width_hints import NARROW_HINT, hints_for
from sassview.ir import Kernel, PtxInstruction, SourceLoc
from sassview.memo import memoized


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
    merges = [_with_sectors(ctx, a) for a in merge_runs(ctx)]
    # One finding per cause: an access in a merge-candidate run is the run's to report; the
    # narrow-access note keeps the narrow accesses no run covers.
    owned = owned_addresses(ctx)
    unmerged = [(acc, line, loc) for acc, line, loc in zip(found, lines, locs, strict=True)
                if acc.address not in owned]  # fmt: skip
    annotations = [
        *_narrow_lines(
            [u[0] for u in unmerged],
            [u[1] for u in unmerged],
            [u[2] for u in unmerged],
            narrow_hint,
            _proven_coalesced(ctx),
        ),
        *_by_line_notes([dataclasses.replace(m, hint=merge_hint) for m in merges]),
    ]
    revise = width_notes_reviser(ctx.program.artifacts.kind)
    if revise is not None:  # the frontend's hint for what made these narrow (the CuTe DSL's)
        annotations = revise(annotations, found, locs)
    return Findings(facts=facts, annotations=tuple(annotations))


def _with_sectors(ctx: AnalysisContext, run: Annotation) -> Annotation:
    """A global run's note with what its accesses cost as they are, which the coalescing
    analysis then leaves to it: "each touches 16 sectors per warp where 4 would do"."""
    from sassview.analyses.coalescing import global_accesses

    if not owns(run):
        return run
    owned = set(run.addresses)
    facts = [m.fact for m in global_accesses(ctx) if m.fact["address"] in owned]
    counts = {(f["sectors"], f["min_sectors"]) for f in facts}
    if len(facts) != len(owned) or len(counts) != 1:
        return run
    ((sectors, least),) = counts
    if sectors is None or sectors <= least:
        return run
    message = f"{run.message}; each touches {sectors} sectors per warp where {least} would do"
    data = {**run.data, "sectors": sectors, "min_sectors": least}
    return dataclasses.replace(run, message=message, data=data)


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
