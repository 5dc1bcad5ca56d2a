"""The model every view reads: frozen, typed records of what the compiler produced.

Parsers build these; nothing here parses, runs a tool or knows about a view. Addresses are byte
offsets from the start of a kernel's .text section (what nvdisasm prints as /*0040*/), PTX lines
are 1-based line numbers in the PTX text kept in the artifacts.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

SCHEMA_VERSION = 6


class SourceLoc(NamedTuple):
    """A point in the user's source; `inlined_at` is the call site when this code was inlined.

    A NamedTuple rather than a frozen dataclass, like the other per-instruction records: a big
    kernel makes 10^5 of them, and a frozen dataclass' __init__ costs several times more.
    """

    file: str
    line: int
    column: int = 0
    inlined_at: SourceLoc | None = None

    def frames(self) -> Iterator[SourceLoc]:
        """This location, then each call site it was inlined into, innermost first."""
        loc: SourceLoc | None = self
        while loc is not None:
            yield loc
            loc = loc.inlined_at

    @property
    def outermost(self) -> SourceLoc:
        # A loop, not frames(): asked for every location of every finding (94k on a 65k
        # kernel's warm check, where unpacking the generator took ~45 ms).
        loc = self
        while loc.inlined_at is not None:
            loc = loc.inlined_at
        return loc

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "")
        if self.inlined_at is not None:
            text += f" (inlined at {self.inlined_at})"
        return text


class OperandKind(enum.Enum):
    REGISTER = "register"  # R, UR, P, UP and their zero/true forms (RZ, URZ, PT, UPT)
    IMMEDIATE = "immediate"  # 0x10, -1, 1.5, +INF
    CONSTANT = "constant"  # c[0x0][0x210], cx[UR4][R2]
    MEMORY = "memory"  # [R2.64+0x10], desc[UR4][R2.64+0x10], [UR4]
    LABEL = "label"  # a branch target: an address in this kernel
    SPECIAL = "special"  # SR_TID.X, SR_CTAID.Y, ...
    OTHER = "other"  # anything else nvdisasm prints (barrier names, tex handles, modifiers lists)


@dataclass(frozen=True, slots=True)
class Register:
    """One named register. `file` is R, UR, P, UP (or B for convergence barriers, SR for special).

    `index` is None for the constant registers RZ, URZ, PT, UPT. `count` is how many consecutive
    registers the operand names explicitly (`R4.64` is 2); widths implied by the opcode (the
    destination of LDG.E.128 is four registers) are the dataflow analysis' business.
    """

    file: str
    index: int | None
    count: int = 1

    @property
    def is_zero(self) -> bool:
        return self.index is None

    def __str__(self) -> str:
        if self.index is None:
            return {"R": "RZ", "UR": "URZ", "P": "PT", "UP": "UPT"}.get(self.file, self.file + "Z")
        return f"{self.file}{self.index}"


@dataclass(frozen=True, slots=True)
class Operand:
    text: str
    kind: OperandKind
    registers: tuple[Register, ...] = ()
    negated: bool = False  # a leading '-' (arithmetic) or '!' (predicate)
    absolute: bool = False  # |R2|
    reuse: bool = False  # operand-reuse cache hint
    value: int | float | None = None  # immediate value, or target address of a LABEL
    bank: int | None = None  # constant bank of a CONSTANT operand
    offset: int | None = None  # byte offset of a MEMORY or CONSTANT operand


class SassInstruction(NamedTuple):
    """One SASS instruction. A NamedTuple for speed (see SourceLoc); `_replace` makes a copy."""

    address: int
    opcode: str  # base opcode: LDG
    modifiers: tuple[str, ...]  # E, 128, CONSTANT
    operands: tuple[Operand, ...]
    guard: Register | None = None  # the predicate of @P0 / @!P0
    guard_negated: bool = False
    source: SourceLoc | None = None
    ptx_line: int | None = None
    marks: tuple[str, ...] = ()  # nvdisasm's own annotations, e.g. SpillRefill
    control_flow: bool = False
    target: int | None = None  # branch/call target address, when it is a constant
    # Every address an indirect branch (BRX/JMX through a jump table) may go to, as nvdisasm's
    # text listing names them (BRANCH_TARGETS); () when unknown or not an indirect branch.
    targets: tuple[int, ...] = ()

    @property
    def mnemonic(self) -> str:
        """Opcode with its modifiers, as nvdisasm prints it: LDG.E.128.CONSTANT."""
        return ".".join((self.opcode, *self.modifiers))

    @property
    def predicate_text(self) -> str:
        if self.guard is None:
            return ""
        return f"@{'!' if self.guard_negated else ''}{self.guard}"

    @property
    def text(self) -> str:
        """The instruction as nvdisasm prints it, without address or line info."""
        body = self.mnemonic
        if self.operands:
            body += " " + ", ".join(op.text for op in self.operands)
        pred = self.predicate_text
        return f"{pred} {body}" if pred else body


class ControlCode(NamedTuple):
    """The scheduling bits ptxas encodes in one sm_70+ instruction (`sassview.binary.control`
    has the bit layout and where it was established). A NamedTuple, shared between instructions
    with the same bits: a kernel holds one per instruction."""

    stall: int  # cycles before this warp's next instruction may issue (0-15)
    yield_hint: bool  # the scheduler may switch warps here (printed `Y`)
    write: int | None  # scoreboard set until the result is written (0-5), None: fixed latency
    read: int | None  # scoreboard set until the sources have been read (0-5)
    wait: int  # mask of the scoreboards waited on before issue (bit n = SBn)
    reuse: int  # operand-reuse flags, bit 0 = source slot A, 1 = B, 2 = C, 3 = D

    @property
    def waits(self) -> tuple[int, ...]:
        return tuple(n for n in range(6) if self.wait >> n & 1)

    @property
    def notation(self) -> str:
        """CuAssembler's compact form, `B0-2---:R-:W1:Y:S04`: the scoreboards waited on (a digit
        per one, `-` per other), the read and write scoreboards (`-`: none), `Y` or `-` for the
        yield hint, the stall in cycles. Reuse flags are left to the operands' `.reuse`."""
        wait = "".join(str(n) if self.wait >> n & 1 else "-" for n in range(6))
        read = "-" if self.read is None else str(self.read)
        write = "-" if self.write is None else str(self.write)
        return f"B{wait}:R{read}:W{write}:{'Y' if self.yield_hint else '-'}:S{self.stall:02d}"


