"""What kind of work each SASS opcode does, for instruction mixes.

Grouping is ours, from NVIDIA's public instruction-set tables (cuda-binary-utilities docs); an
opcode we do not know lands in "other" rather than being guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sassview.ir import SassInstruction

CATEGORIES: dict[str, frozenset[str]] = {
    "tensor": frozenset(
        {
            "HMMA",
            "HGMMA",
            "IMMA",
            "IGMMA",
            "BMMA",
            "BGMMA",
            "DMMA",
            "QMMA",
            "OMMA",
            "UTCHMMA",
            "UTCIMMA",
            "UTCQMMA",
            "UTCOMMA",
            "UTCMMA",
            "UTCBAR",
            "UTCCP",
            "UTCSHIFT",
            "WARPGROUP",
            "WARPGROUPSET",
        }
    ),
    "fp32": frozenset(
        {
            "FADD",
            "FADD32I",
            "FFMA",
            "FFMA32I",
            "FMUL",
            "FMUL32I",
            "FMNMX",
            "FSET",
            "FSETP",
            "FSEL",
            "FCHK",
            "FSWZADD",
            "FMNMX3",
            "FADD2",
            "FFMA2",
            "FMUL2",
            "FHADD",
            "FHFMA",
            "FRND",
        }
    ),
    "fp16": frozenset(
        {
            "HADD2",
            "HADD2_32I",
            "HFMA2",
            "HFMA2_32I",
            "HMUL2",
            "HMUL2_32I",
            "HMNMX2",
            "HSET2",
            "HSETP2",
        }
    ),
    "fp64": frozenset({"DADD", "DFMA", "DMUL", "DSETP", "DMNMX"}),
    "special": frozenset({"MUFU"}),
    "int": frozenset(
        {
            "IADD",
            "IADD3",
            "IADD32I",
            "IMAD",
            "IMAD32I",
            "IMADSP",
            "IMUL",
            "IMNMX",
            "IABS",
            "ISCADD",
            "ISETP",
            "ISET",
            "LEA",
            "LOP",
            "LOP3",
            "LOP32I",
            "SHF",
            "SHL",
            "SHR",
            "POPC",
            "FLO",
            "BREV",
            "BMSK",
            "SGXT",
            "PRMT",
            "IDP",
            "IDP4A",
            "VIADD",
            "VIMNMX",
            "VIMNMX3",
            "VIADDMNMX",
            "IMNMX3",
            "UIADD3",
            "UIMAD",
            "ULEA",
            "ULOP",
            "ULOP3",
            "ULOP32I",
            "USHF",
            "USEL",
            "UISETP",
            "UPRMT",
            "UFLO",
            "UPOPC",
            "UBREV",
            "USGXT",
            "UBMSK",
            "UVIADD",
            "UIMNMX",
            "UIABS",
        }
    ),
    "convert": frozenset(
        {
            "F2F",
            "F2I",
            "I2F",
            "I2I",
            "F2FP",
            "I2FP",
            "F2IP",
            "FRND",
            "I2F.F16",
            "UF2FP",
            "UI2F",
            "UF2F",
            "UF2I",
        }
    ),
    "move": frozenset(
        {
            "MOV",
            "MOV32I",
            "UMOV",
            "SEL",
            "SHFL",
            "S2R",
            "S2UR",
            "CS2R",
            "R2UR",
            "R2P",
            "P2R",
            "UP2UR",
            "PLOP3",
            "UPLOP3",
            "VOTE",
            "VOTEU",
            "REDUX",
            "MATCH",
            "CREDUX",
            "UR2UP",
        }
    ),
    "global": frozenset(
        {
            "LDG",
            "STG",
            "LD",
            "ST",
            "ATOM",
            "ATOMG",
            "RED",
            "REDG",
            "LDGDEPBAR",
            "LDGSTS",
            "CCTL",
            "CCTLL",
            "CCTLT",
        }
    ),
    "shared": frozenset({"LDS", "STS", "LDSM", "STSM", "ATOMS", "LDTM", "STTM"}),
    "local": frozenset({"LDL", "STL"}),
    "constant": frozenset({"LDC", "ULDC", "LDCU"}),
    "async": frozenset(
        {
            "UTMALDG",
            "UTMASTG",
            "UTMAPF",
            "UTMACCTL",
            "UTMACMDFLUSH",
            "UBLKCP",
            "UBLKRED",
            "UBLKPF",
            "SYNCS",
            "ARRIVES",
            "DEPBAR",
            "ACQBULK",
            "UCGABAR_ARV",
            "UCGABAR_WAIT",
        }
    ),
    "texture": frozenset(
        {"TEX", "TLD", "TLD4", "TXQ", "TEXS", "TLDS", "TLD4S", "SULD", "SUST", "SUATOM", "SURED"}
    ),
    "control": frozenset(
        {
            "BRA",
            "BRX",
            "JMP",
            "JMX",
            "CALL",
            "RET",
            "EXIT",
            "BSSY",
            "BSYNC",
            "BREAK",
            "BPT",
            "WARPSYNC",
            "BAR",
            "BARRIER",
            "MEMBAR",  # memory ordering points, like the barriers: no data moved
            "FENCE",
            "ERRBAR",
            "NANOSLEEP",
            "YIELD",
            "KILL",
            "NOP",
            "ELECT",
            "ACQSHMINIT",
            "ENDCOLLECTIVE",
            "CGAERRBAR",
            "PMTRIG",
            "RPCMOV",
            "VOTEU.ANY",
            "UCLEA",
            "UBRA",
        }
    ),
}

_LOOKUP = {op: cat for cat, ops in CATEGORIES.items() for op in ops}


def category(opcode: str) -> str:
    """The work category of a base opcode (no modifiers): 'fp32', 'global', ..., or 'other'."""
    return _LOOKUP.get(opcode, "other")


# The opcodes ptxas also writes moves with (is_move): a count by opcode reads the others whole.
MOVES_AS_MATH = frozenset({"HFMA2"})


def is_move(ins: SassInstruction) -> bool:
    """`HFMA2(.MMA) R5, -RZ, RZ, 0, 2.38e-07`: a half multiply-add by zero is how ptxas writes
    a move of a constant. Counted as a move, not fp16 math."""
    if ins.opcode not in MOVES_AS_MATH or len(ins.operands) < 3:
        return False
    return any(op.registers and op.registers[0].is_zero for op in ins.operands[1:3])


def instruction_category(ins: SassInstruction) -> str:
    """`category` of the instruction's opcode, except a move written as math."""
    return "move" if is_move(ins) else category(ins.opcode)
