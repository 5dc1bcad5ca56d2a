"""Warp-uniform branches: whether the whole warp takes one path to a join, so that the warp
model (`sassview.graph.lanes`) may merge definitions that reach it along different paths and
differ by a uniform amount (a pointer after the unrolled loop or after its remainder loop)
instead of calling them unknown.

Its own module because it asks of branches what the active lanes (`sassview.graph.lane_guards`)
ask of lanes: not which lanes run, but whether any choice between paths splits the warp. A
branch is uniform when its predicate is the same in every lane (a uniform predicate register,
an ISETP of values that differ by a uniform amount, `n > 12` on a trip count, a PLOP3 of such
predicates), or, the assumption below, when it compares index arithmetic alone with a
run-time value. A branch whose paths meet again (at its post-dominator) before anything on
them writes the register asked about cannot make it differ, whatever it tests (a division's
slow-path test on data, inside the loop). Paths are taken through the kernel body with each
call paired with its return (`sassview.graph.lane_calls`).

How it can be wrong: a branch on index arithmetic against a run-time value (a bounds check,
or ptxas' trip count of a block-stride loop `for (c = threadIdx.x; c < n; c += 256)` and its
remainder tests) is taken to send the whole warp one way, which holds but in the last
iterations, where lanes that ran one trip fewer are apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from sassview.graph.dataflow import Effects, instruction_effects
from sassview.graph.lane_calls import Body
from sassview.graph.lane_values import Unknown, Value, add, scale
from sassview.graph.sass_semantics import names
from sassview.ir import Operand, SassInstruction

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph


class Model(Protocol):
    """What the uniformity questions ask of the warp model (`sassview.graph.lanes`)."""

    def _last_def(self, reg: str, b: int, index: int) -> int: ...

    def _operand(self, op: Operand, d: int) -> Value: ...


class UniformBranches:
    """Whether branches of one kernel send the whole warp one way, asked on demand."""

    def __init__(
        self,
        model: Model,
        instructions: Sequence[SassInstruction],
        cfg: ControlFlowGraph,
        latches: Mapping[int, frozenset[int]],
        block_lanes: int,
        body: Body,
        predicate: Callable[[str, int], int | None],
    ) -> None:
        self._model = model
        self._ins = instructions
        self._cfg = cfg
        self._latches = latches  # loop header -> its latches
        self._block_lanes = block_lanes  # the lanes of the block's first warp (a mask)
        self._body = body
        self._predicate = predicate  # lane_guards.ActiveLanes.predicate: lane by lane
        self._idom: dict[int, int] | None = None  # block -> immediate dominator, when asked
        self._asking: set[tuple[str, int]] = set()  # (predicate, block) being asked: cycles
        self._all_effects: list[Effects] | None = None  # every instruction's, when asked

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
        exact = self._predicate(guard, index)
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
            for d in self.reaching(reg, b, index):
                if d < 0 or not self._index_only(d, depth + 1, seen):
                    return False
        return True

    def reaching(self, reg: str, b: int, index: int) -> list[int]:
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


def _index_arithmetic(ins: SassInstruction) -> bool:
    if ins.opcode not in _INDEX_OPS:
        return False
    if ins.opcode in ("S2R", "S2UR", "CS2R"):  # the thread's place, not a clock or a counter
        return any(op.text.startswith(_PLACE_REGISTERS) for op in ins.operands)
    if ins.opcode in ("LDC", "ULDC"):  # a kernel parameter, not a table indexed by a lane
        # (`LDC R4, c[0x0][RZ]` is blockDim.x: RZ indexes nothing)
        return all(r.is_zero for op in ins.operands[1:] for r in op.registers)
    return True