class PtxInstruction(NamedTuple):
    line: int
    opcode: str  # ld
    modifiers: tuple[str, ...]  # global, v4, f32
    operands: tuple[str, ...]
    guard: str | None = None  # %p1 of @%p1 / @!%p1
    guard_negated: bool = False
    source: SourceLoc | None = None

    @property
    def mnemonic(self) -> str:
        return ".".join((self.opcode, *self.modifiers))


@dataclass(frozen=True, slots=True)
class PtxRegisterDecl:
    type: str  # .f32, .pred, .b64 ...
    name: str  # %f  (for a vector declaration %f<12>, count is 12)
    count: int = 1


@dataclass(frozen=True, slots=True)
class PtxFunction:
    name: str
    is_entry: bool
    start_line: int
    end_line: int
    params: tuple[str, ...] = ()
    instructions: tuple[PtxInstruction, ...] = ()
    labels: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    registers: tuple[PtxRegisterDecl, ...] = ()
    maxntid: tuple[int, ...] | None = None
    reqntid: tuple[int, ...] | None = None
    minnctapersm: int | None = None
    maxnreg: int | None = None
    pragmas: tuple[tuple[int, str], ...] = ()  # (line, text) of each .pragma, e.g. "nounroll"


@dataclass(frozen=True, slots=True)
class AsmBlock:
    """One inline-asm block of the PTX (`sassview.parse.inline_asm`): the PTX lines of its two
    comments, the asm statement's file and line, and the PTX line where the `.loc`s written
    inside it stop holding (the next `.loc`, block or function outside it)."""

    first: int
    last: int
    file: str
    line: int
    reach: int

    def call_site(self, loc: SourceLoc) -> SourceLoc:
        """`loc` with its innermost line put back on the statement's, when it is an offset."""
        if loc.file == self.file and self.line < loc.line <= self.line + self.last - self.first:
            return loc._replace(line=self.line)
        return loc


@dataclass(frozen=True, slots=True)
class PtxModule:
    version: str
    target: str
    address_size: int
    files: Mapping[int, str]
    functions: tuple[PtxFunction, ...]
    # The inline-asm blocks with a statement line, in line order; the functions' sources
    # inside them are already put back on that line (sassview.build).
    inline_asm: tuple[AsmBlock, ...] = ()

    def function(self, name: str) -> PtxFunction | None:
        return next((f for f in self.functions if f.name == name), None)


