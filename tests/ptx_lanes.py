"""A second derivation of every access's lanes, from the PTX: the test oracle of the warp model.

The PTX holds the same address arithmetic as the SASS, before ptxas rewrote it (mul.wide and
add.s64 instead of IMAD.WIDE, a named shared array instead of the shared window's base, no
carry chains, no uniform registers). This reads each kernel's PTX top to bottom, a register
taking the value of its textually last definition (in a rotated loop that is the entering
value: the lanes, all that sectors and banks depend on, are the same), with only the few PTX
operations the recorded kernels use. Only the value arithmetic (sassview.graph.lanes'
LaneValue, add, scale) is shared with the code under test; the walk is its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sassview.graph.lanes import (
    BlockShape,
    LaneValue,
    add,
    const,
    lane_ids,
    scale,
    symbol,
    times_uniform,
)
from sassview.ir import PtxFunction

_SPECIAL = {
    "%tid.x": "SR_TID.X",
    "%tid.y": "SR_TID.Y",
    "%tid.z": "SR_TID.Z",
    "%laneid": "SR_LANEID",
}
_WIDTH = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "f16": 16, "b16": 16, "f64": 64, "u64": 64}
_WIDTH |= {"s64": 64, "b64": 64}
_ADDRESS = re.compile(r"^\[([%\w]+)(?:\+(-?\d+))?\]$")


@dataclass(frozen=True)
class PtxAccess:
    line: int
    space: str  # global, shared
    direction: str  # load, store
    bits: int
    lanes: LaneValue | None  # None: not followed
    matrix: bool = False  # ldmatrix / stmatrix: one row address a lane


def _bits(modifiers: tuple[str, ...]) -> int:
    width = next((_WIDTH[m] for m in modifiers if m in _WIDTH), 32)
    vector = next((int(m[1:]) for m in modifiers if m in ("v2", "v4", "v8")), 1)
    return width * vector


def accesses(function: PtxFunction, block: BlockShape) -> list[PtxAccess]:
    ids = lane_ids(block)
    regs: dict[str, LaneValue | None] = {}

    def value(text: str) -> LaneValue | None:
        if text in regs:
            return regs[text]
        if text in _SPECIAL:
            return ids[_SPECIAL[text]]
        if text.startswith("%ntid."):
            size = getattr(block, text[-1]) if block.known else None
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

    def address(text: str) -> LaneValue | None:
        m = _ADDRESS.match(text)
        if m is None:
            return None
        base = value(m.group(1))
        if base is None:
            return None
        return add(base, const(int(m.group(2) or 0)))

    out = []
    for p in function.instructions:
        op, mods, args = p.opcode, p.modifiers, p.operands
        if op in ("ldmatrix", "stmatrix"):
            count = next((int(m[1:]) for m in mods if m in ("x1", "x2", "x4")), 1)
            where = args[1] if op == "ldmatrix" else args[0]
            direction = "load" if op == "ldmatrix" else "store"
            out.append(PtxAccess(p.line, "shared", direction, 32 * count, address(where), True))
            continue
        if op in ("ld", "st") and ("global" in mods or "shared" in mods):
            space = "global" if "global" in mods else "shared"
            where = args[1] if op == "ld" else args[0]
            lanes = address(where)
            out.append(
                PtxAccess(p.line, space, "load" if op == "ld" else "store", _bits(mods), lanes)
            )
            if op == "ld":
                for dest in args[0].strip("{}").split(","):
                    regs[dest.strip()] = symbol(f"ld{p.line}") if lanes and lanes.uniform else None
            continue
        if not args or not args[0].startswith("%"):
            continue
        dest, srcs = args[0], [value(a) for a in args[1:]]
        regs[dest] = _evaluate(op, mods, srcs, args[1:])
    return out


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
    if op in ("mul", "mad") and ("lo" in mods or "wide" in mods):
        a, b = vals[0], vals[1]
        if a.concrete and a.uniform:
            product = scale(b, a.lanes[0])
        elif b.concrete and b.uniform:
            product = scale(a, b.lanes[0])
        elif a.concrete and b.concrete:
            product = LaneValue((), tuple(x * y for x, y in zip(a.lanes, b.lanes, strict=True)))
        elif a.uniform and b.uniform:  # block index times block size: one value a warp
            product = symbol(f"({a})*({b})")
        elif a.uniform and not b.scaled:  # a lane index times a parameter: a run-time stride
            product = times_uniform(a, b, "ptx")
        elif b.uniform and not a.scaled:
            product = times_uniform(b, a, "ptx")
        else:
            return None
        return add(product, vals[2]) if op == "mad" else product
    if op == "shl" and vals[1].concrete and vals[1].uniform:
        return scale(vals[0], 1 << vals[1].lanes[0])
    if op in ("and", "or", "xor", "shr") and all(v.concrete for v in vals):
        fn = {
            "and": lambda x, y: x & y,
            "or": lambda x, y: x | y,
            "xor": lambda x, y: x ^ y,
            "shr": lambda x, y: x >> y,
        }[op]
        return LaneValue(
            (), tuple(fn(x, y) for x, y in zip(vals[0].lanes, vals[1].lanes, strict=True))
        )
    return None
