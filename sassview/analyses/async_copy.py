"""Asynchronous copies and the synchronisation around them: cp.async, TMA, bulk copies, mbarriers,
block / named / cluster barriers, warp syncs, ldmatrix / stmatrix.

What the SASS looks like (nvdisasm 13.5, checked on sm_80, sm_90a, sm_100a, sm_120):
  - cp.async (sm_80+): LDGSTS.E[.BYPASS][.64|.128] (.BYPASS = .cg); commit_group is LDGDEPBAR;
    wait_group n is `DEPBAR.LE SB0, n`; wait_all is LDGDEPBAR + `DEPBAR.LE SB0, 0x0`;
    cp.async.mbarrier.arrive is ARRIVES.LDGSTSBAR.64[.ARVCNT];
  - TMA (sm_90+, sm_120 too): UTMALDG.2D / UTMASTG.2D / UTMAREDG, prefetch UTMAPF.L2.2D;
  - bulk copies (sm_90+): UBLKCP.S.G (global -> shared), UBLKCP.G.S (shared -> global),
    UBLKRED.G.S.ADD.F32.RN, UBLKPF.L2; cp.async.bulk.commit_group is UTMACMDFLUSH and
    cp.async.bulk.wait_group is `DEPBAR.LE SB0, n` again;
  - mbarriers (sm_90+ in hardware): init SYNCS.EXCH.64; arrive SYNCS.ARRIVE.TRANS64.A1T0 (plain),
    SYNCS.ARRIVE.TRANS64 (arrive.expect_tx), .ART0 (noComplete), .OPTOUT.A1T0 (arrive_drop),
    .RED.A0TR (expect_tx), .RED.A0TX (complete_tx), .RED.A1T0 (remote, shared::cluster);
    try_wait SYNCS.PHASECHK.TRANS64.TRYWAIT (and a plain SYNCS.PHASECHK.TRANS64 that retries it,
    counted as try_wait_retry), test_wait SYNCS.PHASECHK.TRANS64, inval SYNCS.CCTL.IV. On sm_80
    mbarriers are software: STS.64 (init), ATOMS.ARRIVE.64, LDS (wait);
  - barriers: BAR.SYNC.DEFER_BLOCKING id[, threads] (sm_80 prints `barrier.sync 3` as BAR.SYNC 0x3),
    BAR.ARV id, threads; BAR.RED.POPC.DEFER_BLOCKING (__syncthreads_count); cluster barriers
    UCGABAR_ARV / UCGABAR_WAIT; WARPSYNC (only when the mask is not all lanes, or on sm_120
    before BAR), NANOSLEEP; LDSM.16.M88.4 / STSM.16.MT88.2 (ldmatrix / stmatrix).

How it can be wrong:
  - `DEPBAR.LE SB0, n` serves cp.async waits, bulk waits and other scoreboard waits alike; the PTX
    it came from decides where the cubin maps it, otherwise the kind of copies in the kernel does.
  - A barrier id held in a register (`BAR.SYNC R3`) is reported as id None.
  - __syncwarp() with a full mask usually leaves no instruction, so warp syncs are undercounted.
  - Counts are static instruction counts, not how often each runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import (
    access_bits,
    distinct_locs,
    never_executes,
    ptx_for,
    ptx_lines,
    ptx_opcodes,
)
from sassview.analyses.records_memory import (
    AsyncCopyFacts,
    Barrier,
    MbarrierKind,
    MbarrierOps,
    ScoreboardWait,
)
from sassview.ir import OperandKind, SassInstruction

_TMA = {"UTMALDG": "loads", "UTMASTG": "stores", "UTMAREDG": "reductions", "UTMAPF": "prefetches"}
_BAR_KIND = {"SYNC": "sync", "ARV": "arrive", "RED": "reduce", "SYNCALL": "sync"}
# Every opcode `run` looks at (the branches of its loop, and _mbarrier_kind's SYNCS / ATOMS).
_WATCHED = frozenset(
    {"LDGSTS", "LDGDEPBAR", "DEPBAR", *_TMA, "UBLKCP", "UBLKRED", "UBLKPF", "UTMACMDFLUSH",
     "BAR", "UCGABAR_ARV", "UCGABAR_WAIT", "WARPSYNC", "NANOSLEEP", "LDSM", "STSM", "ARRIVES",
     "SYNCS", "ATOMS"}
)  # fmt: skip


_BULK = {"UBLKRED": "reductions", "UBLKPF": "prefetches", "UTMACMDFLUSH": "commits"}
_COUNTED = {"WARPSYNC": "warp_syncs", "NANOSLEEP": "nanosleeps", "LDSM": "ldmatrix",
            "STSM": "stmatrix", "ARRIVES": "cp_async_arrives"}  # fmt: skip
_BARRIERS = frozenset({"BAR", "UCGABAR_ARV", "UCGABAR_WAIT"})


@dataclass
class _Seen:
    """The watched instructions of one kernel, sorted into the buckets the facts count."""

    cp: list[SassInstruction] = field(default_factory=list)
    commits: list[SassInstruction] = field(default_factory=list)
    depbars: list[SassInstruction] = field(default_factory=list)
    tma: dict[str, list[SassInstruction]] = field(
        default_factory=lambda: {v: [] for v in _TMA.values()}
    )
    bulk: dict[str, list[SassInstruction]] = field(
        default_factory=lambda: {
            "copies_in": [],
            "copies_out": [],
            "reductions": [],
            "prefetches": [],
            "commits": [],
        }  # fmt: skip
    )
    mbar: dict[MbarrierKind, int] = field(default_factory=dict)
    mbar_mnemonics: dict[str, int] = field(default_factory=dict)
    mbar_addrs: list[int] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    bar_ins: list[SassInstruction] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_COUNTED.values(), 0))


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    table = ctx.shared(ptx_lines)
    seen = _Seen()
    for ins in kernel.instructions:
        if ins.opcode not in _WATCHED or never_executes(ins):
            continue  # most of a kernel: skipped with one set lookup
        _sort(seen, ins, kernel, table)
        _count_mbarrier(seen, ins, kernel, table)
    facts = _facts(seen, kernel, table, ctx.shared(ptx_opcodes))
    return Findings(facts=facts, annotations=tuple(_notes(seen, facts, kernel)))


def _sort(seen: _Seen, ins: SassInstruction, kernel: Any, table: Any) -> None:
    """Put one watched instruction into its bucket (mbarrier operations are counted apart)."""
    op = ins.opcode
    if op == "LDGSTS":
        seen.cp.append(ins)
    elif op == "LDGDEPBAR":
        # cp.async.wait_all is LDGDEPBAR + DEPBAR: that LDGDEPBAR is no group of the user's.
        ptx = ptx_for(kernel, table, ins.address)
        if ptx is None or not ptx.mnemonic.startswith("cp.async.wait_all"):
            seen.commits.append(ins)
    elif op == "DEPBAR":
        seen.depbars.append(ins)
    elif op in _TMA:
        seen.tma[_TMA[op]].append(ins)
    elif op == "UBLKCP":
        seen.bulk["copies_out" if ins.modifiers[:1] == ("G",) else "copies_in"].append(ins)
    elif op in _BULK:
        seen.bulk[_BULK[op]].append(ins)
    elif op in _BARRIERS:
        seen.barriers.append(_barrier(ins))
        seen.bar_ins.append(ins)
    elif op in _COUNTED:
        seen.counts[_COUNTED[op]] += 1
        if op == "ARRIVES":
            seen.mbar_addrs.append(ins.address)


def _count_mbarrier(seen: _Seen, ins: SassInstruction, kernel: Any, table: Any) -> None:
    kind = _mbarrier_kind(ins)
    if kind == "test_wait" and _retries_try_wait(kernel, table, ins):
        kind = "try_wait_retry"
    if kind is not None:
        seen.mbar[kind] = seen.mbar.get(kind, 0) + 1
        seen.mbar_mnemonics[ins.mnemonic] = seen.mbar_mnemonics.get(ins.mnemonic, 0) + 1
        seen.mbar_addrs.append(ins.address)


def _facts(seen: _Seen, kernel: Any, table: Any, ptx_present: Mapping[str, int]) -> AsyncCopyFacts:
    tma, bulk, counts = seen.tma, seen.bulk, seen.counts
    has_bulk = any(bulk[k] for k in ("copies_out", "reductions")) or any(
        tma[k] for k in ("stores", "reductions")
    )
    waits = [_wait(ins, kernel, table, bool(seen.cp), has_bulk) for ins in seen.depbars]
    cp_bits: dict[str, int] = {}
    for ins in seen.cp:
        key = str(access_bits(ins))
        cp_bits[key] = cp_bits.get(key, 0) + 1
    return AsyncCopyFacts(
        cp_async=len(seen.cp),
        cp_async_bits=cp_bits,
        cp_async_groups=len(seen.commits),
        cp_async_waits=[w for w in waits if w["kind"] == "cp.async"],
        cp_async_arrives=counts["cp_async_arrives"],
        tma={k: len(v) for k, v in tma.items()},
        bulk_copies=len(bulk["copies_in"]) + len(bulk["copies_out"]),
        bulk={k: len(v) for k, v in bulk.items()},
        bulk_waits=[w for w in waits if w["kind"] == "bulk"],
        other_waits=[w for w in waits if w["kind"] == "other"],
        mbarrier_ops=_mbarrier_ops(seen.mbar, seen.mbar_mnemonics),
        ptx_mbarrier_ops=_ptx_mbarrier_ops(kernel, ptx_present),
        barriers=seen.barriers,
        warp_syncs=counts["warp_syncs"],
        nanosleeps=counts["nanosleeps"],
        ldmatrix=counts["ldmatrix"],
        stmatrix=counts["stmatrix"],
    )


def _notes(seen: _Seen, facts: AsyncCopyFacts, kernel: Any) -> list[Annotation]:
    notes = [
        note
        for note in (
            _cp_async_note(seen, facts, kernel),
            _bucket_note(kernel, seen.tma, "TMA", with_mnemonics=True),
            _bucket_note(kernel, seen.bulk, "bulk copies", with_mnemonics=False),
        )
        if note is not None
    ]
    if seen.mbar:
        summary = ", ".join(f"{n} {k}" for k, n in seen.mbar.items())
        notes.append(
            _note(kernel, seen.mbar_addrs, f"mbarrier: {summary}", dict(seen.mbar.items()))
        )
    notes.extend(_barrier_notes(kernel, seen.barriers, seen.bar_ins))
    return notes


def _cp_async_note(seen: _Seen, facts: AsyncCopyFacts, kernel: Any) -> Annotation | None:
    cp, commits = seen.cp, seen.commits
    if not cp:
        return None
    widths = sorted(facts.cp_async_bits.items(), key=lambda x: -int(x[0]))
    bits = ", ".join(f"{n}x{b}-bit" for b, n in widths)
    pending = [w["pending"] for w in facts.cp_async_waits]
    wait_text = f"waits for <= {pending} pending groups" if pending else "no wait_group found"
    addrs = [i.address for i in cp + commits] + [w["address"] for w in facts.cp_async_waits]
    return _note(
        kernel,
        addrs,
        f"cp.async: {len(cp)} LDGSTS ({bits}), {len(commits)} commits (LDGDEPBAR), " + wait_text,
        {"cp_async": len(cp), "groups": len(commits)},
    )


def _bucket_note(
    kernel: Any, buckets: dict[str, list[SassInstruction]], title: str, *, with_mnemonics: bool
) -> Annotation | None:
    """The TMA or the bulk-copy note: how many of each kind, at every one's address."""
    every = [i for v in buckets.values() for i in v]
    if not every:
        return None
    if with_mnemonics:
        summary = ", ".join(f"{len(v)} {k}" for k, v in buckets.items() if v)
        names = sorted({i.mnemonic for i in every})
        message = f"{title}: {summary} ({', '.join(names)})"
    else:
        summary = ", ".join(f"{len(v)} {k.replace('_', ' ')}" for k, v in buckets.items() if v)
        message = f"{title}: {summary}"
    return _note(
        kernel, [i.address for i in every], message, {k: len(v) for k, v in buckets.items()}
    )


