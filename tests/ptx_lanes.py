"""A second derivation of every access's lanes, from the PTX: the test oracle of the warp model.

The PTX holds the same address arithmetic as the SASS, before ptxas rewrote it (mul.wide and
add.s64 instead of IMAD.WIDE, a named shared array instead of the shared window's base, no
carry chains, no uniform registers). This reads each kernel's PTX top to bottom, a register
taking the value of its textually last definition (in a rotated loop that is the entering
value: the lanes, all that sectors and banks depend on, are the same), with only the few PTX
operations the recorded kernels use. Only the value arithmetic (sassview.graph.lanes'
LaneValue, Wrap, add, scale) is shared with the code under test; the walk is its own.

Which lanes run each access: a mask carried down the text. A forward `@%p bra L` sends the
lanes where %p holds to L (they rejoin there), a `bra` all of them; a backward branch (a loop)
changes nothing; `@%p ret` drops lanes; a `setp` whose operands differ by a known amount in
every lane gives a lane mask, any other predicate leaves every lane running both ways.
An `and` with a mask of ones 2^j..2^(k-1) of a value with a run-time part is the value modulo
2^k: a Wrap, written here from the definition, not with the model's code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sassview.graph.lane_values import (
    BlockShape,
    LaneValue,
    Wrap,
    add,
    const,
    lane_ids,
    scale,
    symbol,
    times_uniform,
)
from sassview.ir import PtxFunction, PtxInstruction

_SPECIAL = {
    "%tid.x": "SR_TID.X",
    "%tid.y": "SR_TID.Y",
    "%tid.z": "SR_TID.Z",
    "%laneid": "SR_LANEID",
}
_WIDTH = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "f16": 16, "b16": 16, "f64": 64, "u64": 64}
_WIDTH |= {"s64": 64, "b64": 64}
_ADDRESS = re.compile(r"^\[\s*([%\w]+)\s*(?:\+\s*(-?\d+)\s*)?\]$")  # [%r5+4], [ %rd1 + 0 ]
ALL = (1 << 32) - 1
_TESTS = {
    "lt": lambda x: x < 0,
    "le": lambda x: x <= 0,
    "gt": lambda x: x > 0,
    "ge": lambda x: x >= 0,
    "eq": lambda x: x == 0,
    "ne": lambda x: x != 0,
}


@dataclass(frozen=True)
class PtxAccess:
    line: int
    space: str  # global, shared
    direction: str  # load, store
    bits: int
    lanes: LaneValue | None  # None: not followed
    matrix: bool = False  # ldmatrix / stmatrix: one row address a lane
    mask: int = ALL  # the lanes that run it (bit l: lane l)


def _bits(modifiers: tuple[str, ...]) -> int:
    width = next((_WIDTH[m] for m in modifiers if m in _WIDTH), 32)
    vector = next((int(m[1:]) for m in modifiers if m in ("v2", "v4", "v8")), 1)
    return width * vector


def accesses(function: PtxFunction, block: BlockShape) -> list[PtxAccess]:
    walk = _Walk(function, block)
    for p in function.instructions:
        walk.rejoin(p.line)
        walk.step(p)
    return walk.out


class _Walk:
    """The PTX read top to bottom: each register's value (its last definition so far), each
    predicate's lanes, the lanes running, and the lanes gone ahead to a forward label."""

    def __init__(self, function: PtxFunction, block: BlockShape) -> None:
        self.function = function
        self.block = block
        self.ids = lane_ids(block)
        self.regs: dict[str, LaneValue | None] = {}
        self.preds: dict[str, int | None] = {}
        self.cur = (1 << block.active_lanes) - 1
        self.pending: dict[str, int] = {}  # label -> the lanes that branched to it
        self.label_at = sorted((line, name) for name, line in function.labels.items())
        self.done = 0  # labels passed
        self.out: list[PtxAccess] = []

    def rejoin(self, line: int) -> None:
        """The lanes that branched forward to a label at or above `line` run again."""
        while self.done < len(self.label_at) and self.label_at[self.done][0] <= line:
            self.cur |= self.pending.pop(self.label_at[self.done][1], 0)
            self.done += 1

    def step(self, p: PtxInstruction) -> None:
        known = self.guard_lanes(p)
        guard = ALL if known is None else known
        if self._steer(p, known, guard) or self._access(p, self.cur & guard):
            return
        if p.operands and p.operands[0].startswith("%"):
            srcs = [self.value(a) for a in p.operands[1:]]
            self.regs[p.operands[0]] = _evaluate(p.opcode, p.modifiers, srcs, p.operands[1:])

    def guard_lanes(self, p: PtxInstruction) -> int | None:
        """The lanes where the instruction's guard holds; None when not known per lane."""
        if p.guard is None:
            return ALL
        return self.predicate(("!" if p.guard_negated else "") + p.guard)

    def _steer(self, p: PtxInstruction, known: int | None, guard: int) -> bool:
        """A branch, a return, or an instruction that sets a predicate: what decides which
        lanes run. False for any other instruction. `known`: the guard's lanes, None when
        they are not known per lane (`guard` is then every lane)."""
        op, mods, args = p.opcode, p.modifiers, p.operands
        if op == "bra":
            target = args[0]
            if self.function.labels.get(target, 0) > p.line:  # forward: those lanes rejoin there
                self.pending[target] = self.pending.get(target, 0) | (self.cur & guard)
                if known is not None:  # else: not known per lane, every lane goes both ways
                    self.cur &= ~guard & ALL
        elif op in ("ret", "exit"):
            self.cur &= ~guard & ALL
        elif op == "setp":
            self.preds[args[0]] = _compare(mods, self.value(args[1]), self.value(args[2]))
        elif op in ("mov", "not", "and", "or", "xor") and "pred" in mods:
            self.preds[args[0]] = _pred_op(op, [self.predicate(a) for a in args[1:]], args[1:])
        else:
            return False
        return True

    def _access(self, p: PtxInstruction, mask: int) -> bool:
        """A load or store of global or shared memory, recorded with the lanes that run it;
        False for any other instruction."""
        op, mods, args = p.opcode, p.modifiers, p.operands
        if op in ("ldmatrix", "stmatrix"):
            count = next((int(m[1:]) for m in mods if m in ("x1", "x2", "x4")), 1)
            where = args[1] if op == "ldmatrix" else args[0]
            direction = "load" if op == "ldmatrix" else "store"
            lanes = self.address(where)
            self.out.append(PtxAccess(p.line, "shared", direction, 32 * count, lanes, True, mask))
            return True
        if op not in ("ld", "st") or not ("global" in mods or "shared" in mods):
            return False
        space = "global" if "global" in mods else "shared"
        lanes = self.address(args[1] if op == "ld" else args[0])
        direction = "load" if op == "ld" else "store"
        self.out.append(PtxAccess(p.line, space, direction, _bits(mods), lanes, False, mask))
        if op == "ld":  # one value a warp from a uniform address; any other: not followed
            for dest in args[0].strip("{}").split(","):
                self.regs[dest.strip()] = symbol(f"ld{p.line}") if lanes and lanes.uniform else None
        return True

    def value(self, text: str) -> LaneValue | None:
        if text in self.regs:
            return self.regs[text]
        if text in _SPECIAL:
            return self.ids[_SPECIAL[text]]
        if text.startswith("%ntid."):
            size = getattr(self.block, text[-1]) if self.block.known else None
            return const(size) if size is not None else symbol(f"ntid.{text[-1]}")
        if text.startswith("%ctaid."):
            return symbol(f"ctaid.{text[-1]}")
        if re.fullmatch(r"-?\d+", text):
            return const(int(text))
        if re.fullmatch(r"0x[0-9a-fA-F]+", text):
            return const(int(text, 16))
        if re.fullmatch(r"[A-Za-z_$][\w$]*", text):  # a named shared array or a parameter
            return symbol(text)
        return None

    def address(self, text: str) -> LaneValue | None:
        m = _ADDRESS.match(text)
        if m is None:
            return None
        base = self.value(m.group(1))
        if base is None:
            return None
        return add(base, const(int(m.group(2) or 0)))

    def predicate(self, text: str) -> int | None:
        negated = text.startswith("!")
        v = self.preds.get(text.lstrip("!"))
        return None if v is None else (~v & ALL if negated else v)


