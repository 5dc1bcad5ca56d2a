"""Active lanes: which lanes of the warp run an instruction, from the predicates that compare
lane values exactly.

Its own module because it asks different questions of the same values than the address
arithmetic does (a mask of lanes, not a value per lane) and keeps its own tables (the lanes
entering each block, the predicated EXITs of each); the warp model (`sassview.graph.lanes`)
holds one `ActiveLanes` and answers its questions about values through `Model`.

Whether a branch sends the whole warp one way is `sassview.graph.lane_uniform`'s question,
asked through `ActiveLanes.uniform_branches`. An ISETP reads concrete lanes as the 32-bit
words they are (signed or `.U32`).

Followed: `ISETP ... R0(tid), 0xf` whose operands differ by an amount known in every lane, a
`LOP3.LUT P0, RZ, R4, 0xf, RZ, 0xc0` bit test known in every lane that splits the warp (a
16-thread tile's rank 0; one the same in every lane tests the warp, not the lanes, and is
not followed), under a predicated `EXIT`, a conditional branch into a block with one
predecessor, or the access's own guard; a `SEL` picks per lane by such a predicate
(`sassview.graph.lane_ops`).

How it can be wrong: a comparison with a run-time value (a bounds check, `i < n`) leaves every
lane running, as it does in all but the last block; a loop is taken to run alike in every lane
of the warp (a warp-uniform trip count), so a loop's back edges bring no lanes (and see
`lane_uniform` for branches taken as uniform); the lanes are those of the block's first warp,
the others being taken as shifted by a uniform amount (true when the block's x extent is a
multiple or a divisor of 32).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sassview.graph import lane_uniform
from sassview.graph.lane_calls import Body
from sassview.graph.lane_uniform import UniformBranches
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


class Model(lane_uniform.Model, Protocol):
    """What the active lanes ask of the warp model (`sassview.graph.lanes.WarpModel`): the
    uniformity questions' definitions and operands, and the access being evaluated."""

    _ctx: Any  # the guarded access being evaluated: None while the guards are asked


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
        self._block_lanes = (1 << block.active_lanes) - 1
        # Whether branches send the whole warp one way (`sassview.graph.lane_uniform`).
        self.uniform = UniformBranches(
            model, instructions, cfg, latches, self._block_lanes, self._body, self.predicate
        )
        self.uniform_branches = self.uniform.uniform_branches

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

    def predicate(self, pred: str, index: int) -> int | None:
        """Predicate `pred` just before `index`, lane by lane (bit l: true in lane l), where
        an ISETP compares values whose difference is known in every lane, or a LOP3 tests
        bits known in every lane; else None. The definition is the one every path to
        `index` brings (`if (tid == 0) out[...] = sdata[0]` after a reduction's loops: the
        ISETP before them)."""
        b = self._cfg.block_of_index(index).index
        d = self._model._last_def(pred, b, index)
        if d < 0:
            reaching = set(self.uniform.reaching(pred, b, index))
            if len(reaching) != 1:
                return None
            (d,) = reaching
            if d < 0:
                return None
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
