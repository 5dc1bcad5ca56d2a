"""Read a cubin: its architecture, the tool that wrote it, and each kernel's resources.

A cubin is an ELF file (EM_CUDA) whose layout NVIDIA does not document; what this reader relies
on was checked against cuobjdump 13.5 on cubins from ptxas 13.5 (ELF ABI 8) and from the ptxas
12.9 that Triton bundles (ABI 7 below sm_100, ABI 8 from sm_100):

- a kernel is a `.text.<name>` section plus the FUNC symbol of the same name; STO_CUDA_ENTRY (0x10)
  in st_other marks a __global__ (pyelftools drops that bit, so the symbol table is read raw);
- resources come from the `.nv.info` records (registers, frame and stack sizes, per symbol) and the
  `.nv.info.<name>` records (launch bounds, EXIT offsets, parameters), and from the sizes of the
  `.nv.shared.<name>`, `.nv.local.<name>` and `.nv.constant<N>.<name>` sections. cuobjdump
  -res-usage prints exactly these: STACK is MIN_STACK_SIZE, "UNKNOWN" (here -1) under recursion;
- on sm_90 and later the shared section of every kernel of a module in which any kernel uses shared
  memory starts with the system's reserved window (user data is addressed from 0x400): its size is
  the `.nv.reservedSmem.cap` symbol where ptxas keeps it, otherwise 1 KB, and such modules carry a
  `.nv.shared.reserved.N` section. ptxas -v counts only the rest as "bytes smem";
- a kernel's instruction words are the bytes of its `.text.<name>` section (`CubinKernel.code`),
  kept for the control codes nvdisasm does not print (sassview.binary.control);
- the `a` suffix is EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET in `.nv.compat` (ptxas 13) or an e_flags
  bit (ptxas 12: 0x800 in ABI 7, 0x8 in ABI 8); the `f` suffix is written nowhere but in the ptxas
  command line kept in `.note.nv.tkinfo`: an sm_100f cubin is otherwise byte for byte an sm_100
  one, so a cubin without that note (ABI 7) never reads as `f`.

min_blocks_per_sm stays None: ptxas folds .minnctapersm into MAXREG_COUNT and records no more.
The records themselves are decoded in nvinfo.py; this module walks the ELF.
"""

from __future__ import annotations

import io
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from elftools.elf.elffile import ELFFile

from sassview.binary import nvinfo
from sassview.binary.nvinfo import UNKNOWN_STACK, NvInfoRecord, ToolNote
from sassview.errors import ParseError, SassviewError
from sassview.ir import Resources

__all__ = ["UNKNOWN_STACK", "CubinInfo", "CubinKernel", "is_elf", "read_cubin"]

EM_CUDA = 190
STO_CUDA_ENTRY = 0x10
STT_FUNC = 2
DEFAULT_RESERVED_SMEM = 1024  # bytes; what every sm_90+ cubin seen so far reserves

_HINT_NOT_CUBIN = (
    "is this a cubin? for a fatbin / object / executable sassview extracts cubins with cuobjdump"
)
_HINT_CORRUPT = "the cubin is truncated or corrupted; recompile it or extract it again"


@dataclass(frozen=True, slots=True)
class CubinKernel:
    """One function with its own .text section: a __global__ or a non-inlined __device__."""

    name: str  # symbol name, mangled as in the ELF
    is_entry: bool  # STO_CUDA_ENTRY: a __global__
    text_size: int  # bytes of its .text.<name> section
    resources: Resources  # spill bytes left None: they come from the ptxas log
    info: tuple[NvInfoRecord, ...] = ()  # its .nv.info.<name> records, for analyses to query
    # The raw instruction words of its .text section (16 bytes each from sm_70): the control
    # codes nvdisasm does not print are decoded from these (sassview.binary.control).
    code: bytes = field(default=b"", repr=False)


