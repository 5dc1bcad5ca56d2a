"""Register budgets per warp group: what `setmaxnreg` moves, and whether it can be granted.

Hopper and Blackwell warp-specialised kernels launch with one register count for every
thread (the cubin's REGCOUNT: the allocation occupancy rests on) and then move registers
between warp groups: the producers give theirs back (`setmaxnreg.dec` -> `USETMAXREG.DEALLOC`),
the consumers take them (`setmaxnreg.inc` -> `USETMAXREG.TRY_ALLOC`, retried in a loop until the
block's pool can grant it). The pool is what the launch allocated: REGCOUNT x 32 per warp,
rounded up to the allocation unit, times the block's warps. Registers never leave the block,
so occupancy does not change; what can go wrong is the split: if the warp groups ask for more
than the pool holds, an increase is never granted and its warps spin for ever.

For each USETMAXREG: its target, its source line, and the code that runs under it (every
instruction reachable from it before another USETMAXREG), with the most registers live there
and the highest register it names — the peak read against the budget of the warps that run
it. With the block size known (`__launch_bounds__` / `.reqntid`), every split of its warp
groups of 128 threads between the decrease and increase targets is checked against the pool.

How it can be wrong: which warp groups run which `setmaxnreg` is decided by branches on the
thread index; the split of the pool is given as what fits, not as what the kernel does. The
code counted under a budget is what is reachable from it by the warps that run it: with a 1-D
block (`.reqntid`, else `.maxntid`), each branch on the thread index the walk can evaluate
(graph/warp_ids.py: shifts, LOP3, adds and a lane-0 shuffle of threadIdx.x, compared by an
ISETP, whatever predicate or register it is written on) is followed only to the sides those
warps take; else a later branch on the predicate that chose the `setmaxnreg` (not written
again on the way) is. A test on something else (a loaded role, a uniform register) is
followed both ways, and where the code reached then names more registers than the budget
allows (no code under 32 can name R251), it cannot all be the code that warp group runs, and
the row says its code is unknown rather than a peak. A CALL counts the registers its operands
name, not the ABI's clobbers, and the live counts of a subroutine (the ABI's callee-saved
registers, live across every call) are left out of the peak; what the subroutine names still
counts. A kernel with more than two targets is reported per target, without a split.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.occupancy import block_sizes, registers_per_warp
from sassview.analyses.records import Budget, RegisterBudgetFacts
from sassview.analyses.sm_limits import limits_for
from sassview.graph.cfg import BasicBlock
from sassview.graph.dataflow import register_effects
from sassview.graph.warp_ids import WarpIds
from sassview.ir import Kernel, SassInstruction

WARP_GROUP = 128  # threads: setmaxnreg acts on a whole warp group


def _target(ins_modifiers: tuple[str, ...]) -> str | None:
    if "DEALLOC" in ins_modifiers:
        return "decrease"
    if "TRY_ALLOC" in ins_modifiers or "ALLOC" in ins_modifiers:
        return "increase"
    return None


# The walk's state at an instruction: the predicate fact that chose the setmaxnreg (while
# nothing writes it again), and the warps of the block that can be here (None: not known).
_State = tuple[tuple[str, bool] | None, frozenset[int] | None]


def _region(ctx: AnalysisContext, index: int, ids: WarpIds | None = None) -> list[int]:
    """The instruction indices that run after the USETMAXREG at `index` and before any other
    (the retry loop of an increase included once), by the warps that run it.

    Where the block's threads are known (1-D `.reqntid` / `.maxntid`) and the branches into the
    USETMAXREG test the thread index (graph/warp_ids.py: `warp_idx == 4`, `tid / 128 != 0`),
    the walk keeps the set of warps that got there, and each later branch it can evaluate
    for them (another predicate, an ISETP on another register: `warp_idx - 5 > 2`, `tid <
    128`) is followed only to the sides they take, a guarded EXIT past the warps it ends.
    Else, where the USETMAXREG is entered on one side of a branch on a predicate that
    nothing after it writes, a later branch on that predicate is followed only to the side
    those warps take."""
    ins, cfg = ctx.kernel.instructions, ctx.cfg
    out: list[int] = []
    seen: set[tuple[int, int, _State]] = set()
    warps = _entry_warps(ctx, index, ids) if ids is not None else None
    work: list[tuple[int, _State]] = [(index + 1, (_entry_predicate(ctx, index), warps))]
    while work:
        i, state = work.pop()
        if i >= len(ins):
            continue
        block = cfg.block_of_index(i)
        if (block.index, i, state) in seen:
            continue
        seen.add((block.index, i, state))
        known, warps = state
        stopped = False
        for j in range(i, block.last + 1):
            if ins[j].opcode == "USETMAXREG":
                stopped = True
                break
            out.append(j)
            if known is not None and known[0] in register_effects(ins[j]).defs:
                known = None  # the predicate is written again: later tests are other tests
        if not stopped:
            work.extend(_onwards(ctx, block, (known, warps), ids))
    return sorted(set(out))


def _onwards(
    ctx: AnalysisContext, block: BasicBlock, state: _State, ids: WarpIds | None
) -> list[tuple[int, _State]]:
    """The successors the walk goes on to from the end of `block`, each with its state."""
    known, warps = state
    if ids is None or warps is None:
        return [(n, state) for n in _taken(ctx, block, known)]
    ins, cfg = ctx.kernel.instructions, ctx.cfg
    last = ins[block.last]
    nexts = [cfg.blocks[s].first for s in block.successors]
    held = ids.guard_true(block.last, warps) if last.opcode in ("BRA", "EXIT") else None
    if held is None:
        return [(n, (known, warps)) for n in _taken(ctx, block, known)]
    if last.opcode == "EXIT":  # the warps it ends go no further
        rest = warps - held
        return [(n, (known, rest)) for n in nexts] if rest else []
    target = next((n for n in nexts if ins[n].address == last.target), None)
    if target is None or len(nexts) != 2:
        return [(n, (known, warps)) for n in _taken(ctx, block, known)]
    out: list[tuple[int, _State]] = []
    for n in nexts:
        side = held if n == target else warps - held
        if side:
            out.append((n, (known, side)))
    return out


def _entry_warps(ctx: AnalysisContext, index: int, ids: WarpIds) -> frozenset[int] | None:
    """The warps the branches into the USETMAXREG's block send there (every way in from
    outside it a branch on the thread index it can evaluate); None where one is not."""
    ins, cfg = ctx.kernel.instructions, ctx.cfg
    block = cfg.block_of_index(index)
    found: set[int] = set()
    for p in block.predecessors:
        if p == block.index:
            continue  # the retry loop of an increase
        last_index = cfg.blocks[p].last
        last = ins[last_index]
        if last.opcode != "BRA":
            return None
        held = ids.guard_true(last_index, ids.warps)
        if held is None:
            return None
        taken = last.target == ins[block.first].address
        found |= held if taken else ids.warps - held
    return frozenset(found) if found else None


def _branch_value(ins: SassInstruction, taken: bool) -> bool:
    """The guard predicate's value on the taken (or the fall-through) side of `@[!]P BRA`."""
    return (not ins.guard_negated) if taken else ins.guard_negated