def _compare(mods: tuple[str, ...], a: LaneValue | None, b: LaneValue | None) -> int | None:
    """A setp's lanes, where a - b is known in every lane."""
    test = next((_TESTS[m] for m in mods if m in _TESTS), None)
    if a is None or b is None or test is None:
        return None
    if "u32" in mods and a.concrete and b.concrete:  # unsigned: -5 is 0xfffffffb
        a = LaneValue((), tuple(x & 0xFFFFFFFF for x in a.lanes))
        b = LaneValue((), tuple(x & 0xFFFFFFFF for x in b.lanes))
    diff = add(a, scale(b, -1))
    if not diff.concrete:
        return None
    return sum(1 << n for n, x in enumerate(diff.lanes) if test(x))


def _pred_op(op: str, vals: list[int | None], texts: tuple[str, ...]) -> int | None:
    if op == "mov":
        if texts[0] in ("0", "1"):
            return ALL if texts[0] == "1" else 0
        return vals[0]
    if any(v is None for v in vals):
        return None
    ints = [v for v in vals if v is not None]
    if op == "not":
        return ~ints[0] & ALL
    if op == "and":
        return ints[0] & ints[1]
    if op == "or":
        return ints[0] | ints[1]
    return ints[0] ^ ints[1]


def _modulo(v: LaneValue, mask: int) -> LaneValue | None:
    """v & mask for mask = 2^k - 2^j and v's low j bits zero: v mod 2^k."""
    low = mask & -mask
    modulus = mask + low
    if mask <= 0 or modulus & (modulus - 1) or v.scaled or v.wrap is not None:
        return None
    if any(c % low for _, c in v.terms) or any(x % low for x in v.lanes):
        return None
    step = modulus
    for _, c in v.terms:
        step = min(step, c & -c)
    base = tuple(x % modulus for x in v.lanes)
    if step >= modulus:
        return LaneValue((), base)
    return LaneValue((), base, (), Wrap(modulus, step, "ptx", base, 1))