@dataclass(frozen=True, slots=True)
class CubinInfo:
    """What one cubin says about itself and its kernels."""

    arch: str  # sm_80, sm_90a, sm_100f, ...
    abi_version: int  # e_ident EI_ABIVERSION: 8 from CUDA 13 ptxas, 7 from older ones
    producer: str  # "ptxas Cuda compilation tools, release 13.5, V13.5.37"; "" without tkinfo
    tool_options: str  # the ptxas command line from .note.nv.tkinfo; "" without it
    kernels: tuple[CubinKernel, ...]  # in section order
    global_bytes: int = 0  # __device__ variables (.nv.global + .nv.global.init): Common GLOBAL
    module_constant: Mapping[int, int] = field(  # __constant__ banks of the module: Common CONSTANT
        default_factory=lambda: MappingProxyType({})
    )
    # The PTX ptxas assembled, which -lineinfo embeds (.nv_debug_ptx_txt) one NUL-ended line at
    # a time, with .loc lines and comments blanked: nvdisasm -gp line numbers count its lines.
    # "" when the cubin was built without line info.
    debug_ptx: str = ""

    def kernel(self, name: str) -> CubinKernel | None:
        return next((k for k in self.kernels if k.name == name), None)


@dataclass(frozen=True, slots=True)
class _Section:
    index: int
    name: str
    nobits: bool
    offset: int
    size: int
    flags: int
    link: int
    info: int


@dataclass(frozen=True, slots=True)
class _Symbol:
    name: str
    value: int
    size: int
    type: int
    other: int
    shndx: int


def is_elf(data: bytes) -> bool:
    """True for anything with the ELF magic; read_cubin then says whether it is a cubin."""
    return data[:4] == b"\x7fELF"


def without_tile_ir(debug_ptx: str) -> str:
    """The embedded PTX of a cuTile cubin, less the Tile IR tileiras appends to it (a
    `.nv_intermediate_source_section { .code_block { ... } }` block, no PTX statement). Cut
    there, the lines before keep their numbers, which nvdisasm -gp counts."""
    at = debug_ptx.find("\n.nv_intermediate_source_section")
    return debug_ptx if at < 0 else debug_ptx[: at + 1]


def read_cubin(data: bytes, where: str = "<cubin>") -> CubinInfo:
    """Parse a cubin; every problem with the bytes becomes a ParseError that names `where`."""
    if not is_elf(data):
        raise ParseError(f"not an ELF file ({_describe(data)})", where=where, hint=_hint_for(data))
    header_size = 52 if data[4:5] == b"\x01" else 64
    if len(data) < header_size:
        raise ParseError(
            f"truncated: the ELF header needs {header_size} bytes, the file has {len(data)}",
            where=where,
            hint=_HINT_CORRUPT,
        )
    try:
        return _Reader(bytes(data), where).read()
    except SassviewError:
        raise
    except Exception as exc:  # pyelftools / struct / construct on malformed input: any type
        raise ParseError(
            f"malformed ELF ({type(exc).__name__}: {exc})", where=where, hint=_HINT_CORRUPT
        ) from exc


def _describe(data: bytes) -> str:
    if not data:
        return "empty input"
    if data[:4] == b"\x50\xed\x55\xba":
        return "a CUDA fatbin"
    if data[:1] == b"\x00" or len(data) < 4:
        return f"{len(data)} bytes starting {data[:8].hex()}"
    text = data[:4096].decode("utf-8", "replace")
    if ".version" in text and ".target" in text:
        return "PTX text"
    return f"starts with {data[:8]!r}"


def _hint_for(data: bytes) -> str:
    if data[:4] == b"\x50\xed\x55\xba":
        return "sassview extracts the cubins of a fatbin with cuobjdump -xelf"
    if data[:4096].find(b".target") >= 0:
        return "give PTX as a .ptx file: sassview assembles it with nvJitLink"
    return _HINT_NOT_CUBIN


