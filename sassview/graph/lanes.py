"""The warp model: the value of a register in each of the 32 lanes of one warp, followed back
through the integer arithmetic ptxas emits, so the memory analyses can count the sectors and
banks one warp-wide access touches.

A value is a `LaneValue`: a warp-uniform symbolic part (a sum of symbols with integer
coefficients: kernel parameters `c[0x0][0x160]`, `SR_CTAID.X`, uniform registers, loop
iterations, products of those) plus 32 concrete integers, one per lane. Lane-varying values
start at `S2R SR_TID.X/Y/Z` and `SR_LANEID`; what decides sectors and banks is the difference
between lanes, in which the uniform part cancels. Followed exactly: MOV, IADD3, IMAD (with
.WIDE, .SHL, .MOV, .IADD), LEA (and LEA.HI on concrete values), SHF, LOP3 (any LUT: AND, OR,
XOR swizzles), SGXT on concrete lanes, SEL of equal values or by a lane-exact predicate
(USEL of uniform values), the half-float constant moves
(`HFMA2.MMA R5, -RZ, RZ, 0, 2.38e-07`), constants, and the `[R2.64+UR4+0x10]` / `[R0.X4]`
address forms; the uniform registers' own U* forms alike. Any other operation whose register
inputs are all uniform gives a uniform result (a fresh symbol; a LOP3's keeps the low bits it
is known to clear, so a lane index ORed in below them stays exact); a load from a uniform
address too. The high half of an
`IMAD.WIDE.U32` of concrete lanes (ptxas' division by a constant: `x / 3` is the high word of
x * 0xaaaaaaab, shifted) is exact.

A mask or modulo by a power of two of a value with a run-time part (`(threadIdx.x + r) % 256`,
`LOP3 R0, R0, 0x3fc, RZ, 0xc0`) keeps a `Wrap`: the lanes for one residue of the run-time
part modulo the ring, and what it takes to get them for any other (`instances`), so the
analyses count every residue and say unknown where the counts differ. A value so wrapped may
be added to, scaled and shifted left; anything else on it is unknown.

A lane-varying value times a uniform symbol (`x * K`, K a kernel parameter) keeps the symbol's
per-lane multiplier (`scaled`): a stride known only at run time, which the coalescing analysis
counts under a stated condition on the symbol. Everything else is `Unknown`, with the reason:
a value loaded from a lane-varying address (a gather), an operation not modelled, several
reaching definitions that disagree. Never a guess.

Definitions are found backwards through the control-flow graph: the last definition in the
block, else the value at the block's entry, the same along every incoming edge. At a loop
header the value coming around the back edge must keep the entering value's lanes and change
only by a uniform step (a pointer advanced each iteration); the loop count becomes a symbol.

How it can be wrong: integers are unbounded (32-bit wraparound and the sign of .U32 forms are
not modelled); a 64-bit value is tracked whole in its low register, so a carry chain
(`IADD3 R2, P0, ...` then `IADD3.X R3, ...`) stands for its sum and a truncation to the low
half is not seen; a guarded access takes definitions under its own guard (the predicate
unchanged since, in its block) as unconditional. Which lanes run an access (`active`) follows
the predicates that compare lane values exactly (`ISETP ... R0(tid), 0xf` under `@P0 EXIT`,
a branch or the access's own guard); a comparison with a run-time value (a bounds check,
`i < n`) leaves every lane running, as it does in all but the last block; a loop is taken
to run alike in every lane of the warp (a warp-uniform trip count); the lanes are those of
the block's first warp, the others being taken as shifted by a uniform amount (true when the
block's x extent is a multiple or a divisor of 32).
"""

from __future__ import annotations

import bisect
import math
import operator
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from sassview.graph import sass_semantics as sem
from sassview.graph.dataflow import instruction_effects
from sassview.ir import Operand, OperandKind, SassInstruction
from sassview.memo import Memo

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph
    from sassview.graph.loops import Loop

WARP = 32
_ZEROS = (0,) * WARP
_MASK32 = 0xFFFFFFFF


class LaneValue(NamedTuple):
    """Σ coefficient·symbol (the same in every lane) + lanes[l] (lane l's own part). A
    NamedTuple for speed: a big kernel makes one or more per memory access."""

    terms: tuple[tuple[str, int], ...]  # sorted by symbol, no zero coefficients
    lanes: tuple[int, ...]  # WARP integers
    # Σ symbol·multiplier[l]: a run-time stride (a lane index times a kernel parameter, as in
    # A[x*K + k]); sorted by symbol, each multiplier lane-varying (a uniform one is a term).
    scaled: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # A value modulo a ring whose position depends on a run-time residue (see Wrap).
    wrap: Wrap | None = None

    @property
    def uniform(self) -> bool:
        wrap = self.wrap
        if wrap is not None and wrap.base.count(wrap.base[0]) != WARP:
            return False
        return not self.scaled and self.lanes.count(self.lanes[0]) == WARP

    @property
    def concrete(self) -> bool:
        return not self.terms and not self.scaled and self.wrap is None

    @property
    def alignment_bits(self) -> int:
        """k such that 2^k divides every coefficient of the symbolic part (64 when none)."""
        k = 64
        for _, c in self.terms:
            k = min(k, (c & -c).bit_length() - 1)
        return k

    def __str__(self) -> str:
        parts = [f"{c}*{s}" if c != 1 else s for s, c in self.terms]
        if self.uniform:
            parts.append(str(self.lanes[0]))
        else:
            parts.append("lanes(" + ",".join(map(str, self.lanes[:4])) + ",...)")
        return " + ".join(parts)


