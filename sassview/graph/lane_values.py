"""Lane values: what one register holds in each of the 32 lanes of one warp, and the integer
arithmetic on them that the warp model (`sassview.graph.lanes`) follows SASS with.

Its own module because the algebra is independent of SASS and of the control-flow graph: the
tests' PTX derivation (tests/ptx_lanes.py) computes with the same values from PTX.

A value is a `LaneValue`: a warp-uniform symbolic part (a sum of symbols with integer
coefficients: kernel parameters `c[0x0][0x160]`, `SR_CTAID.X`, uniform registers, loop
iterations, products of those) plus 32 concrete integers, one per lane. Lane-varying values
start at `S2R SR_TID.X/Y/Z` and `SR_LANEID` (`lane_ids`); what decides sectors and banks is
the difference between lanes, in which the uniform part cancels.

A mask or modulo by a power of two of a value with a run-time part (`(threadIdx.x + r) % 256`,
`LOP3 R0, R0, 0x3fc, RZ, 0xc0`) keeps a `Wrap`: the lanes for one residue of the run-time
part modulo the ring, and what it takes to get them for any other (`instances`), so the
analyses count every residue and say unknown where the counts differ. A value so wrapped may
be added to, scaled and shifted left; anything else on it is unknown. A modulo by anything
else is not a mask: ptxas computes it with a multiply-high and a correction, which is exact
only on concrete lanes (see `sassview.graph.lane_ops`).

A lane-varying value times a uniform symbol (`x * K`, K a kernel parameter) keeps the symbol's
per-lane multiplier (`scaled`): a stride known only at run time, which the coalescing analysis
counts under a stated condition on the symbol. What cannot be followed is `Unknown`, with the
reason. Never a guess.

How it can be wrong: integers are unbounded (32-bit wraparound and the sign of .U32 forms are
not modelled; a LOP3 reads its lanes as 32-bit words); a global index (block indices times
block sizes plus lanes, loop counts) is taken not to overflow an int, so that its sign is 0
(`nonnegative`).
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import NamedTuple

from sassview.ir import SassInstruction

WARP = 32
_ZEROS = (0,) * WARP
MASK32 = 0xFFFFFFFF


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
            if self.lanes[0] or not parts:  # `c[0x0][0x230]`, not `c[0x0][0x230] + 0`
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


class Inexact(Exception):
    """Two different wraps met in one sum: the value is not followed (becomes Unknown)."""


class Unknown(NamedTuple):
    """Why a value could not be followed; `address`: the instruction the reason is about."""

    reason: str
    address: int | None = None


class Undefined(Unknown):
    """A register no path defines before it is read (at the kernel's entry): a correct
    program reads it along no path that arrives there, so where the definitions of a join
    are merged, a path bringing it is one the read is not reached by (ptxas knows a
    predicate the model does not: `@P0 IMAD R8, ...` where P0 is true whenever the loop
    that set R8 did not run) and is left out. Values computed from it are it."""


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
# What one block may hold on every compute capability (the CUDA C++ Programming Guide's table of
# technical specifications): x and y at most 1024, z at most 64, and 1024 threads in all.
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_BLOCK_THREADS = 1024


def block_too_large(shape: BlockShape) -> str | None:
    """Why no GPU can launch a block of `shape`, or None when one can."""
    dims = (shape.x or 1, shape.y or 1, shape.z or 1)
    for axis, size, most in zip("xyz", dims, MAX_BLOCK_DIMS, strict=True):
        if size > most:
            return f"its {axis} is {size}, and a block's {axis} is at most {most}"
    if shape.threads > MAX_BLOCK_THREADS:
        return f"it is {shape.threads} threads, and a block holds at most {MAX_BLOCK_THREADS}"
    return None


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
        raise Inexact("a sum of two values wrapped modulo different rings")
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


ALL_LANES = (1 << WARP) - 1  # a lane mask (bit l: lane l) with every lane on


def gcd_step(step: int, diff: LaneValue) -> int:
    from math import gcd

    step = gcd(step, diff.lanes[0])
    for _, c in diff.terms:
        step = gcd(step, c)
    return step


def known(values: list[Value]) -> list[LaneValue] | Unknown:
    for v in values:
        if isinstance(v, Unknown):
            return v
    return values  # type: ignore[return-value]


def multiply(a: LaneValue, b: LaneValue, ins: SassInstruction) -> Value:
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


def shift_left(a: LaneValue, s: LaneValue, ins: SassInstruction) -> Value:
    if not (s.concrete and s.uniform) or not 0 <= s.lanes[0] < 64:
        return Unknown(f"{ins.mnemonic}: a shift by a variable amount", ins.address)
    return scale(a, 1 << s.lanes[0])


def shift_right(a: LaneValue, s: LaneValue, ins: SassInstruction) -> Value:
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
        names = ", ".join(sym for sym, _ in a.terms)
        why = (
            f"{ins.mnemonic}: a right shift by {n} of a lane value whose run-time part "
            f"({names}) is not known to be a multiple of {1 << n}: which lanes share a "
            "quotient depends on it"
        )
        if "ntid." in names:  # the block's size, when no block shape is known
            why += " (blockDim is not known: pass --block)"
        return Unknown(why, ins.address)
    return LaneValue(tuple((sym, c >> n) for sym, c in a.terms), tuple([x >> n for x in a.lanes]))


# The symbols of a thread's place in the grid, never negative: block indices, the block's
# and the grid's extents (c[0x0][0x0..0x14]), loop iteration counts, the count of steps of a
# join's paths from the least of them (lanes.WarpModel._uniform_join), and the tags of
# products of those (`(SR_CTAID.X)*(ntid.x)@0040`).
_PLACE = re.compile(
    r"SR_CTAID\.[XYZ]|ntid\.[xyz]|c\[0x0\]\[0x(?:0|4|8|c|10|14)\]|iteration@[0-9a-f]+:\w+"
    r"|paths@[0-9a-f]+:\w+|@[0-9a-f]{4}"
)
_PLACE_REST = frozenset("()*+ 0123456789")


def nonnegative(v: LaneValue) -> bool:
    """Whether v is at least 0 in every lane: its lanes are, and its run-time part is a sum,
    with positive coefficients, of the thread's place in the grid (block indices and
    extents, loop iteration counts, products of those): a global index
    (`blockIdx.x * blockDim.x + threadIdx.x`) or a block-stride loop's, whose sign ptxas
    tests before a signed division (`i / 32`). Taken, as C's int arithmetic lets a kernel
    take, not to overflow: an index past 2^31 - 1 would be negative."""
    if v.scaled or v.wrap is not None or any(x < 0 for x in v.lanes):
        return False
    for sym, c in v.terms:
        if c <= 0 or not _PLACE_REST.issuperset(_PLACE.sub("", sym)):
            return False
    return True


def lop3_bits(lut: int, a: int, b: int, c: int) -> int:
    out = 0
    for i in range(8):
        if lut >> i & 1:
            out |= (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
    return out & MASK32


def bitwise(lut: int, vals: list[LaneValue], ins: SassInstruction) -> Value:
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
            tuple(
                [lop3_bits(lut, x, y, z) for x, y, z in zip(a.lanes, b.lanes, c.lanes, strict=True)]
            ),
        )
    symbolic = [i for i, v in enumerate(vals) if v.terms]
    if len(symbolic) == 1:
        split = _split_bits(lut, vals, symbolic[0], ins)
        if split is not None:
            return split
    if all(v.uniform for v in vals):
        return _uniform_bits(lut, vals, f"lop3@{ins.address:04x}")
    ring = _ring(lut, vals) if len(symbolic) == 1 else None
    if ring is not None:
        return ring
    if len(symbolic) == 1 and any(x < 0 for x in vals[symbolic[0]].lanes):
        return Unknown(f"{ins.mnemonic} on a negative lane part", ins.address)
    if len(symbolic) == 1:
        names = ", ".join(sym for sym, _ in vals[symbolic[0]].terms)
        why = (
            f"{ins.mnemonic}: the lanes' bits and those of a run-time value ({names}) "
            "meet in one bitwise operation"
        )
        if "SR_TID." in names or "ntid." in names:  # a thread index the default warp leaves
            why += " (the block is not known: pass --block)"
        return Unknown(why, ins.address)
    return Unknown(f"{ins.mnemonic} on a symbolic lane-varying value", ins.address)


def _split_bits(lut: int, vals: list[LaneValue], j: int, ins: SassInstruction) -> Value | None:
    """A bitwise operation on S + L (input j: S its run-time part, a multiple of 2^k; L its
    lanes, all in [0, 2^k)) and concrete inputs: bit by bit, the low k bits of the result
    come from L and the inputs' low bits, exact per lane; the bits from k up from S and the
    inputs' high bits, which must be the same in every lane: the result's run-time part is
    S where the operation keeps those bits of S (`x & 0xffffffc0`), none where it clears
    them, else a fresh uniform symbol times the power of two below which it is known zero
    (`(blockIdx.x * 128 + threadIdx.x) / 2 & 0x7ffffff0`, WMMA's warp row: the mask clears
    bit 31 too). None when the input is not of that form (left to the other rules)."""
    v = vals[j]
    k = min(32, v.alignment_bits)
    low = (1 << k) - 1
    if k < 32 and any(x & MASK32 > low for x in v.lanes):  # 32-bit words: mod 2^32
        return None
    if k == 0:
        return None
    high = MASK32 & ~low
    fixed = []
    for i, w in enumerate(vals):
        if i != j:
            tops = {x & high for x in w.lanes}
            if len(tops) != 1:
                return None
            fixed.append(tops.pop())
    a, b, c = vals

    def on_high(s: int) -> int:
        args = iter(fixed)
        return lop3_bits(lut, *(s if i == j else next(args) for i in range(3))) & high

    zero, ones = on_high(0), on_high(high)
    lanes = tuple(
        [lop3_bits(lut, x, y, z) & low for x, y, z in zip(a.lanes, b.lanes, c.lanes, strict=True)]
    )
    if zero == 0 and ones == high:  # every bit of S kept
        return LaneValue(v.terms, lanes)
    possible = zero | ones  # the bits of the result that may be set
    if possible == 0:
        return LaneValue((), lanes)
    t = (possible & -possible).bit_length() - 1
    return add(symbol(f"lop3@{ins.address:04x}", 1 << t), LaneValue((), lanes))


def low_zeros(v: LaneValue) -> int:
    """How many low bits of a uniform value are known to be zero."""
    c = v.lanes[0]
    bits = (c & -c).bit_length() - 1 if c else 64
    return min(bits, v.alignment_bits) if v.terms else bits


def _uniform_bits(lut: int, vals: list[LaneValue], name: str) -> LaneValue:
    """A LOP3 of uniform values with a run-time part: a fresh symbol, but times 2^t where its
    low t bits are known to be zero (`(blockIdx.x << 12) & 0xff000`: a multiple of 4096), so
    that a lane index ORed in below them stays exact (CuTe DSL's and Triton's index math)."""
    zeros = [low_zeros(v) for v in vals]
    t = 0
    while t < 32:
        known = [
            0 if t < z else (v.lanes[0] >> t & 1 if v.concrete else None)
            for v, z in zip(vals, zeros, strict=True)
        ]
        choices = [(b,) if b is not None else (0, 1) for b in known]
        if any(
            lop3_bits(lut, x, y, z) & 1 for x in choices[0] for y in choices[1] for z in choices[2]
        ):
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
        return lop3_bits(lut, *[x if i == j else fixed[i] for i in range(3)])

    m = f(MASK32)
    if f(0) != 0 or m == 0 or m == MASK32:
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
