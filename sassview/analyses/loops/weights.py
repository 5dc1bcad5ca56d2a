"""What each instruction weighs in the loop census: which opcodes follow a loop's iterations
(float and tensor math, memory, lane exchange) and which do not (moves, integer and address
arithmetic, compares, branches: strength-reduced and shared by the copies). Apart from the
census because the unroll analysis weighs by them too (analyses/unroll.py: the loops of a
PTX file or a bare cubin), and because a wrong weight is the first
suspect when a copy count is off: the opcode sets are here, each with why it is in its set.
"""

from __future__ import annotations

from sassview.ir import PtxInstruction, SassInstruction
from sassview.opcodes import is_move

_MEMORY = ("LD", "ST", "ATOM", "RED", "TEX", "TLD", "SULD", "SUST", "LDGSTS", "UBLKCP", "UTMA")
# Named like memory, but none: constants, cp.async's commit, a warp's REDUX (`__reduce_*_sync`
# and the lane masks of a cooperative-groups tile narrower than the warp, computed once)
_NOT_MEMORY = ("LDC", "LDGDEPBAR", "REDUX")
SHUFFLES = frozenset(("BFLY", "DOWN", "UP"))  # SHFL kinds whose lane operand is an offset
_MATH = frozenset(
    ("FADD", "FFMA", "FMUL", "FMNMX", "DADD", "DFMA", "DMUL", "HADD2", "HMUL2", "HFMA2", "MUFU")
    + ("HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA")
)


def weight(ins: SassInstruction) -> tuple[int, int]:
    """(kind, weight): 2 float/tensor math, 1 memory (weighing its 32-bit words: four stores
    merged into one STS.128 count 4) and lane exchange (a SHFL: one per step of a butterfly,
    whose combining op may be a compare and select), 0 what does not follow the iterations
    (moves, integer and address arithmetic, compares, branches: strength-reduced, shared by
    the copies)."""
    op = ins.opcode
    if "SpillRefill" in ins.marks:
        return -1, 0  # register-allocator traffic, not a copy of the source statement
    if ins.guard_negated and ins.guard is not None and str(ins.guard) in ("PT", "UPT"):
        return -1, 0  # `@!PT LDS RZ, [RZ]`: never runs (ptxas' filler before an LDGSTS)
    if is_move(ins):
        return 0, 1
    if op in _MATH:
        return 2, 1
    if op == "SHFL":
        return 1, 1
    if op.startswith(_MEMORY) and not op.startswith(_NOT_MEMORY):
        return 1, 4 if "128" in ins.modifiers else 2 if "64" in ins.modifiers else 1
    return 0, 1


_PTX_MATH = frozenset(
    ("fma", "add", "sub", "mul", "max", "min", "div", "rcp", "sqrt", "rsqrt", "ex2", "lg2")
    + ("sin", "cos", "tanh", "mma", "wgmma", "tcgen05")
)
_PTX_FLOAT = frozenset(("f16", "f16x2", "bf16", "bf16x2", "f32", "f64"))
_PTX_MEMORY = frozenset(("ld", "st", "atom", "red", "cp", "tex", "suld", "sust", "ldmatrix"))


def ptx_weight(ins: PtxInstruction) -> tuple[int, int]:
    """`weight` for PTX: float math (by type) and tensor ops, memory but parameters and
    constants (a `.v4` access weighs 4), the rest."""
    op, mods = ins.opcode, ins.modifiers
    if op in ("mma", "wgmma", "tcgen05") or (op in _PTX_MATH and not _PTX_FLOAT.isdisjoint(mods)):
        return 2, 1
    if op in _PTX_MEMORY and "param" not in mods and "const" not in mods:
        return 1, 4 if "v4" in mods else 2 if "v2" in mods else 1
    return 0, 1
