"""Which registers one SASS instruction reads and writes, as nvdisasm's liveness sees them.

The text names a register once (`LDG.E.128 R8, ...`), the opcode says how wide it is (R8..R11).
This module holds that per-opcode knowledge and turns an instruction into two bitsets: the
registers it defines and those it uses. It was read off `nvdisasm -plr -lrm narrow`, whose
`^ v x` marks show exactly what nvdisasm counts as written and read, on sm_80..sm_120 code from
NVRTC 13 (tests/test_liveness.py holds it to nvdisasm). Where nvdisasm and the hardware may
disagree we follow nvdisasm, matching its counts being the point: R2P writes no predicate, a
texture fetch with no printed channel mask writes 3 registers on sm_100+ and 4 before.

How it can be wrong: an opcode or form we never met falls back to "the first register operand
is written, every other one read, each as wide as written" — right for most ALU ops, wrong for
a new multi-destination or wide form. sm_120's TLD reads one handle register where this says
two. On sm_8x, global accesses name their 64-bit memory descriptor nowhere in the text;
`implicit_descriptor` recovers it from the code around them, which a device function that got
it from its caller defeats.

Bits: one Python int per set. R0..R254 are bits 0..254, P0..P6 256.., UR0..UR254 264..,
UP0..UP6 520... The zero registers (RZ, PT, URZ, UPT) have no bit: they are never live.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sassview.ir import Operand, OperandKind, SassInstruction
from sassview.parse.sass_operands import parse_operand

FILES = ("GPR", "PRED", "UGPR", "UPRED")
BASE = {"R": 0, "P": 256, "UR": 264, "UP": 520}
FILE_BASE = {"GPR": 0, "PRED": 256, "UGPR": 264, "UPRED": 520}
FILE_SIZE = {"GPR": 255, "PRED": 7, "UGPR": 255, "UPRED": 7}
FILE_PREFIX = {"GPR": "R", "PRED": "P", "UGPR": "UR", "UPRED": "UP"}
MASK = {f: ((1 << FILE_SIZE[f]) - 1) << FILE_BASE[f] for f in FILES}
R0, R1 = 1 << 0, 1 << 1
PLAIN, CALL, RET = 0, 1, 2  # what an instruction means to the ABI, beyond its operands


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_K = OperandKind
_REG, _MEM, _CONST, _OTHER, _IMM = _K.REGISTER, _K.MEMORY, _K.CONSTANT, _K.OTHER, _K.IMMEDIATE
_NO_DEST = _words(
    "ST STG STS STL STSM STAS RED REDG REDAS SUST SURED BRA BRX JMP JMX EXIT RET CALL KILL "
    "BSSY BSYNC BREAK WARPSYNC BAR BPT NOP MEMBAR FENCE ERRBAR CCTL CCTLL DEPBAR LDGDEPBAR "
    "LDGSTS UTMALDG UTMASTG UTMAPF UTMAREDG UTMACCTL UTMACMDFLUSH UBLKCP UBLKRED UBLKPF "
    "UCGABAR_ARV UCGABAR_WAIT WARPGROUP WARPGROUPSET NANOSLEEP YIELD PMTRIG UVIRTCOUNT "
    "CGAERRBAR ACQBULK UTCBAR UTCCP UTCHMMA UTCIMMA UTCQMMA UTCOMMA UTCMMA UTCSHIFT STTM "
    "ARRIVES RPCMOV"
)
_TWO_PRED = _words("ISETP FSETP DSETP HSETP2 UISETP PSETP PLOP3 UPLOP3 UFSETP")
# Leading predicate outputs, one register, then carry-out predicates: LOP3.LUT P0, R3, ...;
# IADD3 R4, P0, P1, ...; SHFL.IDX PT, R6, ...; ATOMG PT, R3, ...; IMNMX.S64 PT, PT, R12, ...
_PRED_AROUND = _words(
    "LOP3 ULOP3 LOP SHFL ATOM ATOMG ATOMS IMNMX UIMNMX IADD3 UIADD3 IMAD UIMAD LEA ULEA IADD "
    "UIADD IADD32I IMAD32I MATCH VIADD UVIADD FLO UFLO ELECT UTCATOMSWS IMUL ISCADD QSPC"
)
_TEXTURE = frozenset({"TEX", "TLD", "TLD4", "TXD", "TMML", "TXQ"})
_DOUBLE = frozenset({"DADD", "DFMA", "DMUL", "DMNMX", "DSETP", "DSET"})
_WIDE_WITH_64 = frozenset({"MOV", "UMOV", "SEL", "USEL", "IADD", "UIADD3", "LOP3", "ULOP3"})
_MMA = _words("HMMA IMMA DMMA BMMA QMMA OMMA")
_GMMA = _words("HGMMA IGMMA QGMMA BGMMA")
_CONVERT = _words("F2F F2I I2F I2I FRND UF2F UF2I UI2F UFRND")
_SIZE = {"64": 2, "128": 4, "256": 8, "F64": 2, "S64": 2, "U64": 2}
_LOADS = _words("LD LDG LDS LDL LDC ULDC LDCU LDSM ATOM ATOMG ATOMS SULD SYNCS")
_STORES = _words("ST STG STS STL STSM RED REDG REDAS ATOM ATOMG ATOMS SUST SYNCS")
# Opcodes with an operand wider than written, or more than one: everything _widths knows.
_SHAPED = _words("IMNMX ISETP UISETP UIMNMX CALL RET BRX JMX LEPC CS2R CS2UR IMAD UIMAD LDTM STTM")
_SHAPED |= _DOUBLE | _WIDE_WITH_64 | _TEXTURE | _MMA | _GMMA | _CONVERT | _LOADS | _STORES
_BYTES: dict[str, float] = dict(F16=2, BF16=2, TF32=4, F32=4, F64=8, S32=4, S8=1, U8=1, S4=0.5)
_BYTES |= dict(U4=0.5, B1=0.125, E4M3=1, E5M2=1, E2M1=0.5, E3M2=0.75, E2M3=0.75)
_TYPE64 = frozenset({"F64", "S64", "U64"})
_INT_TYPES = frozenset({"S8", "U8", "S16", "U16", "S32", "U32", "S64", "U64"})
_MMA_SHAPE = re.compile(r"^(?:(\d+)x(\d+)x(\d+)|(16|8)(8)(\d+))$")
_DIMS = {"1D": 1, "2D": 2, "3D": 3, "4D": 4, "5D": 5, "CUBE": 3}
_DIMS |= {"ARRAY_1D": 2, "ARRAY_2D": 3, "ARRAY_3D": 4, "ARRAY_CUBE": 4}
_LDTM = re.compile(r"^(?:(16dp|32dp)?(\d+)bit)$")
_SURFACE = frozenset({"SULD", "SUST", "SURED", "SUATOM"})
_TMA = frozenset({"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG"})


def bits(file: str, index: int | None, width: int = 1) -> int:
    """The bitset of `width` registers from `index` of file R, P, UR or UP; 0 for RZ/PT/others."""
    if index is None or file not in BASE:
        return 0
    width = min(width, (7 if file in ("P", "UP") else 255) - index)
    return ((1 << width) - 1) << (BASE[file] + index) if width > 0 else 0


def names(mask: int) -> tuple[str, ...]:
    """Register names of a bitset, file by file, in index order: ("R4", "R5", "P0")."""
    out: list[str] = []
    for file in FILES:
        part, prefix, i = (mask & MASK[file]) >> FILE_BASE[file], FILE_PREFIX[file], 0
        while part:
            if part & 1:
                out.append(f"{prefix}{i}")
            part >>= 1
            i += 1
    return tuple(out)


def _is_pred(op: Operand) -> bool:
    return op.kind is _REG and op.registers[0].file in ("P", "UP")


def _dest_count(opcode: str, ops: Sequence[Operand]) -> int:
    """How many leading operands the instruction writes."""
    if not ops or opcode in _NO_DEST:
        return 0
    if opcode in _TWO_PRED:
        return 2
    if opcode in ("VOTE", "VOTEU"):  # VOTE.ANY R11, PT, P0 / VOTE.ALL P1, P1
        return 1 if _is_pred(ops[0]) else 2
    if opcode in _TEXTURE:  # TEX Rd0, Rd1, coordinates, ...
        return 2 if len(ops) > 1 and ops[1].kind is _REG else 1
    if opcode in _PRED_AROUND:
        i = 0
        while i < len(ops) and _is_pred(ops[i]):
            i += 1
        if i < len(ops) and ops[i].kind is _REG:
            i += 1
            while i < len(ops) - 1 and _is_pred(ops[i]):
                i += 1
        return i
    return 1 if ops[0].kind is _REG else 0


def _size(opcode: str, mods: tuple[str, ...]) -> int:
    """Registers per data operand of a load, store or atomic: .64/.F64 -> 2, .128 -> 4."""
    if opcode in ("LDSM", "STSM"):
        return int(mods[-1]) if mods and mods[-1].isdigit() else 1
    if opcode == "SYNCS":  # SYNCS.EXCH.64 stores 64 bits (SYNCS.ARRIVE's state: see _widths)
        return 2 if "64" in mods else 1
    for m in mods:
        if m in _SIZE:
            return _SIZE[m]
    return 1


def _mma_dims(mods: tuple[str, ...]) -> tuple[int, int, int] | None:
    for m in mods:
        match = _MMA_SHAPE.match(m)
        if match:
            g = match.groups()
            return (int(g[0]), int(g[1]), int(g[2])) if g[0] else (int(g[3]), int(g[4]), int(g[5]))
    return None


def _mma_widths(opcode: str, mods: tuple[str, ...]) -> list[int]:
    """D, A, B, C of HMMA/IMMA/DMMA/BMMA/QMMA/OMMA: a fragment is rows*cols*bytes/128 registers."""
    dims = _mma_dims(mods)
    if dims is None:
        return []
    m, n, k = dims
    types = [t for t in mods if t in _BYTES]
    if opcode == "DMMA":
        d_bytes, a_bytes = 8.0, 8.0
    elif opcode in ("IMMA", "BMMA"):
        d_bytes, a_bytes = 4.0, _BYTES[types[-1]] if types else (0.125 if opcode == "BMMA" else 1)
    else:
        d_bytes = _BYTES.get(types[0], 4) if types else 4
        a_bytes = _BYTES[types[1]] if len(types) > 1 else (2 if opcode == "HMMA" else 1)
    a = max(1, int(m * k * a_bytes / 128 / (2 if "SP" in mods else 1)))
    d = max(1, int(m * n * d_bytes / 128))
    return [d, a, max(1, int(n * k * a_bytes / 128)), d]


def _gmma_accumulator(opcode: str, mods: tuple[str, ...]) -> int:
    """Registers of an HGMMA/IGMMA/QGMMA accumulator: 64 x N elements over 128 threads."""
    dims = _mma_dims(mods)
    n = dims[1] if dims else 8
    types = [t for t in mods if t in _BYTES]
    d_bytes = 4 if opcode in ("IGMMA", "BGMMA") or not types else _BYTES.get(types[0], 4)
    return max(1, int(64 * n * d_bytes / 4 / 128))


def _convert_widths(opcode: str, mods: tuple[str, ...]) -> tuple[int, int]:
    """(destination, source) widths of F2F/F2I/I2F/I2I/FRND from their type modifiers."""
    types = [m for m in mods if m in _BYTES or m in _INT_TYPES]
    floats = [t for t in types if t not in _INT_TYPES]
    ints = [t for t in types if t in _INT_TYPES]
    if opcode in ("F2F", "FRND", "I2I"):
        dst = types[0] if types else "F32"
        src = types[1] if len(types) > 1 else dst
    elif opcode == "F2I":
        dst, src = (ints[0] if ints else "S32"), (floats[0] if floats else "F32")
    else:  # I2F
        dst, src = (floats[0] if floats else "F32"), (ints[0] if ints else "S32")
    return (2 if dst in _TYPE64 else 1), (2 if src in _TYPE64 else 1)


def _texture_widths(ops: Sequence[Operand], w: list[int]) -> None:
    """TEX/TLD/TLD4 Rd0, Rd1, coords, ...: Rd1 takes the first two channels, Rd0 the rest.

    The channel mask is the immediate after the dimension (TLD ... 1D, 0x9); with none printed
    nvdisasm counts 4 channels in the sm_90 form (which shows a 0x0 operand) and 3 in sm_100's.
    """
    dim_at = next((i for i, op in enumerate(ops) if op.text in _DIMS), None)
    if dim_at is not None and dim_at + 1 < len(ops) and ops[dim_at + 1].kind is _IMM:
        channels = bin(int(ops[dim_at + 1].value or 0)).count("1")
    else:
        channels = 4 if any(op.text == "0x0" for op in ops[:dim_at]) else 3
    w[1], w[0] = min(2, channels), max(0, channels - 2)
    coords = next(
        (i for i in range(2, len(ops)) if ops[i].kind is _REG and ops[i].registers[0].file == "R"),
        None,
    )
    if coords is not None and dim_at is not None:
        w[coords] = _DIMS[ops[dim_at].text]
    for i, op in enumerate(ops):
        if op.kind is _REG and op.registers[0].file == "UR":
            w[i] = 2


def _widths(
    opcode: str, mods: tuple[str, ...], ndst: int, ops: Sequence[Operand]
) -> list[int] | None:
    """Width of each register operand where the opcode makes it wider (0 = as written); None
    when no operand is (most ALU instructions). One family of opcodes per helper below."""
    if opcode not in _SHAPED:
        return None
    if _all_wide(opcode, mods):
        return [2] * len(ops)
    w = [0] * len(ops)
    if opcode in ("IMAD", "UIMAD") and ("WIDE" in mods or "HI" in mods):
        _imad_widths(mods, ndst, ops, w)
    elif opcode in _CONVERT:
        dst, src = _convert_widths(opcode[1:] if opcode[0] == "U" else opcode, mods)
        w = [dst] + [src] * (len(ops) - 1)
    elif opcode in _TEXTURE:
        _texture_widths(ops, w)
    elif opcode in _MMA:
        regs = [i for i, op in enumerate(ops) if op.kind is _REG and not _is_pred(op)]
        for i, width in zip(regs, _mma_widths(opcode, mods), strict=False):
            w[i] = width
    elif opcode in _GMMA:
        _gmma_widths(opcode, mods, ops, w)
    elif opcode in ("LDTM", "STTM"):
        _tensor_memory_widths(opcode, mods, ops, w)
    else:
        _memory_widths(opcode, mods, ndst, ops, w)
    return w


def _all_wide(opcode: str, mods: tuple[str, ...]) -> bool:
    """Is every register operand 64-bit? Doubles, the 64-bit integer forms, the targets of calls
    and returns, a 64-bit PC or clock read."""
    return (
        opcode in _DOUBLE
        or (opcode in _WIDE_WITH_64 and "64" in mods)
        or (opcode in ("IMNMX", "ISETP", "UISETP", "UIMNMX") and ("S64" in mods or "U64" in mods))
        or opcode in ("CALL", "RET", "BRX", "JMX")
        or (opcode in ("LEPC", "CS2R", "CS2UR") and "32" not in mods)
    )


def _imad_widths(mods: tuple[str, ...], ndst: int, ops: Sequence[Operand], w: list[int]) -> None:
    """IMAD.WIDE: a 64-bit result and C; IMAD.HI adds a 64-bit C to the high half."""
    w[0] = 2 if "WIDE" in mods else 1
    srcs = [i for i in range(ndst, len(ops)) if not _is_pred(ops[i])]
    if len(srcs) >= 3:
        w[srcs[2]] = 2


def _gmma_widths(opcode: str, mods: tuple[str, ...], ops: Sequence[Operand], w: list[int]) -> None:
    """D and C as wide as the accumulator; A, when it is in registers, 4."""
    acc = _gmma_accumulator(opcode, mods)
    regs = [i for i, op in enumerate(ops) if op.kind is _REG and not _is_pred(op)]
    for j, i in enumerate(regs):
        w[i] = 4 if (j == 1 and len(regs) == 3) else acc  # D, [A in registers,] C


def _tensor_memory_widths(
    opcode: str, mods: tuple[str, ...], ops: Sequence[Operand], w: list[int]
) -> None:
    """LDTM's destination / STTM's source: the shape's registers per repetition, times xN."""
    shape = next((m for m in mods if _LDTM.match(m)), "32bit")
    per = {"16dp128bit": 2, "16dp256bit": 4}.get(shape, 1)
    count = next((int(m[1:]) for m in mods if m[:1] == "x" and m[1:].isdigit()), 1)
    w[0 if opcode == "LDTM" else len(ops) - 1] = per * count


