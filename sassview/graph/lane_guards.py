"""Active lanes: which lanes of the warp run an instruction, from the predicates that compare
lane values exactly.

Its own module because it asks different questions of the same values than the address
arithmetic does (a mask of lanes, not a value per lane) and keeps its own tables (the lanes
entering each block, the predicated EXITs of each); the warp model (`sassview.graph.lanes`)
holds one `ActiveLanes` and answers its questions about values through `Model`.

Also whether a branch is warp-uniform (`uniform_branches`): its predicate an ISETP of values
that differ by a uniform amount (`n > 12` on a trip count), a PLOP3 of such predicates, or a
uniform predicate register; the warp model then merges definitions that reach a join along
uniformly chosen paths and differ by a uniform amount (a pointer after the unrolled loop or
after the remainder loop) instead of calling them unknown. A branch whose paths meet again
(at its post-dominator) before anything on them writes the register asked about cannot make
it differ, whatever it tests (a division's slow-path test on data, inside the loop). Paths
are taken through the kernel body with each call paired with its return
(`sassview.graph.lane_calls`); an ISETP reads concrete lanes as the 32-bit words they are
(signed or `.U32`).

Followed: `ISETP ... R0(tid), 0xf` whose operands differ by an amount known in every lane, a
`LOP3.LUT P0, RZ, R4, 0xf, RZ, 0xc0` bit test known in every lane that splits the warp (a
16-thread tile's rank 0; one the same in every lane tests the warp, not the lanes, and is
not followed),
under a predicated `EXIT`, a conditional branch into a block with one predecessor, or the
access's own guard; a `SEL` picks per lane by such a predicate (`sassview.graph.lane_ops`).

How it can be wrong: a comparison with a run-time value (a bounds check, `i < n`) leaves every
lane running, as it does in all but the last block; a loop is taken to run alike in every lane
of the warp (a warp-uniform trip count), so a loop's back edges bring no lanes; by the same
token a branch on index arithmetic against a run-time value (a bounds check, or ptxas' trip
count of a block-stride loop `for (c = threadIdx.x; c < n; c += 256)` and its remainder
tests) sends the whole warp one way, which holds but in the last iterations, where lanes
that ran one trip fewer are apart; the lanes are
those of the block's first warp, the others being taken as shifted by a uniform amount (true
when the block's x extent is a multiple or a divisor of 32).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sassview.graph.dataflow import Effects, instruction_effects
from sassview.graph.lane_calls import Body
from sassview.graph.lane_values import (
    ALL_LANES,
    MASK32,
    BlockShape,
    LaneValue,
    Unknown,
    Value,
    add,
    lop3_bits,
    scale,
)
from sassview.graph.sass_semantics import names
from sassview.ir import Operand, SassInstruction

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph

# ISETP's comparisons, as a test of (a - b) in one lane.
_COMPARE: Mapping[str, Callable[[int], bool]] = {
    "LT": lambda x: x < 0,
    "LE": lambda x: x <= 0,
    "GT": lambda x: x > 0,
    "GE": lambda x: x >= 0,
    "EQ": lambda x: x == 0,
    "NE": lambda x: x != 0,
}


class Model(Protocol):
    """What the active lanes ask of the warp model (`sassview.graph.lanes.WarpModel`)."""

    _ctx: Any  # the guarded access being evaluated: None while the guards are asked

    def _last_def(self, reg: str, b: int, index: int) -> int: ...

    def _operand(self, op: Operand, d: int) -> Value: ...


class ActiveLanes:
    """The lanes that run each instruction of one kernel, computed on demand and remembered."""

    def __init__(
        self,
        model: Model,
        instructions: Sequence[SassInstruction],
        cfg: ControlFlowGraph,
        latches: Mapping[int, frozenset[int]],
        block: BlockShape,
        body: Body | None = None,
    ) -> None:
        self._model = model
        self._body = body or Body(cfg)  # calls paired with their returns
        self._ins = instructions
        self._cfg = cfg
        self._latches = latches  # loop header -> its latches
        self._masks: dict[int, int] = {}  # block -> the lanes entering it (see `active`)
        # block -> (indices of its predicated EXITs, the lanes left after each)
        self._exit_masks: dict[int, tuple[list[int], list[int]]] = {}
        self.plain: dict[int, int] = {}  # block without predicated EXITs -> its lanes
        self._idom: dict[int, int] | None = None  # block -> immediate dominator, when asked
        self._asking: set[tuple[str, int]] = set()  # (predicate, block) being asked: cycles
        self._all_effects: list[Effects] | None = None  # every instruction's, when asked
        self._block_lanes = (1 << block.active_lanes) - 1

    def active(self, index: int) -> int:
        """The lanes (bit l: lane l) of the warp that run the instruction at `index`: those of
        the block (a block smaller than a warp has fewer), less those a lane-exact predicate
        switched off on the way: a predicated EXIT before it, a branch edge into a block
        with one predecessor, the access's own guard. Where a predicate cannot be evaluated
        per lane (it compares with a run-time value), every lane is taken to run."""
        b = self._cfg.block_of_index(index).index
        guard = self._ins[index].guard
        fast = self.plain.get(b)  # the block's one answer, when it has no predicated EXIT
        if fast is not None and (guard is None or guard.index is None):
            return fast  # most accesses of most kernels: no lookup beyond two dict hits
        outer, self._model._ctx = self._model._ctx, None
        try:
            mask = self._entry_mask(b) & self._exits(b, index)
            if not self._exit_masks[b][0]:
                self.plain[b] = mask
            if guard is not None and guard.index is not None:
                mask &= self._guard_mask(str(guard), self._ins[index].guard_negated, index)
            return mask
        finally:
            self._model._ctx = outer

    def _guard_mask(self, pred: str, negated: bool, index: int) -> int:
        lanes = self.predicate(pred, index)
        if lanes is None:
            return ALL_LANES
        return ~lanes & ALL_LANES if negated else lanes

    def _exits(self, b: int, index: int) -> int:
        """The lanes still running at `index` of block b after its predicated EXITs. Each
        block is scanned once (a straight-line kernel is one block of 32k accesses): its
        EXITs' indices and the lanes left after each, then a bisection per question."""
        found = self._exit_masks.get(b)
        if found is None:
            block = self._cfg.blocks[b]
            at: list[int] = []
            left: list[int] = []
            mask = ALL_LANES
            for j in range(block.first, block.last + 1):
                ins = self._ins[j]
                if ins.opcode == "EXIT" and ins.guard is not None and ins.guard.index is not None:
                    mask &= self._guard_mask(str(ins.guard), not ins.guard_negated, j)
                    at.append(j)
                    left.append(mask)
            found = self._exit_masks[b] = (at, left)
        at, left = found
        k = bisect.bisect_left(at, index)  # the EXITs before `index`
        return left[k - 1] if k else ALL_LANES

    def _entry_mask(self, b: int) -> int:
        """The lanes that enter block b: the union over its incoming edges (a loop's back
        edges left out: a loop runs alike in every lane) of the lanes each carries. Computed
        for every block at once, in address order, so no chain of blocks is followed back
        (an edge from a later block that is no loop's back edge: every lane)."""
        if not self._masks:
            first = self._block_lanes
            masks = self._masks
            for block in self._cfg.blocks:
                b_ = block.index
                if b_ == self._cfg.entry or not block.predecessors:
                    masks[b_] = first
                    continue
                latches = self._latches.get(b_, frozenset())
                mask = 0
                for p in self._body.predecessors(b_):  # a return site: from its call
                    if p in latches:
                        continue
                    mask |= self._edge_mask(p, b_) if p in masks else first
                masks[b_] = mask & first
        return self._masks.get(b, self._block_lanes)

    def _edge_mask(self, p: int, b: int) -> int:
        """The lanes going from block p to block b: those at p's end, less the ones a
        conditional branch at its end sends the other way."""
        pred = self._cfg.blocks[p]
        mask = self._entry_mask(p) & self._exits(p, pred.last + 1)
        last = self._ins[pred.last]
        guard = last.guard
        if last.opcode != "BRA" or guard is None or guard.index is None:
            return mask
        target = last.operands[-1].value if last.operands else None
        start = self._ins[self._cfg.blocks[b].first].address
        taken = target == start
        fallthrough = b == p + 1
        if taken == fallthrough:  # a branch to the next instruction, or not ours to read
            return mask
        return mask & self._guard_mask(str(guard), last.guard_negated != fallthrough, pred.last)

    def uniform_branches(self, join: int, reg: str | None = None) -> bool:
        """Whether the whole warp reaches block `join` along one path, as far as `reg` can
        tell: every conditional branch on a path from `join`'s immediate dominator to it
        tests a warp-uniform predicate (`uniform_predicate`), or (with `reg`) rejoins
        before anything writes `reg` (`_rejoins_without`: the division slow path's branch
        in a softmax loop), and none is indirect. A loop header is asked about its
        entering edges (its back edges' branch is the loop's own, asked of its exit). A
        paired call is a step from the calling block to its return site
        (`sassview.graph.lane_calls`)."""
        idom = self._dominators().get(join)
        if idom is None or idom == join:
            return False
        latches = self._latches.get(join, frozenset())
        region = {idom}
        todo = [p for p in self._body.predecessors(join) if p not in latches]
        while todo:
            b = todo.pop()
            if b not in region:
                region.add(b)
                todo.extend(self._body.predecessors(b))
        for b in region:
            block = self._cfg.blocks[b]
            last = self._ins[block.last]
            if block.unknown_successors or last.opcode in ("BRX", "JMX"):
                return False
            conditional = last.guard is not None and last.guard.index is not None
            if last.opcode != "BRA" or not conditional or self._branch_uniform(block.last):
                continue
            if reg is None or not self._rejoins_without(b, reg):
                return False
        return True

    def _rejoins_without(self, b: int, reg: str) -> bool:
        """Whether the paths out of block b meet again (at its immediate post-dominator)
        before any of them writes `reg`, a subroutine called on the way included: then the
        branch that ends b cannot make `reg` differ between lanes, whatever it tests."""
        stop = self._body.post_dominator(b)
        if stop is None:
            return False
        succ = self._body.successors()
        sites = self._body.sites
        seen: set[int] = set()
        todo = list(succ[b])
        while todo:
            x = todo.pop()
            if x == stop or x in seen:
                continue
            if len(seen) > 64 or self._writes(x, reg):
                return False
            seen.add(x)
            site = next((s for s in succ[x] if s in sites and sites[s].call == x), None)
            if site is not None and any(self._writes(y, reg) for y in sites[site].subroutine):
                return False
            todo.extend(succ[x])
        return True

    def _writes(self, b: int, reg: str) -> bool:
        return self._model._last_def(reg, b, self._cfg.blocks[b].last + 1) >= 0

    def _branch_uniform(self, index: int) -> bool:
        """A conditional branch the whole warp takes one way: its predicate is the same in
        every lane, or (the assumption this module makes of bounds checks and loops, see
        the docstring) it compares index arithmetic with a run-time value, which is not
        known lane by lane: a bounds check (`i < n`) or a trip count (`(n - lane) / 32`)."""
        guard = str(self._ins[index].guard)
        if self.uniform_predicate(guard, index):
            return True
        exact = self.predicate(guard, index)
        if exact is not None:  # known lane by lane: uniform only if all agree
            return exact & self._block_lanes in (0, self._block_lanes)
        return self._index_only(index, 0, set())

    def _index_only(self, index: int, depth: int, seen: set[int]) -> bool:
        """Whether every register instruction `index` reads comes from index arithmetic
        alone: thread and block indices, kernel parameters, constants and integer operations
        on them, never a value loaded from memory, exchanged between lanes or floating."""
        if index in seen:
            return True
        seen.add(index)
        if depth > 24 or len(seen) > 256:
            return False
        ins = self._ins[index]
        if depth and not _index_arithmetic(ins):
            return False
        uses = self._effects(index)[1]
        b = self._cfg.block_of_index(index).index
        for reg in names(uses):
            if reg in ("RZ", "PT", "URZ", "UPT"):
                continue
            for d in self._reaching(reg, b, index):
                if d < 0 or not self._index_only(d, depth + 1, seen):
                    return False
        return True

    def _reaching(self, reg: str, b: int, index: int) -> list[int]:
        """The definitions of `reg` that reach `index` in block b (-1: none, the entry)."""
        d = self._model._last_def(reg, b, index)
        if d >= 0:
            return [d]
        out: list[int] = []
        preds = self._preds(b, reg)
        if not preds:
            return [-1]
        todo, visited = list(preds), {b}
        while todo and len(out) < 16:
            p = todo.pop()
            if p in visited:
                continue
            visited.add(p)
            last = self._cfg.blocks[p].last
            d = self._model._last_def(reg, p, last + 1)
            if d >= 0:
                out.append(d)
                continue
            preds = self._preds(p, reg)
            if preds:
                todo.extend(preds)
            else:
                out.append(-1)
        return out or [-1]

    def _preds(self, b: int, reg: str) -> tuple[int, ...] | None:
        """The blocks `reg` reaches block b from: at a call's return site the calling block
        alone, None where the subroutine writes `reg` (not followed)."""
        site = self._body.sites.get(b)
        if site is None:
            return self._cfg.blocks[b].predecessors
        if any(self._writes(y, reg) for y in site.subroutine):
            return None
        return self._body.predecessors(b)

    def _effects(self, index: int) -> Effects:
        if self._all_effects is None:
            self._all_effects = instruction_effects(self._ins)
        return self._all_effects[index]

    def _dominators(self) -> dict[int, int]:
        if self._idom is None:
            from sassview.graph.dominators import immediate_dominators

            self._idom = immediate_dominators(self._body.successors(), self._cfg.entry)
        return self._idom

    def _bits_test(self, pred: str, d: int) -> int | None:
        """A LOP3's predicate, where it splits the block's first warp (a tile's lane 0):
        one that is the same in all its lanes is left unknown, as before this was followed,
        since it tests the warp (`threadIdx.x / 128 == 0` of a warp-specialised kernel, as
        ptxas writes it: `LOP3.LUT P0, RZ, R7, 0xffffff80, RZ, 0xc0`), and warp 0 would then
        stand for the consumers' accesses it does not make."""
        lanes = _lop3_test(self._ins[d], pred, lambda op: self._model._operand(op, d))
        if lanes is None or lanes & self._block_lanes in (0, self._block_lanes):
            return None
        return lanes

    def uniform_predicate(self, pred: str, index: int, depth: int = 0) -> bool:
        """Whether predicate `pred` just before `index` is the same in every lane: a uniform
        predicate (UP0), or an ISETP of two values that differ by a warp-uniform amount,
        combined only with such predicates."""
        if pred.lstrip("!").startswith("UP") or pred.lstrip("!") == "PT":
            return True
        b = self._cfg.block_of_index(index).index
        d = self._model._last_def(pred, b, index)
        if d < 0:  # defined before the block: uniform on every incoming edge
            return self._uniform_on_entry(pred, b, depth)
        return self._uniform_definition(pred, d, depth)

    def _uniform_on_entry(self, pred: str, b: int, depth: int) -> bool:
        """`pred` at block b's entry is uniform when it is at the end of every predecessor
        and (with several) the warp reaches b along one path. A cycle back to a block being
        asked is taken as uniform: a predicate that only uniform definitions feed, around a
        loop too, is uniform (the greatest fixed point, as divergence analyses take it)."""
        if (pred, b) in self._asking:
            return True
        preds = self._preds(b, pred)
        if not preds or depth > 8:
            return False
        self._asking.add((pred, b))
        try:
            if len(preds) > 1 and not self.uniform_branches(b, pred):
                return False
            return all(
                self.uniform_predicate(pred, self._cfg.blocks[p].last + 1, depth + 1) for p in preds
            )
        finally:
            self._asking.discard((pred, b))

    def _uniform_definition(self, pred: str, d: int, depth: int) -> bool:
        ins = self._ins[d]
        ops = ins.operands
        if ins.guard is not None or depth > 4:
            return False
        if ins.opcode == "PLOP3":  # P0 = f(predicates): uniform when they all are (PT: NVCC's
            # `PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0` sets a flag per path)
            sources = [r for op in ops[2:] for r in op.registers]
            return all(r.is_zero or self.uniform_predicate(str(r), d, depth + 1) for r in sources)
        if ins.opcode not in ("ISETP", "UISETP") or len(ops) != 5:
            return False
        if not ops[4].registers:
            return False
        combined = ops[4].registers[0]
        if not combined.is_zero and not self.uniform_predicate(str(combined), d, depth + 1):
            return False
        a, c = self._model._operand(ops[2], d), self._model._operand(ops[3], d)
        if isinstance(a, Unknown) or isinstance(c, Unknown):
            return False
        diff = add(a, scale(c, -1))
        return diff.uniform and not diff.scaled

    def predicate(self, pred: str, index: int) -> int | None:
        """Predicate `pred` just before `index`, lane by lane (bit l: true in lane l), where
        an ISETP compares values whose difference is known in every lane, or a LOP3 tests
        bits known in every lane; else None."""
        b = self._cfg.block_of_index(index).index
        d = self._model._last_def(pred, b, index)
        while d < 0:
            preds = self._cfg.blocks[b].predecessors
            if len(preds) != 1:
                return None
            b = preds[0]
            d = self._model._last_def(pred, b, self._cfg.blocks[b].last + 1)
        ins = self._ins[d]
        if ins.opcode == "LOP3" and ins.guard is None:
            return self._bits_test(pred, d)
        if ins.opcode not in ("ISETP", "UISETP") or ins.guard is not None:
            return None
        mods = ins.modifiers
        test = next((_COMPARE[m] for m in mods if m in _COMPARE), None)
        ops = ins.operands
        if test is None or "EX" in mods or len(ops) != 5 or "AND" not in mods:
            return None
        if not (ops[4].registers and ops[4].registers[0].is_zero and not ops[4].negated):
            return None  # combined with another predicate (PT is the one "zero" predicate)
        a, c = self._model._operand(ops[2], d), self._model._operand(ops[3], d)
        if isinstance(a, Unknown) or isinstance(c, Unknown):
            return None
        if a.concrete and c.concrete:  # as the 32-bit registers hold them: -1 is 0xffffffff
            # to an unsigned test, and `tid | 0xffffffe0` (lane - 32, as ptxas starts a
            # block-stride loop) is negative to a signed one
            unsigned = "U32" in mods
            a = LaneValue((), tuple([_word(x, unsigned) for x in a.lanes]))
            c = LaneValue((), tuple([_word(x, unsigned) for x in c.lanes]))
        diff = add(a, scale(c, -1))
        if not diff.concrete:
            return None
        lanes = sum(1 << lane for lane, x in enumerate(diff.lanes) if test(x))
        if str(ops[1].registers[0]) == pred:  # the second destination: the complement
            return ~lanes & ALL_LANES
        return lanes if str(ops[0].registers[0]) == pred else None