def _imm(ins: SassInstruction, index: int) -> int | None:
    if index < len(ins.operands):
        op = ins.operands[index]
        if op.kind is OperandKind.IMMEDIATE and isinstance(op.value, int):
            return op.value
    return None


def _barrier(ins: SassInstruction) -> Barrier:
    if ins.opcode == "UCGABAR_ARV":
        return {"address": ins.address, "id": None, "kind": "cluster-arrive", "threads": None}
    if ins.opcode == "UCGABAR_WAIT":
        return {"address": ins.address, "id": None, "kind": "cluster-wait", "threads": None}
    kind = _BAR_KIND.get(ins.modifiers[0] if ins.modifiers else "", "other")
    return {"address": ins.address, "id": _imm(ins, 0), "kind": kind, "threads": _imm(ins, 1)}


def _mbarrier_ops(kinds: Mapping[MbarrierKind, int], mnemonics: dict[str, int]) -> MbarrierOps:
    """The fact: the kinds in the order found, then `by_mnemonic`."""
    out: MbarrierOps = {}
    for kind, count in kinds.items():
        out[kind] = count
    out["by_mnemonic"] = mnemonics
    return out


def _mbarrier_kind(ins: SassInstruction) -> MbarrierKind | None:
    op, mods = ins.opcode, ins.modifiers
    if op == "SYNCS":
        head = mods[0] if mods else ""
        if head == "EXCH":
            return "init"
        if head == "ARRIVE":
            if "A0TR" in mods:
                return "expect_tx"
            if "A0TX" in mods:
                return "complete_tx"
            if not any(m.startswith("A") and m[1:2] in ("0", "1", "R") for m in mods[1:]):
                return "arrive_expect_tx"
            return "arrive"
        if head == "PHASECHK":
            return "try_wait" if "TRYWAIT" in mods else "test_wait"
        if head == "CCTL":
            return "inval"
        return "other"
    if op == "ATOMS" and mods[:1] == ("ARRIVE",):
        return "arrive"  # sm_80: mbarrier.arrive in software
    return None


