"""The warp model: the value of a register in each of the 32 lanes of one warp, followed back
through the integer arithmetic ptxas emits, so the memory analyses can count the sectors and
banks one warp-wide access touches.

A value is a `LaneValue`: a warp-uniform symbolic part (a sum of symbols with integer
coefficients: kernel parameters `c[0x0][0x160]`, `SR_CTAID.X`, uniform registers, loop
iterations, products of those) plus 32 concrete integers, one per lane. Lane-varying values
start at `S2R SR_TID.X/Y/Z` and `SR_LANEID`; what decides sectors and banks is the difference
between lanes, in which the uniform part cancels. Followed exactly: MOV, IADD3, IMAD (with
.WIDE, .SHL, .MOV, .IADD), LEA (and LEA.HI on concrete values), SHF, LOP3 (any LUT: AND, OR,
XOR swizzles), SEL of equal values, the half-float constant moves (`HFMA2.MMA R5, -RZ, RZ, 0,
2.38e-07`), constants, and the `[R2.64+UR4+0x10]` / `[R0.X4]` address forms; the uniform
registers' own U* forms alike. Any other operation whose register inputs are all uniform gives
a uniform result (a fresh symbol); a load from a uniform address too.

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
half is not seen; predicates are not followed: every lane runs every access (a bounds check
that switches lanes off is not seen), except that a guarded access takes definitions under
its own guard (the predicate unchanged since, in its block) as unconditional; a loop is taken
to run alike in every lane of the warp (a warp-uniform trip count); the lanes are those of
the block's first warp, the others being taken as shifted by a uniform amount (true when the
block's x extent is a multiple or a divisor of 32).
"""

from __future__ import annotations

import bisect
import operator
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

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

    @property
    def uniform(self) -> bool:
        return not self.scaled and self.lanes.count(self.lanes[0]) == WARP

    @property
    def concrete(self) -> bool:
        return not self.terms and not self.scaled

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
            return "one warp of 32 consecutive threadIdx.x; no block shape known (--block sets one)"
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
    if not a.scaled and not b.scaled:
        return LaneValue(terms, lanes)
    return _with_scaled(terms, lanes, [*a.scaled, *b.scaled])


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
    return LaneValue(tuple((s, c * k) for s, c in a.terms), tuple([x * k for x in a.lanes]), scaled)


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
        # (block, register) -> (first index not yet scanned, the definitions before it)
        self._scans: dict[tuple[int, str], tuple[int, list[int]]] = {}
        self._effects: dict[int, list[tuple[int, int, int]]] = {}  # block -> its effects
        self._depth = 0
        self._ctx: _Context | None = None  # the guarded access being evaluated, if any

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
        block = self._cfg.blocks[b]
        effects = self._effects.get(b)
        if effects is None:
            effects = self._effects[b] = instruction_effects(
                self._ins[block.first : block.last + 1]
            )
        bit = _BITS.get(reg, 0)
        state = self._scans.get((b, reg))
        if state is None:
            state = self._scans[(b, reg)] = (block.first, [])
        pos, found = state
        if index > pos:
            first = block.first
            found.extend(
                j + first for j in range(pos - first, index - first) if effects[j][0] & bit
            )
            self._scans[(b, reg)] = (index, found)
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
            return symbol(f"lop3@{ins.address:04x}")
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
    return Unknown(f"{ins.mnemonic} picks per lane by a predicate", ins.address)


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
}