def _entry_predicate(ctx: AnalysisContext, index: int) -> tuple[str, bool] | None:
    """(predicate, value) every way into the USETMAXREG's block from outside it implies
    (the walk drops it where the predicate is written again)."""
    ins, cfg = ctx.kernel.instructions, ctx.cfg
    block = cfg.block_of_index(index)
    facts = set()
    for p in block.predecessors:
        if p == block.index:
            continue  # the retry loop of an increase
        last = ins[cfg.blocks[p].last]
        if last.opcode != "BRA" or last.guard is None or last.guard.file not in ("P", "UP"):
            return None
        taken = last.target == ins[block.first].address
        facts.add((str(last.guard), _branch_value(last, taken)))
    if len(facts) != 1:
        return None
    (fact,) = facts
    if any(fact[0] in register_effects(ins[k]).defs for k in range(block.first, index)):
        return None
    return fact


def _taken(ctx: AnalysisContext, block: BasicBlock, known: tuple[str, bool] | None) -> list[int]:
    """The first instructions of the successors the warps under the budget go on to."""
    ins, cfg = ctx.kernel.instructions, ctx.cfg
    nexts = [cfg.blocks[s].first for s in block.successors]
    last = ins[block.last]
    if known is None or last.opcode != "BRA" or str(last.guard) != known[0] or len(nexts) != 2:
        return nexts
    target = next((n for n in nexts if ins[n].address == last.target), None)
    if target is None:
        return nexts
    if _branch_value(last, True) == known[1]:
        return [target]
    return [n for n in nexts if n != target]


