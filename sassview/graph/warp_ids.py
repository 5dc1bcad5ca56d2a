"""Which warps of a block take a branch on the thread index: the warp-specialised kernel's role
tests (`wg == 0`, `warp_idx == 4`, `threadIdx.x < 128`), evaluated for every thread.

A value is a register's value in each thread of a one-dimensional block (threadIdx.x = t), as a
tuple over the block's threads, where it comes from `S2R SR_TID.X` (or `SR_LANEID`) through the
integer arithmetic ptxas emits for a warp or warp-group index: shifts, LOP3 with immediates,
IMAD / IADD3 / VIADD with immediates, moves, and `SHFL.IDX` of a fixed lane (CUTLASS'
`canonical_warp_group_idx`: the index broadcast from lane 0). An ISETP (or a LOP3 that writes a
predicate) of such values is a predicate per thread; a branch on it sends each warp one way
when its 32 lanes agree. Anything else (a loaded value, a uniform register, a compare whose
inputs come from several definitions) is unknown, and so is the branch.

A register's definition is the one instruction every path to the use last writes it at,
found backwards through the control-flow graph; several (or a guarded one) and it is unknown.

How it can be wrong: a definition inside a subroutine reached only by its CALL edge is taken
as the register's definition at the call's return; a block whose `.reqntid` / `.maxntid` says
more threads than a launch gives is evaluated for all of them (the extra warps take a side of
each branch too, so a walk that follows them reaches more code, never less).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sassview.graph.cfg import ControlFlowGraph
from sassview.graph.dataflow import register_effects
from sassview.ir import Operand, OperandKind, SassInstruction

WARP = 32
_MASK = 0xFFFFFFFF
_PerThread = tuple[int, ...]
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "EQ": lambda a, b: a == b,
    "NE": lambda a, b: a != b,
    "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b,
    "GT": lambda a, b: a > b,
    "GE": lambda a, b: a >= b,
}


def _signed(v: int) -> int:
    v &= _MASK
    return v - (1 << 32) if v >> 31 else v


def _lop3(a: int, b: int, c: int, lut: int) -> int:
    """LOP3's three-input truth table `lut` (a = 0xF0, b = 0xCC, c = 0xAA), bit by bit."""
    out = 0
    for k in range(8):
        if lut >> k & 1:
            out |= (a if k & 4 else ~a) & (b if k & 2 else ~b) & (c if k & 1 else ~c)
    return out & _MASK