def _retries_try_wait(kernel: Any, table: Any, ins: SassInstruction) -> bool:
    """A PHASECHK without .TRYWAIT is a test_wait, unless its PTX is an mbarrier.try_wait:
    ptxas compiles that one to a .TRYWAIT check and a plain one that retries it in a loop."""
    ptx = ptx_for(kernel, table, ins.address)
    return ptx is not None and ptx.opcode == "mbarrier" and ptx.modifiers[:1] == ("try_wait",)


def _wait(
    ins: SassInstruction, kernel: Any, table: Any, has_cp: bool, has_bulk: bool
) -> ScoreboardWait:
    board = ins.operands[0].text if ins.operands else None
    pending = _imm(ins, 1)
    ptx = ptx_for(kernel, table, ins.address)
    text = ptx.mnemonic if ptx is not None else None
    if text is not None and text.startswith("cp.async.bulk"):
        kind = "bulk"
    elif text is not None and text.startswith("cp.async.wait"):
        kind = "cp.async"
    elif board == "SB0" and (text is None or text.startswith(("cp.", "bar", "ret", "mov"))):
        kind = "other"
        if has_cp != has_bulk:
            kind = "cp.async" if has_cp else "bulk"
    else:
        kind = "other"
    return {
        "address": ins.address, "scoreboard": board, "pending": pending, "kind": kind, "ptx": text
    }  # fmt: skip