class Wrap(NamedTuple):
    """`coefficient` * ((base[l] + t) mod modulus) is part of lane l's value, for a run-time
    residue t (the symbolic part `residue` modulo `modulus`, a multiple of `step`); the
    value's `lanes` hold it for t = 0. `instances` gives the lanes for every t."""

    modulus: int
    step: int
    residue: str
    base: tuple[int, ...]
    coefficient: int


class _Inexact(Exception):
    """Two different wraps met in one sum: the value is not followed (becomes Unknown)."""


class Unknown(NamedTuple):
    """Why a value could not be followed; `address`: the instruction the reason is about."""

    reason: str
    address: int | None = None


Value = LaneValue | Unknown


@dataclass(frozen=True, slots=True)
class BlockShape:
    """The thread block the lanes are taken from. `source`: where the shape came from
    (".reqntid", "--block", or "default": 32 consecutive threadIdx.x, y and z unknown)."""

    x: int | None = None
    y: int | None = None
    z: int | None = None
    source: str = "default"

    @property
    def known(self) -> bool:
        return self.x is not None

    @property
    def threads(self) -> int:
        return (self.x or WARP) * (self.y or 1) * (self.z or 1)

    @property
    def active_lanes(self) -> int:
        return min(WARP, self.threads) if self.known else WARP

    def describe(self) -> str:
        if not self.known:
            why = "no --block" if self.source == "default" else f"no --block; {self.source}"
            return f"one warp of 32 consecutive threadIdx.x ({why})"
        return f"one warp of a {self.x}x{self.y}x{self.z} block (from {self.source})"


DEFAULT_BLOCK = BlockShape()


def parse_block(text: str) -> BlockShape | None:
    """'16x16' or '256' or '8x8x4' -> a BlockShape from the command line; None if malformed."""
    parts = text.lower().split("x")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        return None
    dims = [int(p) for p in parts] + [1] * (3 - len(parts))
    return BlockShape(dims[0], dims[1], dims[2], "--block")


def const(value: int) -> LaneValue:
    return LaneValue((), (value,) * WARP)


def symbol(name: str, coefficient: int = 1) -> LaneValue:
    return LaneValue(((name, coefficient),), _ZEROS)


def add(a: LaneValue, b: LaneValue) -> LaneValue:
    if not b.terms:
        terms = a.terms
    elif not a.terms:
        terms = b.terms
    else:
        merged = dict(a.terms)
        for s, c in b.terms:
            merged[s] = merged.get(s, 0) + c
        terms = tuple(sorted((s, c) for s, c in merged.items() if c))
    lanes = tuple(map(operator.add, a.lanes, b.lanes))
    wrap = a.wrap or b.wrap
    if a.wrap is not None and b.wrap is not None:
        wrap = _join_wraps(a.wrap, b.wrap)
    if not a.scaled and not b.scaled:
        return LaneValue(terms, lanes, (), wrap)
    return _with_scaled(terms, lanes, [*a.scaled, *b.scaled])._replace(wrap=wrap)


def _join_wraps(a: Wrap, b: Wrap) -> Wrap | None:
    """The sum of two wrapped parts: one ring's coefficients add (a difference of a value
    with itself cancels); two rings are not followed."""
    if a[:4] != b[:4]:
        raise _Inexact("a sum of two values wrapped modulo different rings")
    c = a.coefficient + b.coefficient
    return a._replace(coefficient=c) if c else None


def _with_scaled(
    terms: tuple[tuple[str, int], ...],
    lanes: tuple[int, ...],
    scaled: list[tuple[str, tuple[int, ...]]],
) -> LaneValue:
    """A value with run-time strides, summed by symbol; a multiplier that came out the same in
    every lane moves to the terms."""
    merged: dict[str, tuple[int, ...]] = {}
    for sym, vec in scaled:
        held = merged.get(sym)
        merged[sym] = vec if held is None else tuple(map(operator.add, held, vec))
    kept = []
    extra: list[tuple[str, int]] = []
    for sym, vec in sorted(merged.items()):
        if vec.count(vec[0]) == WARP:
            if vec[0]:
                extra.append((sym, vec[0]))
        else:
            kept.append((sym, vec))
    value = LaneValue(terms, lanes, tuple(kept))
    for sym, c in extra:
        value = add(value, symbol(sym, c))
    return value


def scale(a: LaneValue, k: int) -> LaneValue:
    if k == 0:
        return const(0)
    scaled = tuple((s, tuple([x * k for x in v])) for s, v in a.scaled)
    wrap = a.wrap._replace(coefficient=a.wrap.coefficient * k) if a.wrap is not None else None
    terms = tuple((s, c * k) for s, c in a.terms)
    return LaneValue(terms, tuple([x * k for x in a.lanes]), scaled, wrap)