# A CALL's clobbers cut at no register: what it names is its own operands. The ABI lets a call
# clobber up to R251, but the subroutine's code is what runs (the walk goes into it), and a
# trap's call under a 32-register budget names none of that.
_OPERANDS_ONLY: Mapping[str, int] = MappingProxyType({})


def _highest_register(ctx: AnalysisContext, region: list[int]) -> int:
    top = 0
    for i in region:
        eff = register_effects(ctx.kernel.instructions[i], columns=_OPERANDS_ONLY)
        for name in (*eff.defs, *eff.uses):
            if name.startswith("R") and name[1:].isdigit():
                top = max(top, int(name[1:]) + 1)
    return top


def _warp_ids(ctx: AnalysisContext) -> WarpIds | None:
    """The thread-index values of a 1-D block (`.reqntid`, else `.maxntid`), None else."""
    res = ctx.kernel.resources
    dims = res.reqntid or res.maxntid
    if not dims or any(d != 1 for d in dims[1:]) or not 0 < dims[0] <= 1024:
        return None
    return WarpIds(ctx.kernel.instructions, ctx.cfg, dims[0])


def _subroutines_from(kernel: Kernel) -> int | None:
    """The address the kernel's subroutines start at (nvdisasm lays them out after the body:
    the lowest CALL target in the section), None without one."""
    targets = [i.target for i in kernel.instructions if i.opcode == "CALL" and i.target]
    return min(targets) if targets else None


def _own_code(ctx: AnalysisContext, index: int, subroutines: int | None) -> bool:
    """Whether the live count at `index` is the warp group's own: not a CALL, not inside a
    subroutine. There the count follows the ABI (every callee-saved register below the
    launch's count live across the call and at the RET: 129 at a tcgen05 guardrail trap of a
    255-register launch), not what the code under a budget holds."""
    ins = ctx.kernel.instructions[index]
    return ins.opcode != "CALL" and (subroutines is None or ins.address < subroutines)


def budgets(ctx: AnalysisContext) -> list[Budget]:
    out = []
    gpr = ctx.liveness.counts.get("GPR", ()) if ctx.liveness else ()
    subroutines = _subroutines_from(ctx.kernel)
    ids = _warp_ids(ctx)
    for index, ins in enumerate(ctx.kernel.instructions):
        if ins.opcode != "USETMAXREG":
            continue
        action = _target(ins.modifiers)
        value = next((o.value for o in ins.operands if o.value is not None), None)
        if action is None or value is None:
            continue
        region = _region(ctx, index, ids)
        counted = [i for i in region if i < len(gpr) and _own_code(ctx, i, subroutines)]
        out.append(
            Budget(
                address=ins.address,
                line=ins.source.line if ins.source else None,
                action=action,
                registers=int(value),
                peak_live=max((gpr[i] for i in counted), default=0),
                highest=_highest_register(ctx, region),
            )
        )
    return out


def _under(b: Budget) -> str:
    """What runs under the budget, or "unknown" where the code reached from it cannot all be
    that warp group's: under 32 registers no code names R251 or holds 129 live, so the walk
    (which does not follow the warp-id branches) has reached other warp groups' code."""
    if b.highest > b.registers:
        return (
            f"(its code unknown: what follows names R0-R{max(b.highest - 1, 0)}, more than"
            f" {b.registers}, so it is other warp groups' too)"
        )
    if b.peak_live > b.registers:
        return (
            f"(its code unknown: what follows holds {b.peak_live} live, more than"
            f" {b.registers}, so it is other warp groups' too)"
        )
    return f"(peak {b.peak_live} live, R0-R{max(b.highest - 1, 0)})"