def _place(v: LaneValue) -> bool:
    """A global index: block indices times block sizes (positive coefficients, products of
    those), plus lanes that are not negative; never negative unless it overflows an int."""
    names = re.compile(r"ctaid\.[xyz]|ntid\.[xyz]")
    rest = set("()* ")
    return (
        not v.scaled
        and v.wrap is None
        and all(x >= 0 for x in v.lanes)
        and all(c > 0 and set(names.sub("", t)) <= rest for t, c in v.terms)
    )


def _shift_right(v: LaneValue, n: int) -> LaneValue | None:
    """v >> n of a value with a run-time part: its sign (n = 31) of a global index is 0; a
    run-time part a multiple of 2^n and lanes not negative divide exactly."""
    if v.scaled or v.wrap is not None:
        return None
    if n >= 31 and _place(v):
        return const(0)
    if any(c % (1 << n) for _, c in v.terms) or any(x < 0 for x in v.lanes):
        return None
    return LaneValue(tuple((t, c >> n) for t, c in v.terms), tuple(x >> n for x in v.lanes))


def _round_down(v: LaneValue, mask: int) -> LaneValue | None:
    """v & -2^j (the low j bits cleared) of a run-time part that has none of them."""
    j = (mask & -mask).bit_length() - 1
    if mask != -(1 << j) or v.scaled or v.wrap is not None:
        return None
    if any(c % (1 << j) for _, c in v.terms) or any(x < 0 for x in v.lanes):
        return None
    return LaneValue(v.terms, tuple(x & mask for x in v.lanes))


def _disjoint_or(high: LaneValue, low: LaneValue) -> LaneValue | None:
    """high | low where they share no bit: high's run-time part a multiple of 2^k and its
    lanes 0, low concrete in [0, 2^k): their sum (`((4 * ctaid + warp) << 8) | lane`)."""
    if not high.terms or not low.concrete or high.scaled or high.wrap is not None:
        return None
    k = min((c & -c).bit_length() - 1 for _, c in high.terms)
    if any(x for x in high.lanes) or any(not 0 <= x < 1 << k for x in low.lanes):
        return None
    return add(high, low)


def _evaluate(
    op: str, mods: tuple[str, ...], srcs: list[LaneValue | None], texts: tuple[str, ...]
) -> LaneValue | None:
    if op == "ld" and "param" in mods:
        return symbol(texts[0])
    if any(s is None for s in srcs):
        return None
    vals: list[LaneValue] = [s for s in srcs if s is not None]
    if op in ("mov", "cvta", "cvt") and vals:
        return vals[0]
    if op == "add":
        return add(vals[0], vals[1])
    if op == "sub":
        return add(vals[0], scale(vals[1], -1))
    if op == "mul" and "hi" in mods and all(v.concrete for v in vals):
        return _mul_hi(mods, vals[0], vals[1])
    if op in ("mul", "mad") and ("lo" in mods or "wide" in mods):
        product = _product(mods, vals[0], vals[1])
        return add(product, vals[2]) if op == "mad" and product is not None else product
    return _evaluate_bits(op, mods, vals)