# What index arithmetic may be made of (`_index_only`): integer ALU, moves, predicates, the
# special registers of the thread's place, and constant-bank loads at a constant address.
_INDEX_OPS = frozenset(
    {
        *("IADD3", "IADD", "VIADD", "IMAD", "IMUL", "LEA", "SHF", "SHL", "SHR", "LOP3", "LOP"),
        *("MOV", "IMNMX", "VIMNMX", "SEL", "ISETP", "PLOP3", "SGXT", "BMSK", "IABS", "FLO"),
        *("POPC", "BREV", "PRMT", "HFMA2", "CS2R", "S2UR", "R2UR", "LDC", "ULDC"),
        *("UIADD3", "UIMAD", "ULEA", "USHF", "ULOP3", "UMOV", "USEL", "UISETP", "UPLOP3"),
        *("UIMNMX", "USGXT", "UFLO", "UPOPC", "UPRMT", "UBREV", "UBMSK", "S2R", "P2R", "R2P"),
    }
)
_PLACE_REGISTERS = ("SR_TID", "SR_CTAID", "SR_LANEID", "SR_NTID", "SR_NCTAID")


def _lop3_test(ins: SassInstruction, pred: str, operand: Callable[[Operand], Value]) -> int | None:
    """`LOP3.LUT P0, RZ, R4, 0xf, RZ, 0xc0, !PT`: P0 = (the result != 0), lane by lane, where
    the result is known in every lane (a tile's `thread_rank() == 0`: lanes 0 and 16 of a
    16-thread tile); None for any other form."""
    ops = ins.operands
    if len(ops) != 7 or "LUT" not in ins.modifiers or not ops[0].registers:
        return None
    if str(ops[0].registers[0]) != pred or ops[6].text != "!PT":
        return None
    if not isinstance(ops[5].value, int):
        return None
    vals = [operand(op) for op in ops[2:5]]
    if any(isinstance(v, Unknown) or not v.concrete for v in vals):
        return None
    a, b, c = (v.lanes for v in vals if isinstance(v, LaneValue))
    lut = ops[5].value
    return sum(1 << n for n in range(len(a)) if lop3_bits(lut, a[n], b[n], c[n]))


def _word(x: int, unsigned: bool) -> int:
    """x as a 32-bit register holds it, read unsigned or signed."""
    x &= MASK32
    return x if unsigned or x < 1 << 31 else x - (1 << 32)


def _index_arithmetic(ins: SassInstruction) -> bool:
    if ins.opcode not in _INDEX_OPS:
        return False
    if ins.opcode in ("S2R", "S2UR", "CS2R"):  # the thread's place, not a clock or a counter
        return any(op.text.startswith(_PLACE_REGISTERS) for op in ins.operands)
    if ins.opcode in ("LDC", "ULDC"):  # a kernel parameter, not a table indexed by a lane
        # (`LDC R4, c[0x0][RZ]` is blockDim.x: RZ indexes nothing)
        return all(r.is_zero for op in ins.operands[1:] for r in op.registers)
    return True