def instances(value: LaneValue, granule: int, limit: int = 1024) -> list[tuple[int, ...]] | None:
    """The lanes of `value` for every residue its wrap allows, the run-time part taken, as
    every symbolic part of an address, to be a multiple of `granule` bytes (32 for global
    sectors, 4 for shared banks); [value.lanes] without a wrap; None when there are more than
    `limit` residues to try."""
    w = value.wrap
    if w is None:
        return [value.lanes]
    c = abs(w.coefficient)
    step = math.lcm(w.step, granule // math.gcd(c, granule))
    if w.modulus // step > limit:
        return None
    out = []
    for t in range(0, w.modulus, step):
        moved = [w.coefficient * ((b + t) % w.modulus - b) for b in w.base]
        out.append(tuple(map(operator.add, value.lanes, moved)))
    return out


def lane_ids(block: BlockShape) -> dict[str, LaneValue]:
    """SR_TID.X/Y/Z and SR_LANEID in each lane of the block's first warp."""
    lanes = tuple(range(WARP))
    if not block.known:
        return {
            "SR_TID.X": LaneValue((), lanes),
            "SR_TID.Y": symbol("SR_TID.Y"),
            "SR_TID.Z": symbol("SR_TID.Z"),
            "SR_LANEID": LaneValue((), lanes),
        }
    x, y = block.x or 1, block.y or 1
    return {
        "SR_TID.X": LaneValue((), tuple(t % x for t in lanes)),
        "SR_TID.Y": LaneValue((), tuple((t // x) % y for t in lanes)),
        "SR_TID.Z": LaneValue((), tuple(t // (x * y) for t in lanes)),
        "SR_LANEID": LaneValue((), lanes),
    }


# An address term: a register with its suffixes (.64 .X4 .U32 .reuse), or an integer.
_TERM = re.compile(r"^(-?)(U?R(?:\d+|Z))((?:\.\w+)*)$")
_SCALE = {"X4": 4, "X8": 8, "X16": 16}
_UNIFORM_ONLY = frozenset({"S2R", "S2UR", "CS2R", "SHFL", "VOTE", "VOTEU", "MATCH", "P2R", "R2P"})
_LOADS = frozenset({"LDG", "LD", "LDS", "LDL", "LDSM", "ATOM", "ATOMG", "ATOMS", "LDC", "ULDC"})
_LOADS |= {"LDCU", "ATOMS"}
_NTID = {0x0: "x", 0x4: "y", 0x8: "z"}
_Context = tuple[str, bool, int, int]  # guard, negated, block, the predicate's last definition
_Key = tuple[str, str, int, "_Context | None"]  # (kind, register, index, context)
_ALL = (1 << WARP) - 1
# ISETP's comparisons, as a test of (a - b) in one lane.
_COMPARE: Mapping[str, Callable[[int], bool]] = {
    "LT": lambda x: x < 0,
    "LE": lambda x: x <= 0,
    "GT": lambda x: x > 0,
    "GE": lambda x: x >= 0,
    "EQ": lambda x: x == 0,
    "NE": lambda x: x != 0,
}
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
        self._active: set[tuple[str, int]] = set()
        # (block, register) -> [first index not yet scanned, the definitions before it, the
        # block's first index, the register's bit]
        self._scans: dict[tuple[int, str], list[Any]] = {}
        self._effects: dict[int, list[tuple[int, int, int]]] = {}  # block -> its effects
        self._depth = 0
        self._ctx: _Context | None = None  # the guarded access being evaluated, if any
        self._masks: dict[int, int] = {}  # block -> the lanes entering it (see `active`)
        # block -> (indices of its predicated EXITs, the lanes left after each)
        self._exit_masks: dict[int, tuple[list[int], list[int]]] = {}
        self._plain: dict[int, int] = {}  # block without predicated EXITs -> its lanes
        self._block_lanes = (1 << block.active_lanes) - 1

    # -- addresses -------------------------------------------------------------------------

    def address(self, index: int, operand: Operand) -> Value:
        """Each lane's byte address of a memory operand ([R2.64+0x10], [R0.X4+UR4])."""
        base, offset = self.address_parts(index, operand)
        if isinstance(base, Unknown) or not offset:
            return base
        return base._replace(lanes=tuple(map(offset.__add__, base.lanes)))

    def address_parts(self, index: int, operand: Operand) -> tuple[Value, int]:
        """`address` as (the registers' part, the constant offset): the accesses of unrolled
        code share one base value at many offsets, and what depends on the offset is cheap."""
        parsed = _parse_address(operand.text)
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
        """The lanes (bit l: lane l) of the warp that run the instruction at `index`: those of
        the block (a block smaller than a warp has fewer), less those a lane-exact predicate
        switched off on the way: a predicated EXIT before it, a branch edge into a block
        with one predecessor, the access's own guard. Where a predicate cannot be evaluated
        per lane (it compares with a run-time value), every lane is taken to run."""
        b = self._cfg.block_of_index(index).index
        guard = self._ins[index].guard
        fast = self._plain.get(b)  # the block's one answer, when it has no predicated EXIT
        if fast is not None and (guard is None or guard.index is None):
            return fast  # most accesses of most kernels: no lookup beyond two dict hits
        outer, self._ctx = self._ctx, None
        try:
            mask = self._entry_mask(b) & self._exits(b, index)
            if not self._exit_masks[b][0]:
                self._plain[b] = mask
            if guard is not None and guard.index is not None:
                mask &= self._guard_mask(str(guard), self._ins[index].guard_negated, index)
            return mask
        finally:
            self._ctx = outer

    def _guard_mask(self, pred: str, negated: bool, index: int) -> int:
        lanes = self._predicate(pred, index)
        if lanes is None:
            return _ALL
        return ~lanes & _ALL if negated else lanes

    def _exits(self, b: int, index: int) -> int:
        """The lanes still running at `index` of block b after its predicated EXITs. Each
        block is scanned once (a straight-line kernel is one block of 32k accesses): its
        EXITs' indices and the lanes left after each, then a bisection per question."""
        found = self._exit_masks.get(b)
        if found is None:
            block = self._cfg.blocks[b]
            at: list[int] = []
            left: list[int] = []
            mask = _ALL
            for j in range(block.first, block.last + 1):
                ins = self._ins[j]
                if ins.opcode == "EXIT" and ins.guard is not None and ins.guard.index is not None:
                    mask &= self._guard_mask(str(ins.guard), not ins.guard_negated, j)
                    at.append(j)
                    left.append(mask)
            found = self._exit_masks[b] = (at, left)
        at, left = found
        k = bisect.bisect_left(at, index)  # the EXITs before `index`
        return left[k - 1] if k else _ALL

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
                for p in block.predecessors:
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

    def _predicate(self, pred: str, index: int) -> int | None:
        """Predicate `pred` just before `index`, lane by lane (bit l: true in lane l), where
        an ISETP compares values whose difference is known in every lane; else None."""
        b = self._cfg.block_of_index(index).index
        d = self._last_def(pred, b, index)
        while d < 0:
            preds = self._cfg.blocks[b].predecessors
            if len(preds) != 1:
                return None
            b = preds[0]
            d = self._last_def(pred, b, self._cfg.blocks[b].last + 1)
        ins = self._ins[d]
        if ins.opcode not in ("ISETP", "UISETP") or ins.guard is not None:
            return None
        mods = ins.modifiers
        test = next((_COMPARE[m] for m in mods if m in _COMPARE), None)
        ops = ins.operands
        if test is None or "EX" in mods or len(ops) != 5 or "AND" not in mods:
            return None
        if not (ops[4].registers and ops[4].registers[0].is_zero and not ops[4].negated):
            return None  # combined with another predicate (PT is the one "zero" predicate)
        a, c = self._operand(ops[2], d), self._operand(ops[3], d)
        if isinstance(a, Unknown) or isinstance(c, Unknown):
            return None
        if "U32" in mods and a.concrete and c.concrete:  # -1 is 0xffffffff to an unsigned test
            a = LaneValue((), tuple([x & _MASK32 for x in a.lanes]))
            c = LaneValue((), tuple([x & _MASK32 for x in c.lanes]))
        diff = add(a, scale(c, -1))
        if not diff.concrete:
            return None
        lanes = sum(1 << lane for lane, x in enumerate(diff.lanes) if test(x))
        if str(ops[1].registers[0]) == pred:  # the second destination: the complement
            return ~lanes & _ALL
        return lanes if str(ops[0].registers[0]) == pred else None

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
        (block, register) is scanned forward once, resuming where the last question left it
        (the accesses ask in address order); an earlier index is looked up in what the scan
        found."""
        key = (b, reg)
        state = self._scans.get(key)
        if state is None:
            first = self._cfg.blocks[b].first
            state = self._scans[key] = [first, [], first, _BITS.get(reg, 0)]
        pos, found, first, bit = state
        if index > pos:
            effects = self._effects.get(b)
            if effects is None:
                last = self._cfg.blocks[b].last
                effects = self._effects[b] = instruction_effects(self._ins[first : last + 1])
            # A plain loop, not a generator into extend: the accesses of unrolled code ask
            # one after another, a few instructions apart, and a generator's set-up would
            # cost more than the scan.
            for j in range(pos - first, index - first):
                if effects[j][0] & bit:
                    found.append(j + first)
            state[0] = index  # mutable state: no tuple rebuilt per question
        elif index < pos:  # asked out of order (a loop's latch, a later analysis): look it up
            k = bisect.bisect_left(found, index)
            return found[k - 1] if k else -1
        return found[-1] if found else -1

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
            value = self._definition(reg, d) if key[0] == "def" else self._result(reg, d, ins)
        except _Inexact as e:
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
        value = self._result(reg, d, ins)
        guard = ins.guard
        if guard is None or (guard.index is None and not ins.guard_negated):
            return value
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
            return Unknown(f"{reg}: a cycle into /*{start:04x}*/ that is no loop", start)
        preds = block.predecessors
        if not preds:
            return self._remember(key, Unknown(f"{reg} has no definition", start))
        if self._depth > _MAX_DEPTH:
            return Unknown(f"{reg}: its definition is too far back to follow", start)
        self._active.add((reg, b))
        self._depth += 1
        try:
            latches = self._latches.get(b)
            if latches:
                value = self._loop_entry(reg, b, preds, latches)
            else:
                value = self._merge(reg, [self._at_end(reg, p) for p in preds], start)
        except _Inexact as e:
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
            reg, [self._at_end(reg, p) for p in preds if p not in latches], start
        )
        if isinstance(entering, Unknown):
            return entering
        counter = f"iteration@{start:04x}:{reg}"
        guess = add(entering, symbol(counter))
        key = ("in", reg, header, self._ctx)
        mark = len(self._journal)
        self._memo[key] = guess
        around = [self._at_end(reg, p) for p in preds if p in latches]
        for k in self._journal[mark:]:  # computed from the guess: recomputed on demand
            self._memo.pop(k, None)
        del self._journal[mark:]
        self._memo.pop(key, None)
        if all(v == guess for v in around):
            return entering  # not changed in the loop
        step = 0
        for v in around:
            if isinstance(v, Unknown):
                return v
            diff = add(v, scale(guess, -1))
            if not diff.uniform:
                return Unknown(f"{reg} changes differently in each lane around the loop", start)
            step = _gcd_step(step, diff)
        return add(entering, symbol(counter, step or 1))

    def _merge(self, reg: str, values: list[Value], address: int) -> Value:
        """One value out of several reaching definitions: they must agree (or all be uniform
        values of a uniform register, which holds one value per warp whatever the path)."""
        first = values[0]
        if all(v == first for v in values[1:]):
            return first
        for v in values:
            if isinstance(v, Unknown):
                return v
        if reg.startswith("UR"):
            return symbol(f"{reg}@{address:04x}")
        return Unknown(
            f"{reg} has reaching definitions that disagree (at /*{address:04x}*/)", address
        )

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

    def _result(self, reg: str, d: int, ins: SassInstruction) -> Value:
        """The value instruction `d` writes to `reg`."""
        ops = ins.operands
        dest = next(
            (
                op
                for op in ops
                if op.kind is OperandKind.REGISTER and op.registers[0].file in ("R", "UR")
            ),
            None,
        )
        opcode = ins.opcode
        if dest is None or str(dest.registers[0]) != reg:
            part = _constant_part(ins, dest, reg)
            if part is not None:
                return part
            high = self._wide_high(reg, d, ins, dest)
            if high is not None:
                return high
            if opcode in _LOADS:
                return Unknown(f"{reg} holds data loaded at /*{ins.address:04x}*/", ins.address)
            return Unknown(f"{reg}: the high half of a wider result of {ins.mnemonic}", ins.address)
        srcs = [
            op
            for op in ops[ops.index(dest) + 1 :]
            if not (op.kind is OperandKind.REGISTER and op.registers[0].file in ("P", "UP"))
        ]
        if opcode in _LOADS:
            return self._loaded(reg, d, ins)
        base = opcode[1:] if opcode[0] == "U" and opcode not in ("UMOV",) else opcode
        if opcode == "UMOV":
            base = "MOV"
        exact = _EXACT.get(base)
        if exact is not None and "X" not in ins.modifiers:
            value = exact(self, ins, srcs, d)
            if value is not None:
                return value
        return self._uniform_fallback(reg, d, ins, srcs)

    def _values(self, srcs: Sequence[Operand], d: int) -> list[Value]:
        return [self._operand(op, d) for op in srcs]

    def _wide_high(
        self, reg: str, d: int, ins: SassInstruction, dest: Operand | None
    ) -> Value | None:
        """R3 of `IMAD.WIDE.U32 R2, R4, -0x55555555, RZ`: the high word of a 32x32-bit
        product, exact on concrete lanes (ptxas divides by a constant so: x / 3 is this
        word of x * 0xaaaaaaab, shifted right by 1). None when it is not that."""
        if ins.opcode != "IMAD" or "WIDE" not in ins.modifiers or "U32" not in ins.modifiers:
            return None
        low = dest.registers[0] if dest is not None else None
        if low is None or low.index is None or reg != f"R{low.index + 1}":
            return None
        assert dest is not None
        srcs = ins.operands[ins.operands.index(dest) + 1 :]
        vals = _lv(self._values(srcs, d))
        if isinstance(vals, Unknown) or len(vals) != 3 or not all(v.concrete for v in vals):
            reason = vals.reason if isinstance(vals, Unknown) else None
            return Unknown(
                reason
                or f"{reg}: the high word of {ins.mnemonic} (how ptxas divides by a "
                "constant) of a value with a run-time part",
                ins.address,
            )
        a, b, c = vals
        high = [
            ((x & _MASK32) * (y & _MASK32) + z) >> 32
            for x, y, z in zip(a.lanes, b.lanes, c.lanes, strict=True)
        ]
        return LaneValue((), tuple(high))

    def _uniform_fallback(
        self, reg: str, d: int, ins: SassInstruction, srcs: Sequence[Operand]
    ) -> Value:
        """An operation not followed exactly: uniform inputs give a uniform result."""
        if ins.opcode in _UNIFORM_ONLY and ins.opcode != "S2UR":
            if ins.opcode == "S2R" and srcs:
                return self._operand(srcs[0], d)
            return Unknown(f"{ins.mnemonic} gives each lane its own value", ins.address)
        if ins.opcode == "S2UR":
            return symbol(f"{srcs[0].text if srcs else reg}")
        if any(
            op.kind is OperandKind.REGISTER
            and op.registers[0].file == "P"
            and not op.registers[0].is_zero
            for op in ins.operands
        ):
            return Unknown(f"{ins.mnemonic} depends on a predicate", ins.address)
        for v in self._values(srcs, d):
            if isinstance(v, Unknown):
                return v
            if not v.uniform:
                return Unknown(
                    f"{ins.mnemonic} is not modelled on a lane-varying value", ins.address
                )
        return symbol(f"{reg}@{ins.address:04x}")

    def _loaded(self, reg: str, d: int, ins: SassInstruction) -> Value:
        """A loaded value: uniform when every lane loads from one address."""
        if ins.opcode in ("LDC", "ULDC", "LDCU"):
            op = next((o for o in ins.operands if o.kind is OperandKind.CONSTANT), None)
            if op is not None:
                return self._constant(op, d)
        op = next((o for o in ins.operands if o.kind is OperandKind.MEMORY), None)
        if op is not None:
            where = self.address(d, op)
            if isinstance(where, LaneValue) and where.uniform:
                return symbol(f"{reg}@{ins.address:04x}")
        return Unknown(
            f"the address depends on data loaded at /*{ins.address:04x}*/ (a gather)", ins.address
        )


def _bit_names() -> list[str]:
    names = [""] * (max(sem.FILE_BASE.values()) + 256)
    for file, base in sem.FILE_BASE.items():
        for i in range(sem.FILE_SIZE[file]):
            names[base + i] = f"{sem.FILE_PREFIX[file]}{i}"
    return names


_BIT_NAMES = _bit_names()
_BITS = {name: 1 << i for i, name in enumerate(_BIT_NAMES) if name}
_SIMPLE = re.compile(r"\[(U?R\d+)(?:\.64)?(?:\+(-?0x[0-9a-f]+))?\]$")
_PARSED: Memo[str, tuple[tuple[tuple[str, int], ...], int] | str] = Memo(
    f"{__name__}._PARSED", 50_000
)


def _parse_address(text: str) -> tuple[tuple[tuple[str, int], ...], int] | str:
    """The register terms (name, scale) and constant offset of a memory operand's last
    bracket (desc[UR4][R2.64+0x10] -> ((R2, 1),), 16), or why it is not modelled. Memoised:
    a kernel has many accesses and few operand texts."""
    found = _PARSED.get(text)
    if found is not None:
        return found
    simple = _SIMPLE.search(text)
    if simple is not None:  # [R2.64+0x10], desc[UR4][R2.64+-0x20]: most accesses
        reg, number = simple.groups()
        return ((reg, 1),), int(number, 16) if number else 0
    inner = text[text.rfind("[") + 1 :].rstrip("]")
    terms: list[tuple[str, int]] = []
    offset = 0
    result: tuple[tuple[tuple[str, int], ...], int] | str | None = None
    for term in inner.split("+"):
        term = term.strip()
        if not term:
            continue
        number = _integer(term)
        if number is not None:
            offset += number
            continue
        m = _TERM.match(term)
        if m is None:
            result = f"address term {term!r} is not modelled"
            break
        negative, name, suffixes = m.groups()
        k = 1
        for suffix in suffixes.split(".")[1:]:
            if suffix in _SCALE:
                k = _SCALE[suffix]
            elif suffix not in ("64", "U32", "reuse"):
                result = f"address term {term!r} is not modelled"
        if name not in ("RZ", "URZ"):
            terms.append((name, -k if negative else k))
    if result is None:
        result = (tuple(terms), offset)
    _PARSED[text] = result
    return result


def _constant_part(ins: SassInstruction, dest: Operand | None, reg: str) -> LaneValue | None:
    """`LDC.64 R4, c[0x0][0x228]` loads two parameters: R5 is c[0x0][0x22c] (R4 stands for
    both, a 64-bit pointer, as the pair's value)."""
    if ins.opcode not in ("LDC", "ULDC", "LDCU") or dest is None:
        return None
    low = dest.registers[0]
    op = next((o for o in ins.operands if o.kind is OperandKind.CONSTANT), None)
    if op is None or low.index is None or any(not r.is_zero for r in op.registers):
        return None
    prefix = low.file
    if not reg.startswith(prefix) or not reg[len(prefix) :].isdigit():
        return None
    k = int(reg[len(prefix) :]) - low.index
    if not 0 < k < 4:
        return None
    return symbol(f"c[{op.bank:#x}][{(op.offset or 0) + 4 * k:#x}]")


def _integer(term: str) -> int | None:
    try:
        return int(term, 0)
    except ValueError:
        return None


def _gcd_step(step: int, diff: LaneValue) -> int:
    from math import gcd

    step = gcd(step, diff.lanes[0])
    for _, c in diff.terms:
        step = gcd(step, c)
    return step


def _lv(values: list[Value]) -> list[LaneValue] | Unknown:
    for v in values:
        if isinstance(v, Unknown):
            return v
    return values  # type: ignore[return-value]


def _mul(a: LaneValue, b: LaneValue, ins: SassInstruction) -> Value:
    if a.concrete and a.uniform:
        return scale(b, a.lanes[0])
    if b.concrete and b.uniform:
        return scale(a, b.lanes[0])
    if a.wrap is not None or b.wrap is not None:
        return Unknown(f"{ins.mnemonic}: a product of a wrapped (modulo) value", ins.address)
    if a.concrete and b.concrete:
        return LaneValue((), tuple([x * y for x, y in zip(a.lanes, b.lanes, strict=True)]))
    if a.uniform and b.uniform:
        return symbol(f"({a})*({b})@{ins.address:04x}")
    if a.uniform and not b.scaled:
        return times_uniform(a, b, f"{ins.address:04x}")
    if b.uniform and not a.scaled:
        return times_uniform(b, a, f"{ins.address:04x}")
    which = a if a.terms and not a.uniform or b.uniform else b
    names = ", ".join(s for s, _ in (b if which is a else a).terms) or str(b if which is a else a)
    return Unknown(
        f"the lane stride depends on {names}, a warp-uniform value not known at compile time",
        ins.address,
    )


def times_uniform(u: LaneValue, v: LaneValue, tag: str) -> LaneValue:
    """u·v for a uniform symbolic u (a kernel parameter) and a lane-varying v: the lanes part
    of v times u's symbols are run-time strides; v's own symbols times u, one uniform symbol
    (named with `tag`, the instruction's address)."""
    k = u.lanes[0]
    lanes = tuple([k * x for x in v.lanes])
    value = _with_scaled((), lanes, [(s, tuple([c * x for x in v.lanes])) for s, c in u.terms])
    if v.terms:
        value = add(value, symbol(f"({u})*({LaneValue(v.terms, _ZEROS)})@{tag}"))
    return value


def _shift_left(a: LaneValue, s: LaneValue, ins: SassInstruction) -> Value:
    if not (s.concrete and s.uniform) or not 0 <= s.lanes[0] < 64:
        return Unknown(f"{ins.mnemonic}: a shift by a variable amount", ins.address)
    return scale(a, 1 << s.lanes[0])


def _shift_right(a: LaneValue, s: LaneValue, ins: SassInstruction) -> Value:
    if not (s.concrete and s.uniform) or not 0 <= s.lanes[0] < 64:
        return Unknown(f"{ins.mnemonic}: a shift by a variable amount", ins.address)
    n = s.lanes[0]
    if a.scaled:
        return Unknown(f"{ins.mnemonic}: a right shift of a run-time stride", ins.address)
    if a.wrap is not None:
        return Unknown(f"{ins.mnemonic}: a right shift of a wrapped (modulo) value", ins.address)
    if a.alignment_bits < n:
        if a.uniform:
            return symbol(f"({a})>>{n}@{ins.address:04x}")
        return Unknown(
            f"{ins.mnemonic}: a right shift of a symbolic lane-varying value", ins.address
        )
    return LaneValue(tuple((sym, c >> n) for sym, c in a.terms), tuple([x >> n for x in a.lanes]))


def _lut(lut: int, a: int, b: int, c: int) -> int:
    out = 0
    for i in range(8):
        if lut >> i & 1:
            out |= (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
    return out & _MASK32


def _bitwise(lut: int, vals: list[LaneValue], ins: SassInstruction) -> Value:
    """LOP3 with any LUT: exact on concrete lanes; with a symbolic part, exact when one input
    has one aligned to 2^k, every lane part fits below 2^k and the LUT keeps or clears it."""
    a, b, c = vals
    if any(v.scaled for v in vals):
        return Unknown(f"{ins.mnemonic} on a run-time stride", ins.address)
    if any(v.wrap is not None for v in vals):
        return Unknown(f"{ins.mnemonic} on a wrapped (modulo) value", ins.address)
    if a.concrete and b.concrete and c.concrete:
        return LaneValue(
            (),
            tuple([_lut(lut, x, y, z) for x, y, z in zip(a.lanes, b.lanes, c.lanes, strict=True)]),
        )
    symbolic = [i for i, v in enumerate(vals) if v.terms]
    k = min(32, min(vals[i].alignment_bits for i in symbolic))
    low = (1 << k) - 1
    if len(symbolic) != 1 or any(x < 0 or x > low for v in vals for x in v.lanes):
        if all(v.uniform for v in vals):
            return _uniform_bits(lut, vals, f"lop3@{ins.address:04x}")
        ring = _ring(lut, vals) if len(symbolic) == 1 else None
        if ring is not None:
            return ring
        return Unknown(f"{ins.mnemonic} on a symbolic lane-varying value", ins.address)
    j = symbolic[0]
    keep = [_lut(lut, *(1 if i == j else 0 for i in range(3))) & 1, _lut(lut, 0, 0, 0) & 1]
    lanes = tuple(
        [_lut(lut, x, y, z) & low for x, y, z in zip(a.lanes, b.lanes, c.lanes, strict=True)]
    )
    if keep == [1, 0]:
        return LaneValue(vals[j].terms, lanes)
    if keep == [0, 0]:
        return LaneValue((), lanes)
    return Unknown(f"{ins.mnemonic} sets the high bits of a symbolic value", ins.address)


def _low_zeros(v: LaneValue) -> int:
    """How many low bits of a uniform value are known to be zero."""
    c = v.lanes[0]
    bits = (c & -c).bit_length() - 1 if c else 64
    return min(bits, v.alignment_bits) if v.terms else bits


def _uniform_bits(lut: int, vals: list[LaneValue], name: str) -> LaneValue:
    """A LOP3 of uniform values with a run-time part: a fresh symbol, but times 2^t where its
    low t bits are known to be zero (`(blockIdx.x << 12) & 0xff000`: a multiple of 4096), so
    that a lane index ORed in below them stays exact (CuTe DSL's and Triton's index math)."""
    zeros = [_low_zeros(v) for v in vals]
    t = 0
    while t < 32:
        known = [
            0 if t < z else (v.lanes[0] >> t & 1 if v.concrete else None)
            for v, z in zip(vals, zeros, strict=True)
        ]
        choices = [(b,) if b is not None else (0, 1) for b in known]
        if any(_lut(lut, x, y, z) & 1 for x in choices[0] for y in choices[1] for z in choices[2]):
            break
        t += 1
    return const(0) if t == 32 else symbol(name, 1 << t)


def _ring(lut: int, vals: list[LaneValue]) -> LaneValue | None:
    """`v & m`, m = 2^k - 2^j (0xff, 0x3fc), of a lane-varying v with a run-time part: v's
    low j bits must be zero (a scaled index), so v & m = v mod 2^k, a ring of 2^k whose
    position is v's run-time part modulo 2^k (a Wrap). None when it is not that."""
    j = next(i for i, v in enumerate(vals) if v.terms)
    v = vals[j]
    others = [i for i in range(3) if i != j]
    if v.uniform or not all(vals[i].concrete and vals[i].uniform for i in others):
        return None
    fixed = [w.lanes[0] for w in vals]

    def f(x: int) -> int:
        return _lut(lut, *[x if i == j else fixed[i] for i in range(3)])

    m = f(_MASK32)
    if f(0) != 0 or m == 0 or m == _MASK32:
        return None
    low = m & -m
    modulus = m + low  # m = modulus - low: a run of ones from bit j up to bit k - 1
    if modulus & (modulus - 1) or v.alignment_bits < low.bit_length() - 1:
        return None
    if any(x % low for x in v.lanes):
        return None
    step = 1 << min(v.alignment_bits, modulus.bit_length() - 1)
    if step >= modulus:  # the run-time part is a multiple of the ring: it drops out
        return LaneValue((), tuple([x % modulus for x in v.lanes]))
    base = tuple([x % modulus for x in v.lanes])
    residue = " + ".join(f"{c}*{t}" if c != 1 else t for t, c in v.terms) + f" mod {modulus}"
    return LaneValue((), base, (), Wrap(modulus, step, residue, base, 1))


def _op_mov(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    return m._operand(srcs[0], d) if srcs else None


def _op_add(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    vals = _lv(m._values(srcs, d))
    if isinstance(vals, Unknown):
        return vals
    total = const(0)
    for v in vals:
        total = add(total, v)
    return total


def _op_imad(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    if "HI" in ins.modifiers or len(srcs) != 3:
        return None
    vals = _lv(m._values(srcs, d))
    if isinstance(vals, Unknown):
        return vals
    product = _mul(vals[0], vals[1], ins)
    return product if isinstance(product, Unknown) else add(product, vals[2])


def _op_lea(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    vals = _lv(m._values(srcs, d))
    if isinstance(vals, Unknown):
        return vals
    if "HI" in ins.modifiers:
        if len(vals) != 4:
            return None
        a, b, c, s = vals
        if not (a.concrete and c.concrete and s.concrete and s.uniform):
            return None
        n = 32 - s.lanes[0]
        high = [
            ((z & _MASK32) << 32 | (x & _MASK32)) >> n & _MASK32
            for x, z in zip(a.lanes, c.lanes, strict=True)
        ]
        return add(b, LaneValue((), tuple(high)))
    if len(vals) != 3:
        return None
    shifted = _shift_left(vals[0], vals[2], ins)
    return shifted if isinstance(shifted, Unknown) else add(shifted, vals[1])


def _op_shf(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    mods = ins.modifiers
    vals = _lv(m._values(srcs, d))
    if isinstance(vals, Unknown) or len(vals) != 3:
        return vals if isinstance(vals, Unknown) else None
    lo, s, hi = vals
    if "L" in mods:
        if "HI" in mods or hi != const(0):
            return None
        return _shift_left(lo, s, ins)
    if "R" in mods:
        if "HI" in mods:
            if lo != const(0) or "S32" in mods and not all(x >= 0 for x in hi.lanes):
                return None
            return _shift_right(hi, s, ins)
        if "U64" in mods or "S64" in mods or hi == const(0):
            return _shift_right(lo, s, ins)
    return None


def _op_lop3(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    if "LUT" not in ins.modifiers or len(srcs) != 4 or not isinstance(srcs[3].value, int):
        return None
    vals = _lv(m._values(srcs[:3], d))
    if isinstance(vals, Unknown):
        return vals
    return _bitwise(srcs[3].value, vals, ins)


def _op_sel(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    vals = m._values(srcs[:2], d)
    if len(vals) == 2 and vals[0] == vals[1]:
        return vals[0]
    chosen = _select_by_lane(m, ins, vals, d)
    if chosen is not None:
        return chosen
    if ins.opcode == "USEL" and len(vals) == 2:
        # A uniform predicate picks one of two uniform values for the whole warp (Triton's
        # pipeline stage offsets): a fresh symbol, times the power of two both are multiples
        # of, so the banks and sectors it shifts stay exact.
        picked = _lv(vals)
        if isinstance(picked, Unknown):
            return picked
        if all(v.uniform and not v.scaled and v.wrap is None for v in picked):
            zeros = min(min(_low_zeros(v) for v in picked), 31)
            return symbol(f"usel@{ins.address:04x}", 1 << zeros)
    return Unknown(f"{ins.mnemonic} picks per lane by a predicate", ins.address)


def _select_by_lane(
    m: WarpModel, ins: SassInstruction, vals: list[Value], d: int
) -> LaneValue | None:
    """`SEL R8, RZ, 0x810, !P0` where P0 compares lane values exactly (a bit of threadIdx.x,
    as Triton's swizzles test): each lane takes its own side. Both sides must share their
    run-time part."""
    pred = ins.operands[-1] if ins.operands else None
    if pred is None or not pred.registers or pred.registers[0].file != "P" or len(vals) != 2:
        return None
    a, b = vals
    if isinstance(a, Unknown) or isinstance(b, Unknown) or a.terms != b.terms:
        return None
    if a.scaled or b.scaled or a.wrap is not None or b.wrap is not None:
        return None
    reg = pred.registers[0]
    lanes = _ALL if reg.is_zero else m._predicate(str(reg), d)
    if lanes is None:
        return None
    if pred.text.startswith("!"):
        lanes = ~lanes & _ALL
    pairs = enumerate(zip(a.lanes, b.lanes, strict=True))
    picked = tuple([x if lanes >> n & 1 else y for n, (x, y) in pairs])
    return LaneValue(a.terms, picked)


def _op_hfma2(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    """`HFMA2.MMA R5, -RZ, RZ, hi, lo`: a constant move; the value is two packed halves."""
    if len(srcs) != 4 or not all(op.registers and op.registers[0].is_zero for op in srcs[:2]):
        return None
    halves = []
    for op in srcs[2:]:
        if not isinstance(op.value, int | float):
            return None
        try:
            halves.append(int.from_bytes(struct.pack("<e", float(op.value)), "little"))
        except (OverflowError, struct.error):
            return None
    return const(halves[0] << 16 | halves[1])


def _op_sgxt(m: WarpModel, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    """`SGXT R3, R8, 0x1`: the low n bits of a, sign-extended (`.U32`: zero-extended), on
    concrete lanes; Triton's layouts build per-lane masks so (a bit of threadIdx.x to 0 or -1,
    then ANDed into a swizzle)."""
    vals = _lv(m._values(srcs[:2], d))
    if isinstance(vals, Unknown) or len(vals) != 2:
        return vals if isinstance(vals, Unknown) else None
    a, width = vals
    if not (a.concrete and width.concrete and width.uniform) or not 0 < width.lanes[0] < 32:
        return None
    n = width.lanes[0]
    low = (1 << n) - 1
    signed = "U32" not in ins.modifiers
    out = []
    for x in a.lanes:
        x &= low
        out.append(x - (1 << n) if signed and x >> (n - 1) else x)
    return LaneValue((), tuple(out))


_OpFn = Callable[[WarpModel, SassInstruction, Sequence[Operand], int], "Value | None"]
_EXACT: Mapping[str, _OpFn] = {
    "MOV": _op_mov,
    "IMOV": _op_mov,
    "IADD3": _op_add,
    "IADD": _op_add,
    "VIADD": _op_add,
    "IADD32I": _op_add,
    "IMAD": _op_imad,
    "LEA": _op_lea,
    "SHF": _op_shf,
    "LOP3": _op_lop3,
    "SEL": _op_sel,
    "HFMA2": _op_hfma2,
    "SGXT": _op_sgxt,
}
