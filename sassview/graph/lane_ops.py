"""SASS operations on lane values: the value an instruction writes to a register, given the
values of its operands, and the register terms of a memory operand's address.

Its own module because it is the part that knows SASS: which opcodes are followed exactly and
how (the table `_EXACT`), which give each lane its own value, which load. The warp model
(`sassview.graph.lanes`) finds the definitions and evaluates their operands; `result` asks
it back for operand values through `Model`.

Followed exactly: MOV, IADD3, IMAD (with .WIDE, .SHL, .MOV, .IADD), LEA (and LEA.HI on
concrete values), SHF (the sign `SHF.R.S32.HI R3, RZ, 0x1f, R4` of a global index is 0: see
`lane_values.nonnegative`), LOP3 (any LUT: AND, OR, XOR swizzles; on a run-time part and
lanes below its alignment, bit by bit), PRMT (on concrete lanes, and the byte shifts that
join a lane index under a row: `PRMT R5, R5, 0x6540, R0`), SGXT on concrete lanes, SEL of
equal values or by a lane-exact predicate (USEL of uniform values), the half-float constant
moves (`HFMA2.MMA R5, -RZ, RZ, 0, 2.38e-07`) and `CS2R R2, SRZ` (both registers zero),
constants, and the `[R2.64+UR4+0x10]` / `[R0.X4]` address forms; the uniform registers' own
U* forms alike. Any other operation whose register inputs are all uniform gives a uniform
result (a fresh symbol; a LOP3's keeps
the low bits it is known to clear, so a lane index ORed in below them stays exact); a load
from a uniform address too. The high half of an `IMAD.WIDE.U32` of concrete lanes (ptxas'
division by a constant: `x / 3` is the high word of x * 0xaaaaaaab, shifted) is exact, and
so is the signed form's `IMAD.HI` (`t % 20` of an `int t`: then `LEA.HI.SX32`, also exact);
of a value with a run-time part (`(threadIdx.x + r) % 20`, r a kernel argument) either is
unknown, whatever the lanes: the quotient of a sum depends on the run-time part, not only on
its lanes.
Everything else is `Unknown`, with the reason: a value loaded from a lane-varying address (a
gather), an operation not modelled. A 64-bit value is tracked whole in its low register, so
a carry chain (`IADD3 R2, P0, ...` then `IADD3.X R3, ...`) stands for its sum and a
truncation to the low half is not seen.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from sassview.graph.lane_values import (
    ALL_LANES,
    MASK32,
    LaneValue,
    Unknown,
    Value,
    add,
    bitwise,
    const,
    known,
    low_zeros,
    multiply,
    nonnegative,
    scale,
    shift_left,
    shift_right,
    symbol,
)
from sassview.ir import Operand, OperandKind, SassInstruction
from sassview.memo import Memo


class Model(Protocol):
    """What the operations ask of the warp model (`sassview.graph.lanes.WarpModel`)."""

    def address(self, index: int, operand: Operand) -> Value: ...

    def _operand(self, op: Operand, d: int) -> Value: ...

    def _values(self, srcs: Sequence[Operand], d: int) -> list[Value]: ...

    def _constant(self, op: Operand, d: int) -> Value: ...

    def _predicate(self, pred: str, index: int) -> int | None: ...


# An address term: a register with its suffixes (.64 .X4 .U32 .reuse), or an integer.
_TERM = re.compile(r"^(-?)(U?R(?:\d+|Z))((?:\.\w+)*)$")
_SCALE = {"X4": 4, "X8": 8, "X16": 16}
_UNIFORM_ONLY = frozenset({"S2R", "S2UR", "CS2R", "SHFL", "VOTE", "VOTEU", "MATCH", "P2R", "R2P"})
_LOADS = frozenset({"LDG", "LD", "LDS", "LDL", "LDSM", "ATOM", "ATOMG", "ATOMS", "LDC", "ULDC"})
_LOADS |= {"LDCU", "ATOMS"}


def result(m: Model, reg: str, d: int, ins: SassInstruction) -> Value:
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
    if opcode == "CS2R" and ops and ops[-1].text == "SRZ":  # `CS2R R2, SRZ`: R2 and R3 zero
        return const(0)
    if dest is None or str(dest.registers[0]) != reg:
        part = _constant_part(ins, dest, reg)
        if part is not None:
            return part
        high = wide_high(m, reg, d, ins, dest)
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
        return loaded(m, reg, d, ins)
    base = opcode[1:] if opcode[0] == "U" and opcode not in ("UMOV",) else opcode
    if opcode == "UMOV":
        base = "MOV"
    exact = _EXACT.get(base)
    if exact is not None and "X" not in ins.modifiers:
        value = exact(m, ins, srcs, d)
        if value is not None:
            return value
    return uniform_fallback(m, reg, d, ins, srcs)


def wide_high(
    m: Model, reg: str, d: int, ins: SassInstruction, dest: Operand | None
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
    vals = known(m._values(srcs, d))
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
        ((x & MASK32) * (y & MASK32) + z) >> 32
        for x, y, z in zip(a.lanes, b.lanes, c.lanes, strict=True)
    ]
    return LaneValue((), tuple(high))


def uniform_fallback(
    m: Model, reg: str, d: int, ins: SassInstruction, srcs: Sequence[Operand]
) -> Value:
    """An operation not followed exactly: uniform inputs give a uniform result."""
    if ins.opcode in _UNIFORM_ONLY and ins.opcode != "S2UR":
        if ins.opcode == "S2R" and srcs:
            return m._operand(srcs[0], d)
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
    for v in m._values(srcs, d):
        if isinstance(v, Unknown):
            return v
        if not v.uniform:
            return Unknown(f"{ins.mnemonic} is not modelled on a lane-varying value", ins.address)
    return symbol(f"{reg}@{ins.address:04x}")


def loaded(m: Model, reg: str, d: int, ins: SassInstruction) -> Value:
    """A loaded value: uniform when every lane loads from one address."""
    if ins.opcode in ("LDC", "ULDC", "LDCU"):
        op = next((o for o in ins.operands if o.kind is OperandKind.CONSTANT), None)
        if op is not None:
            return m._constant(op, d)
    op = next((o for o in ins.operands if o.kind is OperandKind.MEMORY), None)
    if op is not None:
        where = m.address(d, op)
        if isinstance(where, LaneValue) and where.uniform:
            return symbol(f"{reg}@{ins.address:04x}")
    return Unknown(
        f"the address depends on data loaded at /*{ins.address:04x}*/ (a gather)", ins.address
    )


_SIMPLE = re.compile(r"\[(U?R\d+)(?:\.64)?(?:\+(-?0x[0-9a-f]+))?\]$")
PARSED: Memo[str, tuple[tuple[tuple[str, int], ...], int] | str] = Memo(
    f"{__name__}.PARSED", 50_000
)


def parse_address(text: str) -> tuple[tuple[tuple[str, int], ...], int] | str:
    """The register terms (name, scale) and constant offset of a memory operand's last
    bracket (desc[UR4][R2.64+0x10] -> ((R2, 1),), 16), or why it is not modelled. Memoised:
    a kernel has many accesses and few operand texts."""
    found = PARSED.get(text)
    if found is not None:
        return found
    simple = _SIMPLE.search(text)
    if simple is not None:  # [R2.64+0x10], desc[UR4][R2.64+-0x20]: most accesses
        reg, number = simple.groups()
        # Remembered too: a hit is one dict lookup, the search a regex per access.
        simple_result = ((reg, 1),), int(number, 16) if number else 0
        PARSED[text] = simple_result
        return simple_result
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
    PARSED[text] = result
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


def _op_mov(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    return m._operand(srcs[0], d) if srcs else None


def _op_add(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    vals = known(m._values(srcs, d))
    if isinstance(vals, Unknown):
        return vals
    total = const(0)
    for v in vals:
        total = add(total, v)
    return total


def _op_imad(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    if "HI" in ins.modifiers:
        return _multiply_high(m, ins, srcs, d)
    if len(srcs) != 3:
        return None
    vals = known(m._values(srcs, d))
    if isinstance(vals, Unknown):
        return vals
    product = multiply(vals[0], vals[1], ins)
    return product if isinstance(product, Unknown) else add(product, vals[2])


def _multiply_high(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    """`IMAD.HI R0, R6, 0x66666667, RZ`: the high word of a 32x32-bit product (signed;
    `.U32` unsigned), how ptxas divides a signed value by a constant that is not a power of
    two (`t % 20`: this, `SHF.R.U32.HI` for the sign, `LEA.HI.SX32` for the shifted
    quotient, a multiply-subtract). Exact on concrete lanes whose product is not negative;
    of a lane-varying value with a run-time part (`(t + r) % 20`) unknown, and why: the
    quotient depends on the run-time part, not only on the lanes. None (a uniform result)
    for uniform operands, or another form (an added operand, a carry out)."""
    if len(srcs) != 3 or len(ins.operands) != 4:
        return None
    vals = known(m._values(srcs, d))
    if isinstance(vals, Unknown):
        return vals
    a, b, c = vals
    if c != const(0) or a.uniform and b.uniform:
        return None
    if a.concrete and b.concrete:
        unsigned = "U32" in ins.modifiers
        high = [
            (_word(x, unsigned) * _word(y, unsigned)) >> 32
            for x, y in zip(a.lanes, b.lanes, strict=True)
        ]
        if any(h < 0 for h in high):  # its sign bit would be read by shifts not modelled
            return Unknown(f"{ins.mnemonic}: the high word of a negative product", ins.address)
        return LaneValue((), tuple(high))
    names = ", ".join(dict.fromkeys(s for v in (a, b) for s, _ in (*v.terms, *v.scaled)))
    return Unknown(
        f"{ins.mnemonic}: the high word of a product (how ptxas divides by a constant that "
        f"is not a power of two, as in x / 20 or x % 20) of a lane value with a run-time "
        f"part ({names or 'a wrapped value'}): the quotient depends on it, not only on the "
        "lanes",
        ins.address,
    )


def _word(x: int, unsigned: bool) -> int:
    """x as a 32-bit register holds it, read unsigned or signed."""
    x &= MASK32
    return x if unsigned or x < 1 << 31 else x - (1 << 32)


def _op_lea(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    vals = known(m._values(srcs, d))
    if isinstance(vals, Unknown):
        return vals
    if "HI" in ins.modifiers and "SX32" in ins.modifiers and len(vals) == 3:
        # `LEA.HI.SX32 R5, R0, R5, 0x1d`: b + the high word of (a, sign-extended) << s, i.e.
        # b + (a >> (32 - s)) arithmetically (a signed quotient's shift, see _multiply_high).
        a, b, s = vals
        if not (s.concrete and s.uniform and 0 < s.lanes[0] <= 32):
            return None
        n = 32 - s.lanes[0]
        if not a.concrete:  # `i / 8` of a block-stride loop's i: exact where i's run-time
            # part is a multiple of 2^n (then the shift divides it; else unknown, and why)
            shifted = shift_right(a, const(n), ins)
            return shifted if isinstance(shifted, Unknown) else add(b, shifted)
        return add(b, LaneValue((), tuple([_word(x, False) >> n for x in a.lanes])))
    if "HI" in ins.modifiers:
        if len(vals) != 4:
            return None
        a, b, c, s = vals
        if not (a.concrete and c.concrete and s.concrete and s.uniform):
            return None
        n = 32 - s.lanes[0]
        high = [
            ((z & MASK32) << 32 | (x & MASK32)) >> n & MASK32
            for x, z in zip(a.lanes, c.lanes, strict=True)
        ]
        return add(b, LaneValue((), tuple(high)))
    if len(vals) != 3:
        return None
    shifted = shift_left(vals[0], vals[2], ins)
    return shifted if isinstance(shifted, Unknown) else add(shifted, vals[1])


def _op_shf(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    mods = ins.modifiers
    vals = known(m._values(srcs, d))
    if isinstance(vals, Unknown) or len(vals) != 3:
        return vals if isinstance(vals, Unknown) else None
    lo, s, hi = vals
    if "L" in mods:
        if "HI" in mods or hi != const(0):
            return None
        return shift_left(lo, s, ins)
    if "R" in mods:
        if "HI" in mods:
            if lo != const(0):
                return None
            if s.concrete and s.uniform and s.lanes[0] >= 31 and nonnegative(hi):
                return const(0)  # the sign of a global index (`i / 32` of an int i)
            if "S32" in mods and not all(x >= 0 for x in hi.lanes):
                return None
            return shift_right(hi, s, ins)
        if "U64" in mods or "S64" in mods or hi == const(0):
            return shift_right(lo, s, ins)
    return None


def _op_lop3(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    if "LUT" not in ins.modifiers or len(srcs) != 4 or not isinstance(srcs[3].value, int):
        return None
    vals = known(m._values(srcs[:3], d))
    if isinstance(vals, Unknown):
        return vals
    return bitwise(srcs[3].value, vals, ins)


def _op_sel(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
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
        picked = known(vals)
        if isinstance(picked, Unknown):
            return picked
        if all(v.uniform and not v.scaled and v.wrap is None for v in picked):
            zeros = min(min(low_zeros(v) for v in picked), 31)
            return symbol(f"usel@{ins.address:04x}", 1 << zeros)
    return Unknown(f"{ins.mnemonic} picks per lane by a predicate", ins.address)


def _select_by_lane(m: Model, ins: SassInstruction, vals: list[Value], d: int) -> LaneValue | None:
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
    lanes = ALL_LANES if reg.is_zero else m._predicate(str(reg), d)
    if lanes is None:
        return None
    if pred.text.startswith("!"):
        lanes = ~lanes & ALL_LANES
    pairs = enumerate(zip(a.lanes, b.lanes, strict=True))
    picked = tuple([x if lanes >> n & 1 else y for n, (x, y) in pairs])
    return LaneValue(a.terms, picked)


def _op_hfma2(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
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


def _op_sgxt(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    """`SGXT R3, R8, 0x1`: the low n bits of a, sign-extended (`.U32`: zero-extended), on
    concrete lanes; Triton's layouts build per-lane masks so (a bit of threadIdx.x to 0 or -1,
    then ANDed into a swizzle)."""
    vals = known(m._values(srcs[:2], d))
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


def _op_prmt(m: Model, ins: SassInstruction, srcs: Sequence[Operand], d: int) -> Value | None:
    """`PRMT R5, R5, 0x6540, R0`: bytes of {b, a} picked by the selector's nibbles. Exact on
    concrete lanes; where the low bytes come in order from one input and the rest in order
    from the other's low bytes (0x6540: a's byte 0 under b's bytes 0-2), it is
    `(lo & 0xff..) + hi * 256^m`, the high input symbolic too (ptxas joins a lane index and
    a warp's row so: `(blockIdx.x * 4 + warp) * 256 + lane`)."""
    if ins.modifiers or len(srcs) != 3 or not isinstance(srcs[1].value, int):
        return None
    vals = known(m._values([srcs[0], srcs[2]], d))
    if isinstance(vals, Unknown):
        return vals
    a, b = vals
    sel = [srcs[1].value >> (4 * i) & 0xF for i in range(4)]
    if a.concrete and b.concrete:
        out = []
        for x, y in zip(a.lanes, b.lanes, strict=True):
            word = (y & MASK32) << 32 | (x & MASK32)
            out.append(sum(_byte(word, n) << (8 * i) for i, n in enumerate(sel)))
        return LaneValue((), tuple(out))
    for m_ in (1, 2, 3):
        low, high = sel[:m_], sel[m_:]
        for lo, hi, base in ((a, b, 0), (b, a, 4)):
            if low == list(range(base, base + m_)) and high == list(
                range(4 - base, 4 - base + 4 - m_)
            ):
                if not lo.concrete:
                    return None
                mask = (1 << (8 * m_)) - 1
                kept = LaneValue((), tuple([x & mask for x in lo.lanes]))
                return add(scale(hi, 1 << (8 * m_)), kept)
    return None


def _byte(word: int, n: int) -> int:
    """Byte n & 7 of a 64-bit word, replicated from its sign bit where n has bit 3."""
    byte = word >> (8 * (n & 7)) & 0xFF
    return (0xFF if byte & 0x80 else 0) if n & 8 else byte


_OpFn = Callable[[Model, SassInstruction, Sequence[Operand], int], "Value | None"]
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
    "PRMT": _op_prmt,
}
