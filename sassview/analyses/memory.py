"""Shared helpers for the memory analyses: which SASS instructions touch memory, where, how wide.

Not an analysis (it has no `run`): `memory_width`, `spills` and `async_copy` read memory
instructions through `classify`, so they agree on what LDG.E.128 or LDSM.16.M88.4 means.

Widths come from the opcode's modifiers, as nvdisasm prints them on sm_80 ... sm_120:
`.128`/`.64`/`.256` (LDG.E.ENL2.256 on sm_100), `.U8`/`.S8`/`.U16`/`.S16`, `.F64`/`.F16x2` on
atomics, and a count `.2`/`.4` on LDSM/STSM (per thread: one 32-bit register per 8x8 matrix);
without one an access is 32 bits. TMA and bulk copies (UTMALDG, UTMASTG, UBLKCP, ...) move a
whole tile: their width is "bulk". Generic LD/ST/ATOM/RED say nothing about the space; the PTX
instruction they came from (ld.global..., atom.shared...) refines it where the cubin maps it.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from sassview.ir import Kernel, Operand, OperandKind, PtxInstruction, SassInstruction, SourceLoc
from sassview.memo import Memo

BULK = "bulk"

# opcode -> (space, direction). UBLKCP / UBLKRED are decided by their .S.G / .G.S modifiers.
_KIND: dict[str, tuple[str, str]] = {
    "LDG": ("global", "load"),
    "STG": ("global", "store"),
    "LD": ("generic", "load"),
    "ST": ("generic", "store"),
    "LDS": ("shared", "load"),
    "STS": ("shared", "store"),
    "LDL": ("local", "load"),
    "STL": ("local", "store"),
    "LDC": ("constant", "load"),
    "ULDC": ("constant", "load"),
    "LDCU": ("constant", "load"),
    "LDGSTS": ("global", "load"),  # cp.async: reads global, writes shared
    "LDSM": ("shared", "load"),
    "STSM": ("shared", "store"),
    "ATOM": ("generic", "atomic"),
    "ATOMG": ("global", "atomic"),
    "ATOMS": ("shared", "atomic"),
    "RED": ("generic", "atomic"),
    "REDG": ("global", "atomic"),
    "UTMALDG": ("global", "load"),
    "UTMASTG": ("global", "store"),
    "UTMAREDG": ("global", "atomic"),
    "UBLKCP": ("global", "load"),
    "UBLKRED": ("global", "atomic"),
}
MEMORY_OPCODES = frozenset(_KIND)
BULK_OPCODES = frozenset({"UTMALDG", "UTMASTG", "UTMAREDG", "UBLKCP", "UBLKRED"})
_MATRIX = frozenset({"LDSM", "STSM"})
_WIDTH = {
    "256": 256, "128": 128, "64": 64, "32": 32, "U8": 8, "S8": 8, "U16": 16, "S16": 16,
    "F64": 64, "S64": 64, "U64": 64, "F16x2": 32, "BF16x2": 32,
}  # fmt: skip
_SPACE_LETTER = {"G": "global", "S": "shared"}
_PTX_SPACES = ("global", "shared", "local", "const", "param")


class MemoryAccess(NamedTuple):
    """One memory instruction, classified. `bits` is an int, or "bulk" for TMA / bulk copies.

    A NamedTuple rather than a frozen dataclass: a 65k-instruction kernel makes tens of
    thousands of these, and tuple construction is several times cheaper.
    """

    instruction: SassInstruction
    space: str  # global, shared, local, constant, generic
    direction: str  # load, store, atomic
    bits: int | str
    operand: Operand | None  # the address operand ([R2.64+0x10]), when there is one

    @property
    def address(self) -> int:
        return self.instruction.address


def never_executes(ins: SassInstruction) -> bool:
    """`@!PT ...`: a placeholder ptxas pads with (`@!PT LDS RZ, [RZ]` before cp.async / membar)."""
    guard = ins.guard
    if guard is None or not ins.guard_negated:
        return False
    return guard.index is None and guard.file in ("P", "UP")


def access_bits(ins: SassInstruction) -> int | str:
    """Width in bits of one access by one thread, from the modifiers (32 when none says)."""
    return _bits(ins.opcode, ins.modifiers)


def _bits(opcode: str, mods: tuple[str, ...]) -> int | str:
    if opcode in BULK_OPCODES:
        return BULK
    if not mods:
        return 32
    if opcode in _MATRIX:
        # LDSM.16.M88.4 / LDSM.16.MT88.2 / LDSM.16.M88: a trailing count of 8x8 matrices.
        count = next((int(m) for m in reversed(mods) if m in ("1", "2", "4")), 1)
        return 32 * count
    bits = 32
    for mod in mods:
        width = _WIDTH.get(mod)
        if width is not None:
            bits = width
    return bits


def ptx_lines(kernel: Kernel) -> dict[int, PtxInstruction]:
    """PTX line -> the instruction on it (the first memory-like one when a line holds several)."""
    table: dict[int, PtxInstruction] = {}
    if kernel.ptx is None:
        return table
    for p in kernel.ptx.instructions:
        held = table.get(p.line)
        if held is None or (held.opcode not in _PTX_MEMORY and p.opcode in _PTX_MEMORY):
            table[p.line] = p
    return table


def ptx_opcodes(kernel: Kernel) -> Counter[str]:
    """How many PTX instructions of each opcode the kernel has (for `AnalysisContext.shared`):
    an analysis looking for a few rare opcodes (mma, wgmma, mbarrier) skips the 10^5
    instructions of a kernel without them. Counted in C, by Counter over the opcodes."""
    if kernel.ptx is None:
        return Counter()
    return Counter(map(_OPCODE, kernel.ptx.instructions))


_OPCODE = operator.attrgetter("opcode")


_PTX_MEMORY = frozenset(
    {"ld", "st", "atom", "red", "cp", "ldmatrix", "stmatrix", "ldu", "mbarrier", "wgmma", "mma"}
)


def ptx_for(
    kernel: Kernel, table: Mapping[int, PtxInstruction], address: int
) -> PtxInstruction | None:
    line = kernel.correspondence.ptx_for_sass(address)
    return table.get(line) if line is not None else None


def classify(ins: SassInstruction, ptx: PtxInstruction | None = None) -> MemoryAccess | None:
    """The access one instruction makes, or None when it touches no memory (or never runs)."""
    if ins.opcode not in _KIND or never_executes(ins):
        return None
    space, direction, bits = _form(ins.opcode, ins.modifiers, ptx)
    return MemoryAccess(ins, space, direction, bits, _address_operand(ins, space))


def _form(
    opcode: str, modifiers: tuple[str, ...], ptx: PtxInstruction | None
) -> tuple[str, str, int | str]:
    """(space, direction, bits) of a memory opcode with these modifiers (and, for a generic
    access, the PTX instruction it came from)."""
    space, direction = _KIND[opcode]
    if opcode in ("UBLKCP", "UBLKRED"):
        # UBLKCP.S.G: to shared from global (a load); UBLKCP.G.S: to global from shared.
        letters = [_SPACE_LETTER[m] for m in modifiers if m in _SPACE_LETTER]
        if len(letters) >= 2:
            dst, src = letters[0], letters[1]
            if dst == "global":
                space, direction = "global", "store" if opcode == "UBLKCP" else "atomic"
            elif src == "global":
                space = "global"
            else:
                space = "shared"
    if space == "generic" and ptx is not None and ptx.opcode in ("ld", "st", "atom", "red"):
        space = next((s for s in _PTX_SPACES if s in ptx.modifiers), space)
        space = "constant" if space == "const" else space
    return space, direction, _bits(opcode, modifiers)


def _address_operand(ins: SassInstruction, space: str) -> Operand | None:
    want = OperandKind.CONSTANT if space == "constant" else OperandKind.MEMORY
    for op in ins.operands:
        if op.kind is want:
            return op
    return None


def accesses(
    kernel: Kernel, ptx_table: Mapping[int, PtxInstruction] | None = None
) -> list[MemoryAccess]:
    """Every memory access of a kernel, in address order (what `classify` says of each)."""
    table = ptx_lines(kernel) if ptx_table is None else ptx_table
    to_ptx = kernel.correspondence.sass_ptx
    # (opcode, modifiers) -> _form: only generic accesses depend on more, their PTX. A kernel
    # has thousands of memory instructions and a handful of forms.
    forms: dict[tuple[str, tuple[str, ...]], tuple[str, str, int | str]] = {}
    out = []
    for ins in kernel.instructions:
        op = ins.opcode
        if op not in _KIND or (ins.guard is not None and never_executes(ins)):
            continue
        if op in _GENERIC:
            line = to_ptx.get(ins.address)
            form = _form(op, ins.modifiers, table.get(line) if line is not None else None)
        else:
            key = (op, ins.modifiers)
            found = forms.get(key)
            if found is None:
                found = forms[key] = _form(op, ins.modifiers, None)
            form = found
        space, direction, bits = form
        want = _CONSTANT if space == "constant" else _MEMORY
        operand = None
        for candidate in ins.operands:  # _address_operand, inlined: it runs per access
            if candidate.kind is want:
                operand = candidate
                break
        out.append(_new_access(MemoryAccess, (ins, space, direction, bits, operand)))
    return out


def kernel_accesses(kernel: Kernel) -> list[MemoryAccess]:
    """`accesses` of a kernel, for `AnalysisContext.shared`: the memory-width, coalescing and
    bank-conflict analyses read the same list (a pass over every instruction each, before)."""
    return accesses(kernel, ptx_lines(kernel))


_CONSTANT, _MEMORY = OperandKind.CONSTANT, OperandKind.MEMORY
_new_access = tuple.__new__  # MemoryAccess without its generated __new__'s Python frame


_GENERIC = frozenset({"LD", "ST", "ATOM", "RED"})


def user_loc(ins: SassInstruction) -> SourceLoc | None:
    """The line the user wrote: the outermost frame of an inlined chain."""
    loc = ins.source
    if loc is None or loc.inlined_at is None:
        return loc
    while loc.inlined_at is not None:
        loc = loc.inlined_at
    return loc


def user_locs(instructions: Iterable[SassInstruction]) -> list[SourceLoc | None]:
    """`user_loc` of each instruction, in one loop: on 10^4 accesses a call per instruction
    costs as much as the walk itself."""
    out = []
    for ins in instructions:
        loc = ins.source
        if loc is not None:
            while loc.inlined_at is not None:
                loc = loc.inlined_at
        out.append(loc)
    return out


class LineKeys:
    """JSON keys for source lines: "34" for the kernel's main file, "file:34" for any other.

    The main file is the one most instructions' outermost frames point at; `files` counts them.
    """

    def __init__(self, instructions: Iterable[SassInstruction]) -> None:
        self.files = Counter([loc.file for loc in user_locs(instructions) if loc is not None])
        self.main = self.files.most_common(1)[0][0] if self.files else ""
        self._keys: dict[tuple[str, int], str] = {}

    def key(self, loc: SourceLoc | None) -> str | None:
        return self.keys((loc,))[0]

    def keys(self, locs: Iterable[SourceLoc | None]) -> list[str | None]:
        """The key of each location, made once per (file, line)."""
        known, main = self._keys, self.main
        out: list[str | None] = []
        for loc in locs:
            if loc is None:
                out.append(None)
                continue
            where = (loc.file, loc.line)
            key = known.get(where)
            if key is None:
                key = str(loc.line) if loc.file == main else f"{loc.file}:{loc.line}"
                known[where] = key
            out.append(key)
        return out

    def of(self, ins: SassInstruction) -> str | None:
        """The key of an instruction's user line (outermost frame)."""
        return self.key(user_loc(ins))