def pool_of(kernel: Kernel, threads: int) -> int | None:
    """The registers the launch gives one block: REGCOUNT x 32 per warp, rounded up to the
    allocation unit, times its warps (cuda_occupancy.h's per-warp allocation)."""
    sm = limits_for(kernel.arch)
    if sm is None or not kernel.resources.registers:
        return None
    return registers_per_warp(sm, kernel.resources.registers) * -(-threads // sm.warp_size)


def splits(pool: int, groups: int, low: int, high: int) -> list[int]:
    """How many of `groups` warp groups may hold `high` registers per thread (the rest `low`)
    within `pool`, for at least one group at each target."""
    return [
        n
        for n in range(1, groups)
        if n * WARP_GROUP * high + (groups - n) * WARP_GROUP * low <= pool
    ]


def run(ctx: AnalysisContext) -> Findings:
    found = budgets(ctx)
    if not found:
        return Findings(facts=RegisterBudgetFacts(budgets=[], text=None))
    kernel = ctx.kernel
    sizes, source = block_sizes(kernel)
    threads = sizes[0] if source in ("reqntid", "maxntid") else None
    pool = pool_of(kernel, threads) if threads else None
    lows = {b.registers for b in found if b.action == "decrease"}
    highs = {b.registers for b in found if b.action == "increase"}
    fit: list[int] | None = None
    groups = threads // WARP_GROUP if threads and threads % WARP_GROUP == 0 else None
    if pool and groups and len(lows) == 1 and len(highs) == 1:
        fit = splits(pool, groups, next(iter(lows)), next(iter(highs)))
    facts = RegisterBudgetFacts(
        launch_registers=kernel.resources.registers,
        threads=threads,
        pool=pool,
        warp_groups=groups,
        budgets=found,
        increase_groups_that_fit=fit,
        text=describe(kernel.resources.registers, threads, pool, found, groups, fit),
    )
    annotations = []
    if fit == [] and groups:
        low, high = next(iter(lows)), next(iter(highs))
        need = WARP_GROUP * (high + (groups - 1) * low)
        annotations.append(
            Annotation(
                kind="register-budget",
                severity=Severity.WARNING,
                message=(
                    f"setmaxnreg asks for more registers than the block has: even one of its "
                    f"{groups} warp groups at {high} (the others at {low}) needs {need}, the "
                    f"launch gave {pool} ({kernel.resources.registers} x {threads}); the "
                    "increase is never granted and its warps wait for ever"
                ),
                hint="lower the setmaxnreg.inc target or the setmaxnreg.dec one, or launch "
                "with more registers per thread (fewer threads per block, or -maxrregcount)",
                addresses=tuple(b.address for b in found),
            )
        )
    return Findings(facts=facts, annotations=tuple(annotations))


def describe(
    registers: int,
    threads: int | None,
    pool: int | None,
    found: list[Budget],
    groups: int | None,
    fit: list[int] | None,
) -> str:
    """`launch 168 x 384 = 64512; line 6: down to 40 (peak 12 live), line 9: up to 232 (peak
    68 live); fits 1 or 2 of 3 warp groups at 232`: the check row, worded once."""
    head = f"launch {registers} per thread"
    if threads and pool:
        head = f"launch {registers} x {threads} threads = {pool} in the block's pool"
    words = {"decrease": "down to", "increase": "up to"}
    parts = [
        f"line {b.line if b.line is not None else '?'}: {words[b.action]} {b.registers} "
        + _under(b)
        for b in found
    ]
    text = f"{head}; " + ", ".join(parts)
    if fit and groups:
        high = max(b.registers for b in found if b.action == "increase")
        counts = " or ".join(map(str, fit))
        text += f"; fits {counts} of {groups} warp groups at {high}"
    elif fit == [] and groups:
        text += f"; no split of its {groups} warp groups fits"
    return text