def _memory_widths(
    opcode: str, mods: tuple[str, ...], ndst: int, ops: Sequence[Operand], w: list[int]
) -> None:
    """A load's last destination and a store's or atomic's data registers: the access size."""
    size = _size(opcode, mods)
    if opcode in _LOADS and ndst:
        w[ndst - 1] = 2 if opcode == "SYNCS" and mods[:1] == ("ARRIVE",) else size  # 64-bit state
    if opcode in _STORES or opcode.startswith("ATOM"):
        for i in range(ndst, len(ops)):
            if ops[i].kind is _REG and not _is_pred(ops[i]):
                w[i] = size


def _address_width(opcode: str, mods: tuple[str, ...], op: Operand, n: int, position: int) -> int:
    """Width of the n-th register inside an address, descriptor or constant operand."""
    reg, text = op.registers[n], op.text.lstrip("-")
    if reg.file == "UR":
        if n == 0 and text.startswith("desc["):
            return 2
        if n == 0 and text.startswith("gdesc["):
            return 4 if opcode.endswith("GMMA") else 2
        if opcode in _TMA and text.startswith("[UR"):
            dims = next((_DIMS[m] for m in mods if m in _DIMS), 0)
            if position > 0:
                return 2  # the tensor map's address
            return {"UTMALDG": 2 + dims, "UTMASTG": 1 + dims, "UTMAREDG": 1 + dims}.get(
                opcode, dims
            )
        if opcode in ("UBLKCP", "UBLKRED", "UBLKPF") and text.startswith("[UR"):
            spaces = [m for m in mods if m in ("S", "G")]
            space = spaces[position] if position < len(spaces) else "G"
            return (
                2 if space == "G" or position == 0 else 1
            )  # a shared destination: address + barrier
        if n > 0 and op.kind is _MEM and op.registers[0].file == "R" and op.registers[0].count == 2:
            return 2  # [R12.64+UR8]: an offset to a 64-bit address is 64-bit
    elif reg.file == "R" and reg.count == 1 and op.kind is _MEM and not text.startswith("desc"):
        if opcode in _SURFACE:
            return next((_DIMS[m] for m in mods if m in _DIMS), 1)
        if opcode == "LDGSTS" and position == 0:
            return 1  # LDGSTS.E [R193+0x2800], [R2.64]: .E is the global source; shared is 32-bit
        if "E" in mods:
            return 2  # LD.E [R2], ATOMG.E.CAS [R10]: .E addresses are 64-bit
    return reg.count