def _ptx_mbarrier_ops(kernel: Any, present: Mapping[str, int]) -> dict[str, int]:
    """mbarrier operations of the PTX by kind; `present`: ptx_opcodes of the kernel."""
    out: dict[str, int] = {}
    if kernel.ptx is None or not present.get("mbarrier"):
        return out
    for p in kernel.ptx.instructions:
        if p.opcode == "mbarrier" and p.modifiers:
            name = p.modifiers[0]
            if name == "arrive" and "expect_tx" in p.modifiers:
                name = "arrive.expect_tx"
            out[name] = out.get(name, 0) + 1
    return out


def _note(kernel: Any, addresses: list[int], message: str, data: dict[str, Any]) -> Annotation:
    addrs = tuple(sorted(set(addresses)))
    wanted = set(addrs)
    by_addr = {i.address: i for i in kernel.instructions if i.address in wanted}
    return Annotation(
        kind="async-copy",
        severity=Severity.INFO,
        message=message,
        addresses=addrs,
        source=distinct_locs(by_addr[a] for a in addrs if a in by_addr),
        data=data,
    )


def _barrier_notes(
    kernel: Any, barriers: list[Barrier], instructions: list[SassInstruction]
) -> list[Annotation]:
    groups: dict[tuple[str, int | None, int | None], list[SassInstruction]] = {}
    for fact, ins in zip(barriers, instructions, strict=True):
        groups.setdefault((fact["kind"], fact["id"], fact["threads"]), []).append(ins)
    out = []
    for (kind, bar_id, threads), members in groups.items():
        if kind.startswith("cluster"):
            what = f"cluster barrier {kind.split('-')[1]} ({members[0].mnemonic})"
        elif bar_id == 0 and kind == "sync" and threads is None:
            what = "block barrier 0 (__syncthreads)"
        else:
            name = "named barrier" if bar_id else "barrier"
            ident = bar_id if bar_id is not None else "(in a register)"
            what = f"{name} {ident} {kind}" + (f" for {threads} threads" if threads else "")
            what += f" ({members[0].mnemonic})" if kind == "reduce" else ""
        out.append(
            Annotation(
                kind="barrier",
                severity=Severity.INFO,
                message=f"{len(members)} x {what}",
                addresses=tuple(i.address for i in members),
                source=distinct_locs(members),
                data={"kind": kind, "id": bar_id, "threads": threads, "count": len(members)},
            )
        )
    return out