def line_keys(kernel: Kernel) -> LineKeys:
    """The LineKeys of a kernel (for `AnalysisContext.shared`: several analyses read them)."""
    return LineKeys(kernel.instructions)


def distinct_locs(instructions: Iterable[SassInstruction]) -> tuple[SourceLoc, ...]:
    """The distinct user lines (outermost frames) of some instructions, in line order."""
    seen: dict[tuple[str, int], SourceLoc] = {}
    # The distinct locations first, in first-seen order, by C-level hashing: the parsers share
    # one SourceLoc per location, and thousands of instructions have a few hundred of them.
    for loc in dict.fromkeys(map(_SOURCE, instructions)):
        if loc is None:
            continue
        while loc.inlined_at is not None:
            loc = loc.inlined_at
        seen.setdefault((loc.file, loc.line), loc)
    return tuple([seen[k] for k in sorted(seen)])


_SOURCE = operator.attrgetter("source")


def base_text(operand: Operand) -> str:
    """The address operand without its constant offset: desc[UR4][R2.64+0x8] -> desc[UR4][R2.64]."""
    text = operand.text
    if operand.offset is None:
        return text
    base = _BASES.get(text)
    if base is None:
        head, sep, inner = text.rpartition("[")
        terms = inner.rstrip("]").replace("-", "+-").split("+")
        kept = [t for t in terms if t and not _is_int(t)]
        base = _BASES[text] = f"{head}{sep}{'+'.join(kept)}]"
    return base


_BASES: Memo[str, str] = Memo(f"{__name__}._BASES", 100_000)


def _is_int(term: str) -> bool:
    try:
        int(term, 0)
    except ValueError:
        return False
    return True