def operand_effects(
    opcode: str, mods: tuple[str, ...], ops: Sequence[Operand]
) -> tuple[int, int, int]:
    """(defined bits, used bits, kind) of one instruction, from its opcode and operands alone.

    The guard is not included. Whether a definition kills (not when guarded by a P register)
    and the ABI effects of CALL/RET are the caller's business; `kind` says which those are.
    """
    ndst = _dest_count(opcode, ops)
    widths = _widths(opcode, mods, ndst, ops)
    defs = uses = 0
    position = 0  # index among the address operands, for TMA and bulk copies
    for i, op in enumerate(ops):
        kind = op.kind
        if kind is _REG:
            reg = op.registers[0]
            index = reg.index
            if index is None or reg.file not in BASE:
                continue
            width = (widths[i] if widths else 0) or reg.count
            if width == 1 or reg.file in ("P", "UP"):
                bit = 1 << (BASE[reg.file] + index)
            else:
                bit = bits(reg.file, index, width)
            if i < ndst:
                defs |= bit
            else:
                uses |= bit
            continue
        if kind is _OTHER:
            op = _reparse(op)
            kind = op.kind
            if kind is _REG:
                reg = op.registers[0]
                uses |= bits(reg.file, reg.index, (widths[i] if widths else 0) or reg.count)
                continue
        if kind is _MEM or kind is _CONST:
            for n, reg in enumerate(op.registers):
                if (
                    reg.file == "R"
                    and (reg.count == 2 or "E" not in mods)
                    and opcode not in _SURFACE
                ):
                    uses |= bits("R", reg.index, reg.count)  # the common case, spelled out
                else:
                    uses |= bits(reg.file, reg.index, _address_width(opcode, mods, op, n, position))
            position += kind is _MEM
    if opcode == "CALL":
        return defs, uses | R0 | R1, CALL
    return defs, uses, RET if opcode == "RET" else PLAIN