@dataclass(frozen=True, slots=True)
class Resources:
    """What the cubin (and, for spills, the ptxas report) says a kernel needs.

    Byte counts are per thread for stack and local memory, per block for shared memory. On sm_90
    and later the shared section of every kernel that uses shared memory also holds bytes the
    system reserves; `shared_reserved` counts those apart from what the kernel declared.
    """

    registers: int
    stack_frame: int = 0
    min_stack: int = 0
    max_stack: int = 0
    local: int = 0
    shared_user: int = 0
    shared_reserved: int = 0
    # Dynamic shared memory the launch must ask for, when the frontend knows it (Triton keeps
    # all its shared memory dynamic, so the cubin shows none); None when unknown.
    shared_dynamic: int | None = None
    constant: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    spill_store_bytes: int | None = None  # from the ptxas report; None when there was none
    spill_load_bytes: int | None = None
    max_threads: int | None = None  # __launch_bounds__ / .maxntid, flattened
    reqntid: tuple[int, ...] | None = None
    maxntid: tuple[int, ...] | None = None
    max_registers: int | None = None  # MAXREG_COUNT (-maxrregcount / .maxnreg)
    min_blocks_per_sm: int | None = None
    barriers: int = 0
    param_bytes: int = 0
    # Where each kernel parameter sits in constant bank 0, by ordinal (KPARAM_INFO's offset
    # plus PARAM_CBANK's base: `cols` at c[0x0][0x224]); () where the cubin does not say.
    param_offsets: tuple[int, ...] = ()
    exit_offsets: tuple[int, ...] = ()

    @property
    def shared(self) -> int:
        return self.shared_user + self.shared_reserved

    @property
    def spills(self) -> bool:
        return bool(self.spill_store_bytes or self.spill_load_bytes)


@dataclass(frozen=True, slots=True)
class Correspondence:
    """Source line <-> PTX lines <-> SASS addresses, for one kernel.

    Built from the cubin's line table (SASS -> source, with inline frames), the PTX `.loc`
    directives (PTX -> source) and the cubin's SASS -> PTX table. Lookups by source line match
    any frame of an inline chain, so the line of an inlined call finds the callee's code too.
    """

    sass_source: Mapping[int, SourceLoc]
    sass_ptx: Mapping[int, int]
    ptx_source: Mapping[int, SourceLoc]

    def sass_for_line(self, file: str, line: int) -> tuple[int, ...]:
        return tuple(
            addr
            for addr, loc in self.sass_source.items()
            if any(f.line == line and f.file == file for f in loc.frames())
        )

    def ptx_for_line(self, file: str, line: int) -> tuple[int, ...]:
        return tuple(
            sorted(
                ptx_line
                for ptx_line, loc in self.ptx_source.items()
                if any(f.line == line and f.file == file for f in loc.frames())
            )
        )

    def sass_for_ptx(self, ptx_line: int) -> tuple[int, ...]:
        return tuple(addr for addr, p in self.sass_ptx.items() if p == ptx_line)

    def source_for_sass(self, address: int) -> SourceLoc | None:
        return self.sass_source.get(address)

    def ptx_for_sass(self, address: int) -> int | None:
        return self.sass_ptx.get(address)


@dataclass(frozen=True, slots=True)
class Kernel:
    name: str  # as in the cubin (mangled for C++)
    display_name: str  # demangled
    arch: str
    resources: Resources
    instructions: tuple[SassInstruction, ...]
    correspondence: Correspondence
    ptx: PtxFunction | None = None
    is_entry: bool = True
    # The control code of each 16-byte instruction slot, by address // 16 (`control_at`);
    # () before sm_70 or where the cubin's code was not read.
    control: tuple[ControlCode, ...] = field(default=(), repr=False)

    def control_at(self, address: int) -> ControlCode | None:
        index = address // 16
        return self.control[index] if address % 16 == 0 and index < len(self.control) else None

    def names(self) -> tuple[str, ...]:
        """The names a user may give this kernel, most exact first: mangled, demangled, demangled
        without arguments (`transpose<32, 8, 1>`), and without template arguments or a CuTe DSL
        specialization (`transpose`, `ew_kernel`): the name its source file spells; then each of
        those without its namespaces, one at a time (`ops::detail::softmax` is also
        `detail::softmax` and `softmax`, as a `__global__` in `namespace ops` is spelled)."""
        shown = self.display_name.removeprefix("(anonymous namespace)::")
        without_arguments = shown.split("(", 1)[0]
        bare = without_arguments.split("<")[0]
        return (
            self.name,
            self.display_name,
            without_arguments,
            bare,
            *_unqualified(without_arguments),
            *_unqualified(bare),
        )

    def matches(self, name: str) -> bool:
        """Whether `name` is one of names(), spaces ignored (`transpose<32,8,1>` is typed so)."""
        wanted = name.replace(" ", "")
        return any(wanted == n.replace(" ", "") for n in self.names())

    def matches_exactly(self, name: str) -> bool:
        """matches(), but not by the bare template name that every instantiation shares."""
        wanted = name.replace(" ", "")
        return any(wanted == n.replace(" ", "") for n in self.names()[:3])

    def instruction_at(self, address: int) -> SassInstruction | None:
        # Instructions are 16 bytes on every architecture sassview supports (sm_75 and later).
        index = address // 16
        if 0 <= index < len(self.instructions):
            ins = self.instructions[index]
            if ins.address == address:
                return ins
        return next((i for i in self.instructions if i.address == address), None)

    def opcode_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for ins in self.instructions:
            counts[ins.opcode] = counts.get(ins.opcode, 0) + 1
        return counts