def _mul_hi(mods: tuple[str, ...], a: LaneValue, b: LaneValue) -> LaneValue | None:
    """The high word of a 32x32-bit product (NVVM's division by a constant), signed or .u32;
    a negative one is not followed (the SASS model does not follow it either)."""

    def word(x: int) -> int:
        x &= 0xFFFFFFFF
        return x if "u32" in mods or x < 1 << 31 else x - (1 << 32)

    high = [word(x) * word(y) >> 32 for x, y in zip(a.lanes, b.lanes, strict=True)]
    return None if any(h < 0 for h in high) else LaneValue((), tuple(high))


def _product(mods: tuple[str, ...], a: LaneValue, b: LaneValue) -> LaneValue | None:
    """a * b of a mul.lo, mul.wide or mad, where one side is a warp constant, both are
    concrete, or the run-time part is a uniform stride."""
    if "u32" in mods:  # an unsigned 32-bit operand: -1431655765 is 0xaaaaaaab
        a, b = (
            LaneValue((), tuple(x & 0xFFFFFFFF for x in v.lanes)) if v.concrete else v
            for v in (a, b)
        )
    if _warp_constant(a):
        return scale(b, a.lanes[0])
    if _warp_constant(b):
        return scale(a, b.lanes[0])
    if a.concrete and b.concrete:
        return LaneValue((), tuple(x * y for x, y in zip(a.lanes, b.lanes, strict=True)))
    if a.uniform and b.uniform:  # block index times block size: one value a warp
        return symbol(f"({a})*({b})")
    if a.uniform and not b.scaled:  # a lane index times a parameter: a run-time stride
        return times_uniform(a, b, "ptx")
    if b.uniform and not a.scaled:
        return times_uniform(b, a, "ptx")
    return None


def _warp_constant(v: LaneValue) -> bool:
    """One known number, the same in every lane (a shift count, a mask, a multiplier)."""
    return v.concrete and v.uniform


# The bit operations taken lane by lane when every operand is concrete.
_BITWISE: dict[str, Callable[[int, int], int]] = {
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
    "shr": lambda x, y: x >> y,
}


def _evaluate_bits(op: str, mods: tuple[str, ...], vals: list[LaneValue]) -> LaneValue | None:
    """shl, and, shr, bfe, or and xor; any other operation, and a bit operation none of these
    rules follows, goes on to `_uniform_result`."""
    if op == "shl" and _warp_constant(vals[1]):
        return scale(vals[0], 1 << vals[1].lanes[0])
    if op == "and" and _warp_constant(vals[1]) and not vals[0].concrete:
        if vals[1].lanes[0] < 0:
            return _round_down(vals[0], vals[1].lanes[0])
        return _modulo(vals[0], vals[1].lanes[0])
    if op == "shr" and _warp_constant(vals[1]) and not vals[0].concrete:
        return _shift_right(vals[0], vals[1].lanes[0])
    if op == "bfe" and all(v.concrete for v in vals) and vals[1].uniform and vals[2].uniform:
        return _bit_field(mods, vals[0], vals[1].lanes[0], vals[2].lanes[0])
    if op == "or" and len(vals) == 2:  # a lane index ORed below an aligned row offset
        joined = _disjoint_or(*vals) or _disjoint_or(vals[1], vals[0])
        if joined is not None:
            return joined
    if op in _BITWISE and all(v.concrete for v in vals):
        fn = _BITWISE[op]
        return LaneValue(
            (), tuple(fn(x, y) for x, y in zip(vals[0].lanes, vals[1].lanes, strict=True))
        )
    return _uniform_result(op, vals)


def _bit_field(mods: tuple[str, ...], v: LaneValue, start: int, n: int) -> LaneValue:
    """bfe: n bits of each lane from bit `start` (Triton's layouts: a bit of tid.x), sign
    extended for .s32."""
    fields = [x >> start & ((1 << n) - 1) for x in v.lanes]
    if "s32" in mods:
        fields = [f - (1 << n) if f >> (n - 1) else f for f in fields]
    return LaneValue((), tuple(fields))


def _uniform_result(op: str, vals: list[LaneValue]) -> LaneValue | None:
    """Uniform inputs give one value a warp (`%ntid.x >> 5`: warps per block), as the SASS
    model takes any operation on uniform registers: a fresh symbol."""
    if vals and all(v.uniform and not v.scaled and v.wrap is None for v in vals):
        return symbol(f"{op}({', '.join(map(str, vals))})")
    return None