class _Reader:
    """One pass over one cubin; holds the parsed sections and symbols while kernels are built."""

    def __init__(self, data: bytes, where: str) -> None:
        self.data = data
        self.where = where
        self.elf = ELFFile(io.BytesIO(data))

    def fail(self, message: str, hint: str = _HINT_CORRUPT) -> ParseError:
        return ParseError(message, where=self.where, hint=hint)

    def read(self) -> CubinInfo:
        header = self.elf.header
        machine = header["e_machine"]
        if machine not in ("EM_CUDA", EM_CUDA):
            what = machine if isinstance(machine, str) else f"machine {machine}"
            raise self.fail(f"an ELF file for {what}, not a CUDA cubin", _HINT_NOT_CUBIN)
        self.check_tables()
        self.sections = [self.section(i) for i in range(self.elf.num_sections())]
        self.by_name = {s.name: s for s in self.sections}
        self.symbols = self.read_symbols()
        abi = int(header["e_ident"]["EI_ABIVERSION"])
        compat = self.records(".nv.compat", compat=True)
        tkinfo = self.by_name.get(".note.nv.tkinfo")
        notes = nvinfo.parse_tkinfo(self.content(tkinfo)) if tkinfo else ()
        # The assembler's entry, not the linker's: its options name the architecture.
        ptxas: ToolNote | None = next((n for n in notes if n.tool == "ptxas"), None)
        ptxas = ptxas or (notes[0] if notes else None)
        return CubinInfo(
            arch=self.arch(int(header["e_flags"]), abi, compat, [n.options for n in notes]),
            abi_version=abi,
            producer=f"{ptxas.tool} {ptxas.version}".strip() if ptxas else "",
            tool_options=ptxas.options if ptxas else "",
            kernels=self.kernels(),
            global_bytes=sum(
                s.size for s in self.sections if s.name in (".nv.global", ".nv.global.init")
            ),
            debug_ptx=self.debug_ptx(),
            module_constant=MappingProxyType(
                {
                    int(m.group(1)): s.size
                    for s in self.sections
                    if (m := re.fullmatch(r"\.nv\.constant(\d+)", s.name))
                }
            ),
        )

    # -- ELF structure ---------------------------------------------------------------------

    def check_tables(self) -> None:
        """Refuse what pyelftools would read past the end of, or misread silently."""
        h = self.elf.header
        shoff, shnum, shentsize = h["e_shoff"], h["e_shnum"], h["e_shentsize"]
        if shnum == 0 or shoff == 0:
            raise self.fail("the ELF file has no section table", _HINT_NOT_CUBIN)
        expected = 64 if self.elf.elfclass == 64 else 40
        if shentsize != expected:
            raise self.fail(f"section headers are {shentsize} bytes, not {expected}")
        end = shoff + shnum * shentsize
        if end > len(self.data):
            raise self.fail(
                f"truncated: the section table ends at byte {end}, the file has {len(self.data)}"
            )
        if not 0 < h["e_shstrndx"] < shnum:
            raise self.fail(f"section-name table index {h['e_shstrndx']} is out of range")
        # An executable cubin ends with its program headers: a cut there shows only here.
        ph_end = h["e_phoff"] + h["e_phnum"] * h["e_phentsize"]
        if h["e_phnum"] and ph_end > len(self.data):
            raise self.fail(
                f"truncated: the program headers end at byte {ph_end}, "
                f"the file has {len(self.data)}"
            )

    def section(self, index: int) -> _Section:
        sec = self.elf.get_section(index)
        hdr = sec.header
        nobits = hdr["sh_type"] == "SHT_NOBITS"
        if not nobits and index and hdr["sh_offset"] + hdr["sh_size"] > len(self.data):
            raise self.fail(
                f"truncated: section {sec.name or index!r} ends at byte "
                f"{hdr['sh_offset'] + hdr['sh_size']}, the file has {len(self.data)}"
            )
        return _Section(
            index, sec.name, nobits, hdr["sh_offset"], hdr["sh_size"],
            hdr["sh_flags"], hdr["sh_link"], hdr["sh_info"],
        )  # fmt: skip

    def debug_ptx(self) -> str:
        sec = self.by_name.get(".nv_debug_ptx_txt")
        return without_tile_ir(
            self.content(sec).rstrip(b"\0").replace(b"\0", b"\n").decode(errors="replace")
            if sec
            else ""
        )

    def content(self, sec: _Section) -> bytes:
        return b"" if sec.nobits else self.data[sec.offset : sec.offset + sec.size]

    def size_of(self, name: str) -> int:
        sec = self.by_name.get(name)
        return sec.size if sec else 0

    def read_symbols(self) -> list[_Symbol]:
        """The raw .symtab: pyelftools folds st_other into visibility and loses STO_CUDA_ENTRY."""
        symtab = self.by_name.get(".symtab")
        if symtab is None:
            raise self.fail("no .symtab: cannot tell the kernels apart", _HINT_NOT_CUBIN)
        if not 0 < symtab.link < len(self.sections):
            raise self.fail(f".symtab links to section {symtab.link}, which does not exist")
        names = self.content(self.sections[symtab.link])
        wide = self.elf.elfclass == 64
        fmt, step = ("<IBBHQQ", 24) if wide else ("<IIIBBH", 16)
        raw = self.content(symtab)
        symbols = []
        for pos in range(0, len(raw) - step + 1, step):
            fields = struct.unpack_from(fmt, raw, pos)
            if wide:
                name_at, info, other, shndx, value, size = fields
            else:
                name_at, value, size, info, other, shndx = fields
            end = names.find(b"\0", name_at)
            name = names[name_at : end if end >= 0 else len(names)].decode("utf-8", "replace")
            symbols.append(_Symbol(name, value, size, info & 0xF, other, shndx))
        return symbols

    def records(self, name: str, *, compat: bool = False) -> tuple[NvInfoRecord, ...]:
        sec = self.by_name.get(name)
        if sec is None:
            return ()
        return nvinfo.parse_records(self.content(sec), f"{self.where}: {name}", compat=compat)

    # -- what the cubin is for ---------------------------------------------------------------

    def arch(
        self, flags: int, abi: int, compat: tuple[NvInfoRecord, ...], options: list[str]
    ) -> str:
        """The SM number sits in e_flags[15:8] from ABI 8 on, in e_flags[7:0] before."""
        if abi >= 8:
            sm, flag_a = (flags >> 8) & 0xFF, bool(flags & 0x8)
        else:
            sm, flag_a = flags & 0xFF, bool(flags & 0x800)
        if sm == 0:
            raise self.fail(f"e_flags {flags:#x} name no GPU architecture", _HINT_NOT_CUBIN)
        return f"sm_{sm}{nvinfo.arch_suffix(flag_a, compat, sm, options)}"

    # -- kernels ---------------------------------------------------------------------------

    def kernels(self) -> tuple[CubinKernel, ...]:
        per_symbol = self.per_symbol_attributes()
        cap = self.reserved_cap()
        # Indexes built once: cubins of libraries hold thousands of kernels.
        functions = {
            (sym.shndx, sym.name): (i, sym)
            for i, sym in enumerate(self.symbols)
            if sym.type == STT_FUNC
        }
        info_of = {s.info: s.name for s in self.sections if s.name.startswith(".nv.info.")}
        constants: dict[str, dict[int, int]] = {}
        for sec in self.sections:
            if m := re.fullmatch(r"\.nv\.constant(\d+)\.(.+)", sec.name):
                constants.setdefault(m.group(2), {})[int(m.group(1))] = sec.size
        kernels = []
        for sec in self.sections:
            if not sec.name.startswith(".text.") or sec.nobits:
                continue
            name = sec.name[len(".text.") :]
            sym_index, sym = functions.get((sec.index, name), (-1, None))
            # .nv.info.<name> names its .text section in sh_info; the name is the fallback.
            info = self.records(info_of.get(sec.index, f".nv.info.{name}"))
            resources = nvinfo.kernel_resources(
                per_symbol.get(sym_index, {}),
                info,
                shared=self.size_of(f".nv.shared.{name}"),
                reserved_cap=cap,
                local=self.size_of(f".nv.local.{name}"),
                constant=constants.get(name, {}),
                text_info=sec.info,
                text_flags=sec.flags,
            )
            is_entry = bool(sym and sym.other & STO_CUDA_ENTRY)
            kernels.append(
                CubinKernel(name, is_entry, sec.size, resources, info, self.content(sec))
            )
        return tuple(kernels)

    def per_symbol_attributes(self) -> dict[int, dict[int, int]]:
        """Global .nv.info records are (symbol index, value) pairs: REGCOUNT, FRAME_SIZE, ..."""
        table: dict[int, dict[int, int]] = {}
        for rec in self.records(".nv.info"):
            words = rec.words()
            if rec.fmt == nvinfo.EIFMT_SVAL and len(words) >= 2:
                table.setdefault(words[0], {})[rec.code] = words[1]
        return table

    def reserved_cap(self) -> int:
        """Bytes at the start of each sm_90+ shared window that belong to the system."""
        for sym in self.symbols:
            if sym.name == ".nv.reservedSmem.cap":
                return sym.value
        reserved = any(s.name.startswith(".nv.shared.reserved.") for s in self.sections)
        return DEFAULT_RESERVED_SMEM if reserved else 0
