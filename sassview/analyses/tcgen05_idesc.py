"""The shape and types of a Blackwell `tcgen05.mma`, read from its instruction descriptor.

UTCHMMA / UTCQMMA / UTCIMMA take their M, N, element types and majorness from a 32-bit
instruction descriptor in a uniform register (`idesc[UR13]`), not from the opcode as HGMMA
does. When that register holds a value ptxas materialised (`UMOV UR13, 0x8400490`: the
descriptor was a compile-time constant, as it is when a kernel builds it from template
parameters) the shape can be read off it; when it comes from memory or a kernel parameter it
cannot, and the shape stays unknown.

The layout (PTX ISA 9.x, "Instruction descriptor" of tcgen05.mma, for .kind::f16, ::tf32,
::f8f6f4 and ::i8; the block-scaled kinds use another layout and are not decoded), checked
against the bit readers of the CuTe DSL's `Tcgen05InstrDesc` (nvidia-cutlass-dsl 4.8) and
against ptxas: each field below, compiled in tests/data/analyses/sources/tcgen05_shapes.cu,
gives the UMOV value the tests read back.

    bits 0-1 sparsity selector, 2 sparse, 3 saturate, 4-5 D type (F16, F32, S32),
    7-9 A type, 10-12 B type, 13/14 negate A/B, 15/16 A/B MN-major,
    17-22 N >> 3, 24-28 M >> 4.

K is not in the descriptor: it is fixed by the kind (32 bytes of A per row: 16 f16, 8 tf32,
32 f8f6f4 or i8), doubled for sparse A. With `.cta_group::2` (UTC*MMA.2CTA) M is the pair's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sassview.graph.dataflow import register_effects
from sassview.ir import OperandKind, SassInstruction

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph

_D_TYPES = {0: "F16", 1: "F32", 2: "S32"}
_INPUT_TYPES = {
    "kind::f16": {0: "F16", 1: "BF16"},
    "kind::tf32": {2: "TF32"},
    "kind::f8f6f4": {0: "E4M3", 1: "E5M2", 3: "E2M3", 4: "E3M2", 5: "E2M1"},
    "kind::i8": {0: "U8", 1: "S8"},
}
_K = {"kind::f16": 16, "kind::tf32": 8, "kind::f8f6f4": 32, "kind::i8": 32}
_M_BY_GROUP = {1: (64, 128), 2: (128, 256)}


@dataclass(frozen=True, slots=True)
class Tcgen05Shape:
    m: int
    n: int
    k: int
    accumulator: str
    inputs: str  # "BF16", or "E4M3.E5M2" when A and B differ
    sparse: bool
    a_mn_major: bool
    b_mn_major: bool

    @property
    def shape(self) -> str:
        """As PTX writes shapes elsewhere: m128n256k16."""
        return f"m{self.m}n{self.n}k{self.k}"


def _bits(value: int, low: int, width: int) -> int:
    return (value >> low) & ((1 << width) - 1)


def decode_idesc(value: int, kind: str | None, cta_group: int = 1) -> Tcgen05Shape | None:
    """The shape a constant descriptor encodes for `kind` (`kind::f16` ...), or None when the
    kind is not one this layout covers or the fields do not make a shape tcgen05.mma has
    (better no shape than a wrong one)."""
    inputs = _INPUT_TYPES.get(kind or "")
    if inputs is None or cta_group not in _M_BY_GROUP:
        return None
    value &= 0xFFFFFFFF
    m, n = _bits(value, 24, 5) << 4, _bits(value, 17, 6) << 3
    d = _D_TYPES.get(_bits(value, 4, 2))
    a, b = inputs.get(_bits(value, 7, 3)), inputs.get(_bits(value, 10, 3))
    n_step = 8 if m == 64 else 16
    if (
        d is None
        or a is None
        or b is None
        or m not in _M_BY_GROUP[cta_group]
        or not (n_step <= n <= 256 and n % n_step == 0)
    ):
        return None
    sparse = bool(_bits(value, 2, 1))
    return Tcgen05Shape(
        m=m,
        n=n,
        k=_K[kind or ""] * (2 if sparse else 1),
        accumulator=d,
        inputs=a if a == b else f"{a}.{b}",
        sparse=sparse,
        a_mn_major=bool(_bits(value, 15, 1)),
        b_mn_major=bool(_bits(value, 16, 1)),
    )


def constant_before(
    instructions: Sequence[SassInstruction], cfg: ControlFlowGraph, reg: str, index: int
) -> int | None:
    """The value `reg` holds before `instructions[index]` when every definition that can reach
    it is an unguarded `MOV`/`UMOV reg, imm` of the same immediate; None otherwise (a value
    from memory, a parameter, arithmetic, or no definition). Reaching definitions are found by
    walking the CFG backwards from the instruction, each block once: a search, not the lane
    model, because the descriptor sits in ELECT retry loops the loop finder does not count."""
    found: set[int] = set()
    seen: set[int] = set()
    work = [(cfg.block_of_index(index).index, index - 1)]
    while work:
        b, i = work.pop()
        block = cfg.blocks[b]
        while i >= block.first:
            ins = instructions[i]
            if reg in register_effects(ins).defs:
                value = _immediate_move(ins)
                if value is None:
                    return None
                found.add(value)
                if ins.guard is None:
                    break  # a guarded move may not run: keep looking past it
            i -= 1
        else:
            if not block.predecessors:
                return None  # reaches the kernel's entry undefined
            for p in block.predecessors:
                if p not in seen:
                    seen.add(p)
                    work.append((p, cfg.blocks[p].last))
    return found.pop() if len(found) == 1 else None


def _immediate_move(ins: SassInstruction) -> int | None:
    if ins.opcode not in ("UMOV", "MOV", "MOV32I") or len(ins.operands) != 2:
        return None
    src = ins.operands[1]
    if src.kind is not OperandKind.IMMEDIATE or src.value is None:
        return None
    return int(src.value) & 0xFFFFFFFF