def _unqualified(name: str) -> tuple[str, ...]:
    """`a::b::k<T>` -> (`b::k<T>`, `k<T>`): the name without its leading scopes, one at a time
    (the `::` inside template arguments is left alone)."""
    head, angle, rest = name.partition("<")
    scopes = head.split("::")
    return tuple("::".join(scopes[i:]) + angle + rest for i in range(1, len(scopes)))


@dataclass(frozen=True, slots=True)
class Artifacts:
    """Everything a compile produced, kept so views can show it and the cache can store it."""

    kind: str  # ptx, cubin, fatbin, or a frontend's kind (frontends/registry.py): cuda, triton, ...
    arch: str
    source_path: str | None = None
    source_text: str | None = None
    ptx: str | None = None
    cubin: bytes = b""
    compile_log: str = ""
    options: tuple[str, ...] = ()
    toolchain: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    stages: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # ttir, llir..
    # For kernels declared in a kernel.py: which declaration and variant this is.
    label: str = ""  # e.g. "add [num_warps=8]"
    variant: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # CUDA C++: the compiler that built it ("nvrtc" or "nvcc"), and the absolute path of every
    # file that went in, the main file first: for nvcc every file its device-side preprocessing
    # read (system headers included), for NVRTC the local files its include scan found. The
    # cache key covers each one's bytes: on a cache hit the files on disk are those compiled.
    compiler: str = ""
    inputs: tuple[str, ...] = ()
    # A header checked as its includer includes it: only the kernels defined in these files are
    # the program's (the includer's lines before the header define kernels of their own).
    kernels_in: tuple[str, ...] = ()
    # What a rolled build (frontends/cuda_rolled.py) replays besides the source and options: the
    # instantiations `--instantiate` appended, and the host compiler nvcc was given (-ccbin).
    appendix: str = ""
    host_compiler: str = ""


@dataclass(frozen=True, slots=True)
class Program:
    """One cubin and what it came from: the unit a compile or a file produces per architecture."""

    artifacts: Artifacts
    kernels: tuple[Kernel, ...]
    ptx: PtxModule | None = None
    abi_version: int | None = None
    producer: str = ""  # the tool that wrote the cubin, from .note.nv.tkinfo

    @property
    def arch(self) -> str:
        return self.artifacts.arch

    def kernels_named(self, name: str) -> tuple[Kernel, ...]:
        """The kernels `name` names (Kernel.matches): every instantiation of a template for its
        bare name, in the cubin's order. None: an InputError naming the kernels there are."""
        found = tuple(k for k in self.kernels if k.matches(name))
        if found:
            return found
        from sassview.errors import InputError

        names = ", ".join(k.display_name for k in self.kernels) or "(none)"
        raise InputError(
            f"no kernel named {name!r} in this program",
            f"kernels here: {names}",
        )

    def kernel(self, name: str) -> Kernel:
        """The one kernel `name` names: an exact name first, else the only instantiation of a
        template; a bare name that several instantiations share is an InputError naming them."""
        exact = next((k for k in self.kernels if k.matches_exactly(name)), None)
        found = (exact,) if exact is not None else self.kernels_named(name)
        if len(found) == 1:
            return found[0]
        from sassview.errors import InputError

        raise InputError(
            f"{name!r} names {len(found)} kernels in this program: "
            + ", ".join(k.display_name for k in found),
            f"name one of them, e.g. {found[0].names()[2]!r}",
        )
