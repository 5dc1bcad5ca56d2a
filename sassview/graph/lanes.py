"""The warp model: the value of a register in each of the 32 lanes of one warp, followed back
through the integer arithmetic ptxas emits, so the memory analyses can count the sectors and
banks one warp-wide access touches.

Five modules help it, each with its own docstring: `lane_values` (the values and their
arithmetic), `lane_ops` (what each SASS instruction computes from its operands' values),
`lane_guards` (which lanes run an instruction), `lane_uniform` (which branches send the
whole warp one way) and `lane_calls` (each CALL paired with its return). This one finds the
definitions: backwards through the control-flow graph, the last definition in the block,
else the value at the block's entry, the same along every incoming edge (several reaching
definitions that disagree are unknown, unless they differ by a uniform amount and every
branch choosing between them is warp-uniform: then the warp took one of the paths and the
value is the common lane pattern plus a uniform symbol). At a loop header the value coming
around the back edge must keep the entering value's lanes and change only by a uniform step
(a pointer advanced each iteration); the loop count becomes a symbol. A CALL's return site
takes a register from the calling block alone where the subroutine does not write it
(`sassview.graph.lane_calls`: the CFG's RETURN edges join every call of a subroutine). A
path on which a register has no definition at all is left out of a join (`Undefined`).
Values are computed on demand from the addresses of memory instructions and remembered per
(register, definition); nothing is evaluated that no address reaches.

How it can be wrong: a guarded access, and a guarded definition, takes definitions under its
own guard (the predicate unchanged since, in its block) as unconditional; a register read
where some path leaves it undefined is taken from the paths that define it (a correct program
does not read it along the others); see the other modules for theirs.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sassview.graph import sass_semantics as sem
from sassview.graph.dataflow import Effects, instruction_effects
from sassview.graph.lane_calls import Body
from sassview.graph.lane_guards import ActiveLanes
from sassview.graph.lane_ops import PARSED, parse_address, result
from sassview.graph.lane_values import (
    DEFAULT_BLOCK,
    WARP,
    BlockShape,
    Inexact,
    LaneValue,
    Undefined,
    Unknown,
    Value,
    Wrap,
    add,
    block_too_large,
    const,
    gcd_step,
    instances,
    lane_ids,
    nonnegative,
    parse_block,
    scale,
    symbol,
    times_uniform,
)
from sassview.ir import Operand, OperandKind, SassInstruction

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph
    from sassview.graph.loops import Loop

_NTID = {0x0: "x", 0x4: "y", 0x8: "z"}
_Context = tuple[str, bool, int, int]  # guard, negated, block, the predicate's last definition
_Key = tuple[str, str, int, "_Context | None"]  # (kind, register, index, context)
# A (block, register) scan reads at least this many instructions on: a chunk per question
# would cost more in set-up than the few instructions between two accesses.
_AHEAD = 256
# Definitions followed back at most this deep (each level is a few Python frames).
_MAX_DEPTH = 80


class WarpModel:
    """Lane values of one kernel's registers, computed on demand and remembered.

    `address(index)` evaluates the address operand of the memory instruction at that index;
    the registers it reads are followed back through their definitions (see the module
    docstring).
    """

    def __init__(
        self,
        instructions: Sequence[SassInstruction],
        cfg: ControlFlowGraph,
        loops: Sequence[Loop],
        block: BlockShape = DEFAULT_BLOCK,
        effects: Sequence[Effects] | None = None,
    ) -> None:
        self._ins = instructions
        self._cfg = cfg
        self._block = block
        self._latches: dict[int, frozenset[int]] = {
            lp.header: frozenset(lp.latches) for lp in loops
        }
        self._ids = lane_ids(block)
        self._memo: dict[_Key, Value] = {}  # (kind, reg, index) -> value
        self._journal: list[_Key] = []
        self._cycles = 0  # cycles met (a definition asked while being computed), see _merge
        self._active: set[tuple[str, int]] = set()
        # (block, register) -> [first index not yet scanned, the definitions before it, the
        # block's first index, the register's bit, the definition `access` read last and
        # its value]
        self._scans: dict[tuple[int, str], list[Any]] = {}
        self._defs: dict[int, list[int]] = {}  # block -> what each instruction writes (bits)
        self._kernel_effects = effects  # instruction_effects of the kernel, when known
        self._body = Body(cfg)  # calls paired with their returns (lane_calls)
        self._site_writes: dict[int, int] = {}  # return site -> what its subroutine writes
        self._depth = 0
        self._ctx: _Context | None = None  # the guarded access being evaluated, if any
        self._guards = ActiveLanes(self, instructions, cfg, self._latches, block, self._body)
        self._cur = (1, 0, -1)  # (first, last, index) of the block `access` asked last

    # -- addresses -------------------------------------------------------------------------

    def address(self, index: int, operand: Operand) -> Value:
        """Each lane's byte address of a memory operand ([R2.64+0x10], [R0.X4+UR4])."""
        base, offset = self.address_parts(index, operand)
        if isinstance(base, Unknown) or not offset:
            return base
        return base._replace(lanes=tuple(map(offset.__add__, base.lanes)))

    def access(self, index: int, operand: Operand) -> tuple[int, Value, int]:
        """(`active(index)`, *`address_parts(index, operand)`) of a memory access, the common
        case (no guard, one register: [R2.64+0x100]) answered without the general path's
        calls: the block found once for both questions, the definition looked up in the
        (block, register) scan directly, and the value of the definition the register's
        last access read taken again without a memo key. The memory analyses ask this once
        per access. Measured with benchmarks/bench_coalescing.py on the 65k benchmark (32k
        accesses, CPU, best of 7): with the loop of coalescing's measure tightened, the
        measure went 0.182 -> 0.150 s; the definition kept per register and the kernel's
        register effects taken from the inspection, 0.121 -> 0.087 s."""
        ins = self._ins[index]
        parsed = PARSED.get(operand.text)
        if parsed is None:
            parsed = parse_address(operand.text)
        if ins.guard is not None or self._ctx is not None or isinstance(parsed, str):
            return (self.active(index), *self.address_parts(index, operand))
        terms, offset = parsed
        if len(terms) != 1 or terms[0][1] != 1:
            return (self.active(index), *self.address_parts(index, operand))
        cur = self._cur
        if not cur[0] <= index <= cur[1]:
            block = self._cfg.block_of_index(index)
            cur = self._cur = (block.first, block.last, block.index)
        b = cur[2]
        mask = self._guards.plain.get(b)
        if mask is None:
            mask = self.active(index)
        reg = terms[0][0]
        state = self._scans.get((b, reg))
        if state is None or index > state[0]:
            d = self._last_def(reg, b, index)
            state = self._scans[b, reg]
        else:
            found = state[1]
            k = bisect.bisect_left(found, index)
            d = found[k - 1] if k else -1
        if d == state[4]:  # the definition the last access of this register read
            v = state[5]
        else:
            v = self._entry(reg, b) if d < 0 else self._defined(reg, d)
            state[4], state[5] = d, v  # asked here, outside any guard: final values
        return (mask, v, 0) if isinstance(v, Unknown) else (mask, v, offset)

    def address_parts(self, index: int, operand: Operand) -> tuple[Value, int]:
        """`address` as (the registers' part, the constant offset): the accesses of unrolled
        code share one base value at many offsets, and what depends on the offset is cheap."""
        parsed = parse_address(operand.text)
        if isinstance(parsed, str):
            return Unknown(parsed, self._ins[index].address), 0
        terms, offset = parsed
        outer = self._ctx
        if outer is None and self._ins[index].guard is None:
            # The common case, taken first: no guard, so no context to set and restore, and
            # mostly one register ([R2.64+0x100]), whose value is the address's.
            if len(terms) == 1 and terms[0][1] == 1:
                v = self.before(terms[0][0], index)
                return (v, 0) if isinstance(v, Unknown) else (v, offset)
            return self._sum(terms, offset, index)
        self._ctx = self._context(index)
        try:
            return self._sum(terms, offset, index)
        finally:
            self._ctx = outer

    def _context(self, index: int) -> _Context | None:
        """What a guarded access's values depend on: its guard, its block, and where the
        guard's predicate was last set (definitions under the same guard after that run in
        every lane the access runs in). None for an access without a guard."""
        ins = self._ins[index]
        guard = ins.guard
        if guard is None or guard.index is None:
            return None
        b = self._cfg.block_of_index(index).index
        return str(guard), ins.guard_negated, b, self._last_def(str(guard), b, index)

    def _sum(
        self, terms: tuple[tuple[str, int], ...], offset: int, index: int
    ) -> tuple[Value, int]:
        total: LaneValue | None = None
        for name, k in terms:
            v = self.before(name, index)
            if isinstance(v, Unknown):
                return v, 0
            if k != 1:
                v = scale(v, k)
            total = v if total is None else add(total, v)
        return (const(0) if total is None else total), offset

    # -- active lanes ----------------------------------------------------------------------

    def active(self, index: int) -> int:
        """The lanes (bit l: lane l) of the warp that run the instruction at `index`
        (see `sassview.graph.lane_guards`)."""
        return self._guards.active(index)

    def _predicate(self, pred: str, index: int) -> int | None:
        """Predicate `pred` just before `index`, lane by lane, where known."""
        return self._guards.predicate(pred, index)

    # -- definitions -----------------------------------------------------------------------

    def before(self, reg: str, index: int) -> Value:
        """The value of register `reg` (R5, UR4) just before the instruction at `index`."""
        b = self._cfg.block_of_index(index).index
        return self._in_block(reg, b, index)

    def _in_block(self, reg: str, b: int, index: int) -> Value:
        """`reg` just before `index` (an index in block b, or one past its last)."""
        d = self._last_def(reg, b, index)
        return self._defined(reg, d) if d >= 0 else self._entry(reg, b)

    def _last_def(self, reg: str, b: int, index: int) -> int:
        """The last instruction of block b before `index` that writes `reg`, or -1. Each
        (block, register) is scanned forward once, in chunks of at least _AHEAD
        instructions, resuming where the last chunk ended; every question is a bisection in
        what the scans found."""
        key = (b, reg)
        state = self._scans.get(key)
        if state is None:
            block = self._cfg.blocks[b]
            first = block.first
            state = self._scans[key] = [first, [], first, _BITS.get(reg, 0), None, None]
        found = state[1]
        if index > state[0]:
            self._scan(state, b, index)
        k = bisect.bisect_left(found, index)
        return found[k - 1] if k else -1

    def _scan(self, state: list[Any], b: int, index: int) -> None:
        """Scan (block, register) `state` forward past `index`: a comprehension over a chunk
        of the block's definition bits, not a loop per question (a comprehension costs
        ~35 ns an instruction; on the 65k benchmark the change alone was within the noise,
        0.18 s either way, but every question is now one bisection in C)."""
        pos, found, first, bit = state[:4]
        defs = self._defs.get(b)
        if defs is None:
            defs = self._block_defs(b)
        stop = min(max(index, pos + _AHEAD), first + len(defs))
        found.extend([j for j, x in enumerate(defs[pos - first : stop - first], pos) if x & bit])
        state[0] = stop  # mutable state: no tuple rebuilt per question

    def _block_defs(self, b: int) -> list[int]:
        """What each instruction of block b writes (sass_semantics bits), remembered."""
        block = self._cfg.blocks[b]
        if self._kernel_effects is not None:
            effects = self._kernel_effects[block.first : block.last + 1]
        else:
            effects = instruction_effects(self._ins[block.first : block.last + 1])
        defs = self._defs[b] = [e[0] for e in effects]
        return defs

    def _after_call(self, reg: str, b: int) -> Sequence[int] | Unknown:
        """The predecessors of block b to take `reg` from: at the return site of a CALL, the
        calling block alone where the subroutine does not write `reg`, else why not
        (`sassview.graph.lane_calls`); elsewhere all of them."""
        site = self._body.sites.get(b)
        if site is None:
            return self._cfg.blocks[b].predecessors
        if self.subroutine_writes(b) & _BITS.get(reg, -1):
            call = self._ins[self._cfg.blocks[site.call].last].address
            return Unknown(
                f"{reg} is written by the subroutine called at /*{call:04x}*/ (its value "
                "after the call is not followed)",
                call,
            )
        return self._body.predecessors(b)

    def subroutine_writes(self, site: int) -> int:
        """The registers (bits) the subroutine called before return site `site` writes."""
        writes = self._site_writes.get(site)
        if writes is None:
            blocks = self._body.sites[site].subroutine
            writes = 0
            for s in blocks:
                for x in self._defs.get(s) or self._block_defs(s):
                    writes |= x
            self._site_writes[site] = writes
        return writes

    def _remember(self, key: _Key, value: Value) -> Value:
        self._memo[key] = value
        self._journal.append(key)
        return value

    def _defined(self, reg: str, d: int) -> Value:
        key = ("same-guard" if self._same_guard(d) else "def", reg, d, self._ctx)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        ins = self._ins[d]
        if self._depth > _MAX_DEPTH:
            return Unknown(f"{reg}: its definition is too far back to follow", ins.address)
        self._depth += 1
        try:
            value = self._definition(reg, d) if key[0] == "def" else result(self, reg, d, ins)
        except Inexact as e:
            value = Unknown(f"{ins.mnemonic}: {e}", ins.address)
        finally:
            self._depth -= 1
        return self._remember(key, value)

    def _same_guard(self, d: int) -> bool:
        """Whether the definition at `d` runs under the guard of the access being evaluated
        (`@!P1 MOV R8, R16` then `@!P1 LDG [R8.64]`), in its block, after the predicate's last
        definition: in every lane where the access runs, so did the definition."""
        ctx = self._ctx
        ins = self._ins[d]
        if ctx is None or ins.guard is None:
            return False
        guard, negated, block, predicate_def = ctx
        if str(ins.guard) != guard or ins.guard_negated != negated or d <= predicate_def:
            return False
        return self._cfg.block_of_index(d).index == block

    def _definition(self, reg: str, d: int) -> Value:
        ins = self._ins[d]
        guard = ins.guard
        if guard is None or (guard.index is None and not ins.guard_negated):
            return result(self, reg, d, ins)
        # Where the predicate holds, the value is computed from operands that definitions
        # under the same predicate set (`@P0 MOV R11, 0x400; @P0 LEA R15, R16, R11, 0x18`):
        # in the definition's own context, as a guarded access's (see `_same_guard`).
        outer = self._ctx
        self._ctx = self._context(d)
        try:
            value = result(self, reg, d, ins)
        finally:
            self._ctx = outer
        # Under a predicate: where it is false the register keeps its previous value.
        b = self._cfg.block_of_index(d).index
        before = self._in_block(reg, b, d)
        return self._merge(reg, [value, before], ins.address)

    def _entry(self, reg: str, b: int) -> Value:
        key = ("in", reg, b, self._ctx)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        block = self._cfg.blocks[b]
        start = self._ins[block.first].address
        if (reg, b) in self._active:
            self._cycles += 1
            return Unknown(f"{reg}: a cycle into /*{start:04x}*/ that is no loop", start)
        preds = self._after_call(reg, b)
        if isinstance(preds, Unknown):
            return self._remember(key, preds)
        if not preds:
            return self._remember(key, Undefined(f"{reg} has no definition", start))
        if self._depth > _MAX_DEPTH:
            return Unknown(f"{reg}: its definition is too far back to follow", start)
        self._active.add((reg, b))
        self._depth += 1
        try:
            latches = self._latches.get(b)
            if latches:
                value = self._loop_entry(reg, b, preds, latches)
            else:
                value = self._merge(reg, [self._at_end(reg, p) for p in preds], start, b)
        except Inexact as e:
            value = Unknown(f"{reg}: {e}", start)
        finally:
            self._active.discard((reg, b))
            self._depth -= 1
        return self._remember(key, value)

    def _at_end(self, reg: str, p: int) -> Value:
        return self._in_block(reg, p, self._cfg.blocks[p].last + 1)

    def _loop_entry(
        self, reg: str, header: int, preds: Sequence[int], latches: frozenset[int]
    ) -> Value:
        """A loop header: the entering value, with its uniform part advanced each iteration."""
        start = self._ins[self._cfg.blocks[header].first].address
        entering = self._merge(
            reg, [self._at_end(reg, p) for p in preds if p not in latches], start, header
        )
        if isinstance(entering, Unknown):
            return entering
        counter = f"iteration@{start:04x}:{reg}"
        guess = add(entering, symbol(counter))
        key = ("in", reg, header, self._ctx)
        mark = len(self._journal)
        self._memo[key] = guess
        # Around the back edges the walk meets the blocks between the header and the access
        # again (a join inside the body, where the question started): with the header's value
        # guessed, those are no cycle (one that is none passes the header and stops at the
        # guess), so the blocks being computed outside are not the ones met inside.
        outside, self._active = self._active, set()
        try:
            around = [self._at_end(reg, p) for p in preds if p in latches]
        finally:
            self._active = outside
        for k in self._journal[mark:]:  # computed from the guess: recomputed on demand
            self._memo.pop(k, None)
        del self._journal[mark:]
        self._memo.pop(key, None)
        if all(v == guess for v in around):
            return entering  # not changed in the loop
        step = 0
        names: set[str] = set()
        forward = True
        for v in around:
            if isinstance(v, Unknown):
                return v
            diff = add(v, scale(guess, -1))
            if not diff.uniform:
                return Unknown(f"{reg} changes differently in each lane around the loop", start)
            step = gcd_step(step, diff)
            names.update(sym for sym, _ in diff.terms)
            forward = forward and nonnegative(diff)
        # The count of steps is not negative where no step is (a loop counting up: see
        # lane_values.nonnegative), else any integer (`i -= 32`); a step of run-time size
        # (`i += blockDim.x`) is named in it, so that what it depends on can be said.
        name = counter if forward else f"steps@{start:04x}:{reg}"
        if names:
            name += "*(" + ", ".join(sorted(names)) + ")"
        return add(entering, symbol(name, step or 1))

    def _merge(self, reg: str, values: list[Value], address: int, join: int | None = None) -> Value:
        """One value out of several reaching definitions: they must agree (or all be uniform
        values of a uniform register, which holds one value per warp whatever the path); at
        a join (block `join`) that the whole warp reaches along one path, they may differ by
        a uniform amount (`_uniform_join`)."""
        first = values[0]
        if all(v == first for v in values[1:]):
            return first
        defined = [v for v in values if not isinstance(v, Undefined)]
        if defined and len(defined) < len(values):  # paths the read is not reached by
            return self._merge(reg, defined, address, join)
        for v in values:
            if isinstance(v, Unknown):
                return v
        if reg.startswith("UR"):
            return symbol(f"{reg}@{address:04x}")
        if join is not None:
            merged = self._uniform_join(reg, values, join, address)
            if merged is not None:
                return merged
        return Unknown(
            f"{reg} has reaching definitions that disagree (at /*{address:04x}*/)", address
        )

    def _uniform_join(
        self, reg: str, values: list[Value], join: int, address: int
    ) -> LaneValue | None:
        """The definitions reaching `join` as one value, where they differ only by a uniform
        amount (the same lane pattern: a pointer after the unrolled loop or after its
        remainder loop) and every branch between `join`'s immediate dominator and `join` is
        warp-uniform (`ActiveLanes.uniform_branches`): the warp then took one path, so the
        value is that path's, its lanes the common pattern and its uniform part a symbol."""
        lanes = [v for v in values if isinstance(v, LaneValue)]
        if len(lanes) != len(values) or any(v.wrap is not None for v in lanes):
            return None
        first = lanes[0]
        step = 0
        for v in lanes[1:]:
            diff = add(v, scale(first, -1))
            if not diff.uniform or diff.scaled:
                return None
            step = gcd_step(step, diff)
        mark, cycles = len(self._journal), self._cycles
        uniform = self._guards.uniform_branches(join, reg)
        if self._cycles != cycles:
            # The branches' operands led back into a definition being computed: what was
            # remembered meanwhile rests on that cycle's unknown; forget it (recomputed when
            # asked again, outside the cycle).
            for key in self._journal[mark:]:
                self._memo.pop(key, None)
            del self._journal[mark:]
        if not uniform:
            return None
        # From the least of them when one is (a loop's index after it ran or not): the
        # symbol, the paths' count of steps, is then not negative (lane_values.nonnegative).
        for least in lanes:
            if all(nonnegative(add(v, scale(least, -1))) for v in lanes):
                return add(least, symbol(f"paths@{address:04x}:{reg}", step or 1))
        return add(first, symbol(f"{reg}@{address:04x}", step or 1))

    # -- operations ------------------------------------------------------------------------

    def _operand(self, op: Operand, d: int) -> Value:
        kind = op.kind
        if kind is OperandKind.IMMEDIATE:
            if isinstance(op.value, int):
                return const(op.value)
            return Unknown(f"{op.text}: not an integer", self._ins[d].address)
        if kind is OperandKind.REGISTER:
            reg = op.registers[0]
            if reg.file in ("P", "UP"):
                return Unknown(f"{op.text}: predicates are not followed", self._ins[d].address)
            if reg.is_zero:
                return const(0)
            rest = op.text.lstrip("-|~").rstrip("|").split(".")[1:]
            if any(s not in ("64", "reuse") for s in rest) or op.absolute:
                return Unknown(f"{op.text}: a part of a register", self._ins[d].address)
            v = self.before(str(reg), d)
            return scale(v, -1) if op.negated and isinstance(v, LaneValue) else v
        if kind is OperandKind.CONSTANT:
            return self._constant(op, d)
        if kind is OperandKind.SPECIAL:
            name = op.text.split(".reuse")[0]
            ids = self._ids.get(name)
            if ids is not None:
                return ids
            if name.startswith(("SR_CTAID", "SR_CgaCtaId", "SR_NTID", "SR_NCTAID", "SR_SWINHI")):
                return symbol(name)
            return Unknown(f"{name} is not modelled", self._ins[d].address)
        return Unknown(f"operand {op.text!r} is not modelled", self._ins[d].address)

    def _constant(self, op: Operand, d: int) -> Value:
        regs = [r for r in op.registers if not r.is_zero]
        if regs:
            for r in regs:
                v = self.before(str(r), d)
                if isinstance(v, Unknown) or not v.uniform:
                    return Unknown(f"{op.text}: a constant indexed per lane", self._ins[d].address)
            return symbol(f"{op.text}@{self._ins[d].address:04x}")
        offset = op.offset or 0
        if op.bank == 0 and offset in _NTID:
            dim = _NTID[offset]
            size = getattr(self._block, dim)
            if self._block.known and size is not None:
                return const(size)
            return symbol(f"ntid.{dim}")
        return symbol(f"c[{op.bank:#x}][{offset:#x}]")

    def _values(self, srcs: Sequence[Operand], d: int) -> list[Value]:
        return [self._operand(op, d) for op in srcs]


def _bit_names() -> list[str]:
    names = [""] * (max(sem.FILE_BASE.values()) + 256)
    for file, base in sem.FILE_BASE.items():
        for i in range(sem.FILE_SIZE[file]):
            names[base + i] = f"{sem.FILE_PREFIX[file]}{i}"
    return names


_BIT_NAMES = _bit_names()
_BITS = {name: 1 << i for i, name in enumerate(_BIT_NAMES) if name}


__all__ = [  # the values, for the modules that read the model's answers
    "DEFAULT_BLOCK",
    "WARP",
    "BlockShape",
    "LaneValue",
    "Unknown",
    "Value",
    "WarpModel",
    "Wrap",
    "add",
    "const",
    "instances",
    "lane_ids",
    "block_too_large",
    "parse_block",
    "scale",
    "symbol",
    "times_uniform",
]