def _reparse(op: Operand) -> Operand:
    """What the operand parser left untyped: gdesc[UR4].tnspB, |R0|.reuse, 'R4 -0x110' (BRX)."""
    text = op.text
    if "]" in text:
        return parse_operand(text[: text.rindex("]") + 1])
    head = text.split()[0].replace(".reuse", "").strip("|-!~") if text.split() else text
    return parse_operand(head) if head and head != text else op


_GLOBAL = frozenset({"LDG", "STG", "LD", "ST", "ATOM", "ATOMG", "RED", "REDG", "LDGSTS", "CCTL"})


def implicit_descriptor(instructions: Sequence[SassInstruction]) -> list[int] | None:
    """Per instruction, the UR pair an sm_8x global access reads without naming it (else 0);
    None when the code loads no descriptor (sm_90 and later name theirs).

    On sm_80..sm_89 the memory descriptor of LDG/STG/LD/ST/ATOM/RED lives in a uniform register
    pair the text omits: `LDG.E R2, [R2.64]` after `ULDC.64 UR4, c[0x0][0x118]` reads UR4:UR5.
    We take the pair most recently loaded from c[0x0][0x118] in program order (ptxas loads it
    once, at the top), and only for addresses printed with .64 — nvdisasm counts none for
    CAS, whose address prints bare.
    """
    loads = [
        n for n, ins in enumerate(instructions) if ins.opcode == "ULDC" and _loads_descriptor(ins)
    ]
    if not loads:
        return None
    out = [0] * len(instructions)
    current = _descriptor_bits(instructions[loads[0]])
    for n, ins in enumerate(instructions):
        if _loads_descriptor(ins):
            current = _descriptor_bits(ins)
        elif ins.opcode in _GLOBAL and "E" in ins.modifiers:
            for op in ins.operands:
                if op.kind is _MEM and not op.text.startswith(("desc", "-desc")) and op.registers:
                    first = op.registers[0]
                    if first.file == "R" and first.count == 2:
                        out[n] = current
    return out


def _loads_descriptor(ins: SassInstruction) -> bool:
    ops = ins.operands
    return (
        ins.opcode == "ULDC"
        and len(ops) == 2
        and ops[1].text == "c[0x0][0x118]"
        and ops[0].kind is _REG
    )


def _descriptor_bits(ins: SassInstruction) -> int:
    return bits("UR", ins.operands[0].registers[0].index, 2)