class WarpIds:
    """Per-thread values of one kernel's thread-index arithmetic, for a block of `threads`
    threads along x; each value computed once per (register, definition)."""

    def __init__(
        self, instructions: Sequence[SassInstruction], cfg: ControlFlowGraph, threads: int
    ) -> None:
        self.ins, self.cfg, self.threads = instructions, cfg, threads
        self.warps = frozenset(range(-(-threads // WARP)))
        self._memo: dict[tuple[str, int], _PerThread | None] = {}

    # --- which warps go where ------------------------------------------------------------

    def guard_true(self, index: int, warps: frozenset[int]) -> frozenset[int] | None:
        """The warps of `warps` in which the guard of the instruction at `index` holds (each
        warp's lanes all agree), None where that is not known."""
        ins = self.ins[index]
        if ins.guard is None or ins.guard.file != "P":
            return None
        values = self.predicate(str(ins.guard), index) if ins.guard.index is not None else None
        if values is None:
            return None
        held = set()
        for w in warps:
            lanes = {bool(v) != ins.guard_negated for v in values[w * WARP : (w + 1) * WARP]}
            if len(lanes) != 1:
                return None  # the warp's lanes disagree: no warp-wide answer
            if lanes == {True}:
                held.add(w)
        return frozenset(held)

    # --- values ---------------------------------------------------------------------------

    def predicate(self, name: str, index: int) -> _PerThread | None:
        """The predicate `name` as read at `index`, per thread (0 or 1); None: unknown."""
        return self.value(name, index)

    def value(self, name: str, index: int) -> _PerThread | None:
        """The register `name` as read by the instruction at `index`, per thread."""
        d = self._definition(name, index)
        if d is None:
            return None
        key = (name, d)
        if key not in self._memo:
            self._memo[key] = None  # a definition that reads itself (a loop) stays unknown
            self._memo[key] = self._computed(name, d)
        return self._memo[key]

    def _definition(self, name: str, index: int) -> int | None:
        """The one instruction every path to `index` last writes `name` at; None when there
        are several, none, or a guarded one."""
        block = self.cfg.block_of_index(index)
        found = self._last_def(name, block.first, index - 1)
        if found is not None:
            return found if found >= 0 else None
        defs: set[int] = set()
        seen: set[int] = set()
        work = list(block.predecessors)
        while work:
            b = work.pop()
            if b in seen:
                continue
            seen.add(b)
            here = self.cfg.blocks[b]
            last = self._last_def(name, here.first, here.last)
            if last is None:
                if not here.predecessors:
                    return None  # a path from the entry that never writes it
                work.extend(here.predecessors)
                continue
            if last < 0:
                return None
            defs.add(last)
            if len(defs) > 1:
                return None
        return next(iter(defs), None)

    def _last_def(self, name: str, first: int, last: int) -> int | None:
        """The last write of `name` in [first, last]: its index, -1 when it is guarded (its
        value depends on the guard), None when there is none."""
        for j in range(last, first - 1, -1):
            if name in register_effects(self.ins[j]).defs:
                return -1 if self.ins[j].guard is not None else j
        return None

    def _operand(self, op: Operand, d: int) -> _PerThread | None:
        if op.kind is OperandKind.IMMEDIATE and isinstance(op.value, int):
            return (op.value & _MASK,) * self.threads
        if op.kind is not OperandKind.REGISTER or len(op.registers) != 1 or op.absolute:
            return None
        reg = op.registers[0]
        if reg.file not in ("R", "P"):
            return None
        if reg.index is None:  # RZ is 0, PT true
            got: _PerThread | None = (int(reg.file == "P"),) * self.threads
        else:
            got = self.value(str(reg), d)
        if got is None or not op.negated:
            return got
        return tuple(1 - v for v in got) if reg.file == "P" else tuple(-v & _MASK for v in got)

    def _operands(self, ops: Sequence[Operand], d: int) -> list[_PerThread] | None:
        out = []
        for op in ops:
            got = self._operand(op, d)
            if got is None:
                return None
            out.append(got)
        return out

    def _computed(self, name: str, d: int) -> _PerThread | None:
        ins = self.ins[d]
        compute = _OPS.get(ins.opcode)
        if compute is None or not ins.operands:
            return None
        if ins.opcode not in _PREDICATE_OPS and _register(ins.operands[0]) != name:
            return None  # a second result (a carry, a predicate out): not followed
        return compute(self, ins, name, d)

    def thread_ids(self, special: str) -> _PerThread | None:
        if special == "SR_TID.X":
            return tuple(range(self.threads))
        if special == "SR_LANEID":
            return tuple(t % WARP for t in range(self.threads))
        return None


def _register(op: Operand) -> str:
    return str(op.registers[0]) if op.registers else ""


def _s2r(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    special = ins.operands[-1] if len(ins.operands) == 2 else None
    if special is None or special.kind is not OperandKind.SPECIAL:
        return None
    return ids.thread_ids(special.text)


def _move(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    return ids._operand(ins.operands[1], d) if len(ins.operands) == 2 else None


def _imad(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    """Rd = a * b + c (IMAD, IMAD.MOV, IMAD.SHL, IMAD.IADD): 32 bits, no wide or high half."""
    if any(m in ("WIDE", "HI", "X") for m in ins.modifiers) or len(ins.operands) != 4:
        return None
    got = ids._operands(ins.operands[1:], d)
    if got is None:
        return None
    a, b, c = got
    return tuple((x * y + z) & _MASK for x, y, z in zip(a, b, c, strict=True))


def _iadd3(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    if "X" in ins.modifiers or len(ins.operands) != 4:  # a carry out or in: not plain sums
        return None
    got = ids._operands(ins.operands[1:], d)
    return None if got is None else tuple(sum(v) & _MASK for v in zip(*got, strict=True))


def _viadd(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    if ins.modifiers or len(ins.operands) != 3:
        return None
    got = ids._operands(ins.operands[1:], d)
    return None if got is None else tuple((a + b) & _MASK for a, b in zip(*got, strict=True))


def _shf(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    """SHF.R.U32.HI / SHF.R.S32.HI Rd, RZ, n, Rs (Rs >> n) and SHF.L.U32 Rd, Rs, n, RZ."""
    mods = ins.modifiers
    if len(ins.operands) != 4:
        return None
    got = ids._operands(ins.operands[1:], d)
    if got is None:
        return None
    lo, shift, hi = got
    if mods in (("R", "U32", "HI"), ("R", "S32", "HI")) and not any(lo):
        read = _signed if "S32" in mods else int
        return tuple((read(v) >> (n & 31)) & _MASK for v, n in zip(hi, shift, strict=True))
    if mods == ("L", "U32") and not any(hi):
        return tuple((v << (n & 31)) & _MASK for v, n in zip(lo, shift, strict=True))
    return None


def _lop3_op(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    """LOP3.LUT [Pd,] Rd, a, b, c, lut, !PT: the register, or (Pd) whether it is not zero."""
    ops = ins.operands
    writes_p = len(ops) == 7 and bool(ops[0].registers) and ops[0].registers[0].file == "P"
    body = ops[1:] if writes_p else ops
    if len(body) != 6 or body[4].kind is not OperandKind.IMMEDIATE or body[5].text != "!PT":
        return None
    got = ids._operands(body[1:4], d)
    if got is None or not isinstance(body[4].value, int):
        return None
    lut = body[4].value
    values = tuple(_lop3(a, b, c, lut) for a, b, c in zip(*got, strict=True))
    if writes_p and name == _register(ops[0]):
        return tuple(int(v != 0) for v in values)
    return values if name == _register(body[0]) else None


def _isetp(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    """ISETP.cmp[.U32].AND Pd, PT, a, b, PT: the compare, per thread."""
    mods = ins.modifiers
    ops = ins.operands
    if len(ops) != 5 or "EX" in mods or "AND" not in mods or ops[4].text != "PT":
        return None
    if name != _register(ops[0]) or not mods or mods[0] not in _COMPARE:
        return None
    got = ids._operands(ops[2:4], d)
    if got is None:
        return None
    compare, unsigned = _COMPARE[mods[0]], "U32" in mods
    return tuple(
        int(compare(a, b) if unsigned else compare(_signed(a), _signed(b)))
        for a, b in zip(*got, strict=True)
    )


def _shfl(ids: WarpIds, ins: SassInstruction, name: str, d: int) -> _PerThread | None:
    """SHFL.IDX PT, Rd, Ra, lane, 0x1f: each warp's lane `lane` value, in all its lanes."""
    ops = ins.operands
    if ins.modifiers != ("IDX",) or len(ops) != 5 or name != _register(ops[1]):
        return None
    if ops[4].value != 0x1F:
        return None
    got = ids._operands((ops[2], ops[3]), d)
    if got is None or len(set(got[1])) != 1:
        return None
    values, (lane, *_) = got
    return tuple(
        values[min((t // WARP) * WARP + (lane & 31), ids.threads - 1)] for t in range(ids.threads)
    )


# Their destination is not their first operand alone (a predicate, or a shuffle's after PT).
_PREDICATE_OPS = frozenset({"LOP3", "ISETP", "SHFL"})
_OPS: dict[str, Callable[[WarpIds, SassInstruction, str, int], _PerThread | None]] = {
    "S2R": _s2r,
    "MOV": _move,
    "IMAD": _imad,
    "IADD3": _iadd3,
    "VIADD": _viadd,
    "SHF": _shf,
    "LOP3": _lop3_op,
    "ISETP": _isetp,
    "SHFL": _shfl,
}
