"""What NVIDIA's own cubin sections say: .nv.info attributes, .nv.compat, .note.nv.tkinfo.

The CUDA driver reads a kernel's launch needs (registers, stack, parameter layout, EXIT offsets,
launch bounds, cluster shape) from these records, not from the SASS, so they are the truth sassview
reports as resources. Each record is: format u8, attribute u8, then a u16 that is either the
value (EIFMT_NVAL / BVAL / HVAL, 4 bytes in all) or the size of the payload that follows
(EIFMT_SVAL, 4 + size bytes). Records are decoded without knowing the attribute: a code this table
does not name is kept under a made-up name, never an error, so a newer toolkit's attributes pass
through.

The names below are the ones cuobjdump 13.5 prints for each code (found by feeding it records of
every code), with the few it hides (driver workarounds) taken from public re-implementations.

Nothing here knows ELF: elf.py finds the sections and hands their bytes and sizes over.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sassview.errors import ParseError
from sassview.ir import Resources

UNKNOWN_STACK = -1  # min/max stack when ptxas cannot bound it (recursion): cuobjdump's "UNKNOWN"

EIFMT_NVAL = 1  # no value (a flag); the u16 is padding
EIFMT_BVAL = 2  # one byte value
EIFMT_HVAL = 3  # u16 value
EIFMT_SVAL = 4  # u16 size, then that many bytes

_FORMAT_NAMES = {EIFMT_NVAL: "NVAL", EIFMT_BVAL: "BVAL", EIFMT_HVAL: "HVAL", EIFMT_SVAL: "SVAL"}

# Codes sassview reads into Resources; the rest are only named.
MAX_THREADS = 0x05
PARAM_CBANK = 0x0A
REQNTID = 0x10
FRAME_SIZE = 0x11
MIN_STACK_SIZE = 0x12
KPARAM_INFO = 0x17
CBANK_PARAM_SIZE = 0x19
MAXREG_COUNT = 0x1B
EXIT_INSTR_OFFSETS = 0x1C
MAX_STACK_SIZE = 0x23
REGCOUNT = 0x2F
NUM_BARRIERS = 0x4C

EIATTR: dict[int, str] = {
    0x01: "PAD", 0x02: "IMAGE_SLOT", 0x03: "JUMPTABLE_RELOCS", 0x04: "CTAIDZ_USED",
    0x05: "MAX_THREADS", 0x06: "IMAGE_OFFSET", 0x07: "IMAGE_SIZE", 0x08: "TEXTURE_NORMALIZED",
    0x09: "SAMPLER_INIT", 0x0A: "PARAM_CBANK", 0x0B: "SMEM_PARAM_OFFSETS",
    0x0C: "CBANK_PARAM_OFFSETS", 0x0D: "SYNC_STACK", 0x0E: "TEXID_SAMPID_MAP", 0x0F: "EXTERNS",
    0x10: "REQNTID", 0x11: "FRAME_SIZE", 0x12: "MIN_STACK_SIZE",
    0x13: "SAMPLER_FORCE_UNNORMALIZED", 0x14: "BINDLESS_IMAGE_OFFSETS",
    0x15: "BINDLESS_TEXTURE_BANK", 0x16: "BINDLESS_SURFACE_BANK", 0x17: "KPARAM_INFO",
    0x18: "SMEM_PARAM_SIZE", 0x19: "CBANK_PARAM_SIZE", 0x1A: "QUERY_NUMATTRIB",
    0x1B: "MAXREG_COUNT", 0x1C: "EXIT_INSTR_OFFSETS", 0x1D: "S2RCTAID_INSTR_OFFSETS",
    0x1E: "CRS_STACK_SIZE", 0x1F: "NEED_CNP_WRAPPER", 0x20: "NEED_CNP_PATCH",
    0x21: "EXPLICIT_CACHING", 0x22: "ISTYPEP_USED", 0x23: "MAX_STACK_SIZE", 0x24: "SUQ_USED",
    0x25: "LD_CACHEMOD_INSTR_OFFSETS", 0x26: "LOAD_CACHE_REQUEST", 0x27: "ATOM_SYS_INSTR_OFFSETS",
    0x28: "COOP_GROUP_INSTR_OFFSETS", 0x29: "COOP_GROUP_MASK_REGIDS", 0x2A: "SW1850030_WAR",
    0x2B: "WMMA_USED", 0x2C: "HAS_PRE_V10_OBJECT", 0x2D: "ATOMF16_EMUL_INSTR_OFFSETS",
    0x2E: "ATOM16_EMUL_INSTR_REG_MAP", 0x2F: "REGCOUNT", 0x30: "SW2393858_WAR",
    0x31: "INT_WARP_WIDE_INSTR_OFFSETS", 0x32: "SHARED_SCRATCH", 0x33: "STATISTICS",
    0x34: "INDIRECT_BRANCH_TARGETS", 0x35: "SW2861232_WAR", 0x36: "SW_WAR",
    0x37: "CUDA_API_VERSION", 0x38: "NUM_MBARRIERS", 0x39: "MBARRIER_INSTR_OFFSETS",
    0x3A: "COROUTINE_RESUME_ID_OFFSETS", 0x3B: "SAM_REGION_STACK_SIZE",
    0x3C: "PER_REG_TARGET_PERF_STATS", 0x3D: "CTA_PER_CLUSTER", 0x3E: "EXPLICIT_CLUSTER",
    0x3F: "MAX_CLUSTER_RANK", 0x40: "INSTR_REG_MAP", 0x41: "RESERVED_SMEM_USED",
    0x42: "RESERVED_SMEM_0_SIZE", 0x43: "UCODE_SECTION_DATA", 0x44: "UNUSED_LOAD_BYTE_OFFSET",
    0x45: "KPARAM_INFO_V2", 0x46: "SYSCALL_OFFSETS", 0x47: "SW_WAR_MEMBAR_SYS_INSTR_OFFSETS",
    0x48: "GRAPHICS_GLOBAL_CBANK", 0x49: "SHADER_TYPE", 0x4A: "VRC_CTA_INIT_COUNT",
    0x4B: "TOOLS_PATCH_FUNC", 0x4C: "NUM_BARRIERS", 0x4D: "TEXMODE_INDEPENDENT",
    0x4E: "PERF_STATISTICS", 0x4F: "AT_ENTRY_FRAGMENTS", 0x50: "SPARSE_MMA_MASK",
    0x51: "TCGEN05_1CTA_USED", 0x52: "TCGEN05_2CTA_USED", 0x53: "GEN_ERRBAR_AT_EXIT",
    0x54: "REG_RECONFIG", 0x55: "ANNOTATIONS", 0x57: "STACK_CANARY_TRAP_OFFSETS",
    0x58: "STUB_FUNCTION_KIND", 0x59: "LOCAL_CTA_ASYNC_STORE_OFFSETS",
    0x5A: "MERCURY_FINALIZER_OPTIONS", 0x5B: "BLOCKS_ARE_CLUSTERS", 0x5C: "SANITIZE",
    0x5D: "SYSCALLS_FALLBACK", 0x5E: "CUDA_REQ", 0x5F: "MERCURY_ISA_VERSION",
    0x61: "RTCORE_ENTRY", 0x62: "CLUSTER_LAUNCH_CONTROL_USED", 0x64: "MIN_PER_CTA_MEMORY_SIZE",
    0x65: "IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS", 0x66: "LANGUAGE", 0x68: "GRID_ATTRIBUTES",
    0x69: "STACK_OFFSET", 0x6A: "RT_LIVESTATE_SASS_MAP", 0x6B: "NVSAL_SW_WAR",
    0x6C: "INSTR_OFFSETS", 0x6D: "PREEXIT_USED",
}  # fmt: skip

# .nv.compat: what the driver checks before loading the cubin on a given GPU.
COMPAT_ACCELERATOR_TARGET = 0x09  # 1: arch-specific (sm_90a, sm_100a, ...)

EICOMPAT: dict[int, str] = {
    0x01: "PAD", 0x02: "ISA_CLASS", 0x03: "INST_TENSORMAP_V1",
    0x04: "INST_TCGEN05_MMA_DEPRECATED", 0x05: "INST_TCGEN05_MMA",
    0x06: "ENABLE_OPPORTUNISTIC_FINALIZATION", 0x09: "CUDA_ACCELERATOR_TARGET",
    0x0B: "CAN_FASTPATH_FINALIZE", 0x0C: "CUDA_INTERNAL_TARGET", 0x0E: "FINALIZER_VERSION",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class NvInfoRecord:
    """One attribute record, decoded by format only.

    `value` is the inline value of an NVAL (always 0), BVAL or HVAL record and None for SVAL,
    whose bytes are in `payload`. `compat` says which name table applies (.nv.compat has its own).
    """

    code: int
    fmt: int
    value: int | None = None
    payload: bytes = b""
    compat: bool = False

    @property
    def name(self) -> str:
        table, prefix = (EICOMPAT, "EICOMPAT_ATTR_") if self.compat else (EIATTR, "EIATTR_")
        known = table.get(self.code)
        return prefix + known if known else f"{prefix}UNKNOWN_{self.code:#04x}"

    def words(self) -> tuple[int, ...]:
        """The payload as little-endian u32s (a trailing partial word is dropped)."""
        n = len(self.payload) // 4
        return struct.unpack_from(f"<{n}I", self.payload) if n else ()

    def scalar(self) -> int | None:
        """The record's single number: the inline value, or the first payload word."""
        if self.value is not None:
            return self.value
        words = self.words()
        return words[0] if words else None

    def __str__(self) -> str:
        shown = self.value if self.value is not None else " ".join(hex(w) for w in self.words())
        return f"{self.name} ({_FORMAT_NAMES.get(self.fmt, self.fmt)}) {shown}"


def parse_records(data: bytes, where: str, *, compat: bool = False) -> tuple[NvInfoRecord, ...]:
    """Split one attribute section into records; a record that runs past the end is corruption."""
    records: list[NvInfoRecord] = []
    pos = 0
    while pos < len(data):
        if len(data) - pos < 4:
            raise ParseError(
                f"{len(data) - pos} stray bytes at offset {pos:#x}, too short for a record",
                where=where,
                hint="the cubin is truncated or corrupted; recompile it",
            )
        fmt, code, half = struct.unpack_from("<BBH", data, pos)
        if fmt == EIFMT_SVAL:
            end = pos + 4 + half
            if end > len(data):
                raise ParseError(
                    f"record {code:#04x} at offset {pos:#x} claims {half} bytes, "
                    f"only {len(data) - pos - 4} remain",
                    where=where,
                    hint="the cubin is truncated or corrupted; recompile it",
                )
            records.append(NvInfoRecord(code, fmt, None, bytes(data[pos + 4 : end]), compat))
            pos = end
        elif fmt in (EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL):
            value = {EIFMT_NVAL: 0, EIFMT_BVAL: half & 0xFF, EIFMT_HVAL: half}[fmt]
            records.append(NvInfoRecord(code, fmt, value, b"", compat))
            pos += 4
        else:
            raise ParseError(
                f"record at offset {pos:#x} has unknown format {fmt} (known: 1-4)",
                where=where,
                hint="the cubin is corrupted, or comes from a toolkit newer than sassview knows",
            )
    return tuple(records)


@dataclass(frozen=True, slots=True)
class KernelParam:
    """One kernel parameter as EIATTR_KPARAM_INFO describes it: where it sits in the param bank."""

    ordinal: int
    offset: int
    size: int


def kernel_param(record: NvInfoRecord) -> KernelParam | None:
    """Decode KPARAM_INFO: u32 index, u16 ordinal, u16 offset, u32 flags (size in bits 31:18)."""
    if record.code != KPARAM_INFO or len(record.payload) < 12:
        return None
    _index, ordinal, offset, flags = struct.unpack_from("<IHHI", record.payload)
    return KernelParam(ordinal, offset, flags >> 18)


def kernel_resources(
    per_symbol: Mapping[int, int],
    info: tuple[NvInfoRecord, ...],
    *,
    shared: int,
    reserved_cap: int,
    local: int,
    constant: Mapping[int, int],
    text_info: int,
    text_flags: int,
) -> Resources:
    """One kernel's Resources from its records and the sizes of its data sections.

    `per_symbol` is what the global .nv.info says about the kernel's symbol (code -> value),
    `info` its own .nv.info.<name> records. ABI 7 and older cubins may keep the register count
    in the .text section's sh_info[31:24] and the barrier count in its sh_flags[26:20]: those are
    the fallbacks when the records are silent.
    """
    attrs: dict[int, NvInfoRecord] = {}
    for rec in info:
        attrs.setdefault(rec.code, rec)

    def scalar(code: int) -> int | None:
        rec = attrs.get(code)
        return rec.scalar() if rec else None

    reserved = min(shared, reserved_cap)
    maxntid = _dims(attrs.get(MAX_THREADS))
    barriers = scalar(NUM_BARRIERS)
    exits = attrs.get(EXIT_INSTR_OFFSETS)
    return Resources(
        registers=per_symbol.get(REGCOUNT, text_info >> 24),
        stack_frame=per_symbol.get(FRAME_SIZE, 0),
        min_stack=_stack(per_symbol.get(MIN_STACK_SIZE, 0)),
        max_stack=_stack(per_symbol.get(MAX_STACK_SIZE, 0)),
        local=local,
        shared_user=shared - reserved,
        shared_reserved=reserved,
        constant=MappingProxyType(dict(sorted(constant.items()))),
        max_threads=_product(maxntid),
        reqntid=_dims(attrs.get(REQNTID)),
        maxntid=maxntid,
        max_registers=scalar(MAXREG_COUNT),
        barriers=barriers if barriers is not None else (text_flags >> 20) & 0x7F,
        param_bytes=_param_bytes(info),
        param_offsets=_param_offsets(info),
        exit_offsets=exits.words() if exits else (),
    )


def _param_bytes(info: tuple[NvInfoRecord, ...]) -> int:
    """CBANK_PARAM_SIZE, else the size half of PARAM_CBANK, else the end of the last KPARAM."""
    for rec in info:
        if rec.code == CBANK_PARAM_SIZE and rec.value is not None:
            return rec.value
    for rec in info:
        words = rec.words()
        if rec.code == PARAM_CBANK and len(words) >= 2:
            return words[1] >> 16
    params = [p for rec in info if (p := kernel_param(rec)) is not None]
    return max((p.offset + p.size for p in params), default=0)


def _param_offsets(info: tuple[NvInfoRecord, ...]) -> tuple[int, ...]:
    """Each parameter's offset in constant bank 0, by ordinal: PARAM_CBANK's base (its low
    half-word) plus KPARAM_INFO's offset; () without a base or with a gap in the ordinals."""
    bases = [
        w[1] & 0xFFFF for rec in info if rec.code == PARAM_CBANK and len(w := rec.words()) >= 2
    ]
    by_ordinal = {p.ordinal: p.offset for rec in info if (p := kernel_param(rec)) is not None}
    if not bases or sorted(by_ordinal) != list(range(len(by_ordinal))):
        return ()
    return tuple(bases[0] + by_ordinal[i] for i in range(len(by_ordinal)))


def _dims(rec: NvInfoRecord | None) -> tuple[int, ...] | None:
    return (rec.words()[:3] or None) if rec else None


def _product(dims: tuple[int, ...] | None) -> int | None:
    if dims is None:
        return None
    total = 1
    for d in dims:
        total *= d
    return total


def _stack(value: int) -> int:
    return UNKNOWN_STACK if value == 0xFFFFFFFF else value


@dataclass(frozen=True, slots=True)
class ToolNote:
    """One .note.nv.tkinfo entry: the tool that wrote (or linked) the cubin, and its options."""

    tool: str  # ptxas, "nvJIT API", nvlink
    version: str  # "Cuda compilation tools, release 13.5, V13.5.37"
    options: str  # "-v -lineinfo -arch sm_90a"


def parse_tkinfo(raw: bytes) -> tuple[ToolNote, ...]:
    """Decode the ELF notes of .note.nv.tkinfo; a linked cubin has the linker's entry first.

    Each note's desc is: u32 version, u32 reserved, u32 offsets of the tool name, version, branch
    and options into the string table that follows (24 bytes in). Damaged entries are skipped:
    this is provenance, not something the rest of the cubin depends on.
    """
    notes, pos = [], 0
    while pos + 12 <= len(raw):
        namesz, descsz, _type = struct.unpack_from("<III", raw, pos)
        desc_at = pos + 12 + _align4(namesz)
        desc = raw[desc_at : desc_at + descsz]
        pos = desc_at + _align4(descsz)
        if len(desc) < 24:
            continue
        tool, version, _branch, options = struct.unpack_from("<4I", desc, 8)
        strings = desc[24:]
        notes.append(
            ToolNote(_cstr(strings, tool), _cstr(strings, version), _cstr(strings, options))
        )
    return tuple(notes)


def arch_suffix(flag_a: bool, compat: tuple[NvInfoRecord, ...], sm: int, options: list[str]) -> str:
    """The suffix of an sm_<sm> cubin's architecture: "a", "f" or "".

    `a`: the e_flags bit ptxas 12 sets, or EICOMPAT CUDA_ACCELERATOR_TARGET = 1 (ptxas 13).
    `f`: ptxas records it nowhere but in its command line (an sm_100f cubin is byte for byte an
    sm_100 one but for that line), so the tkinfo options decide. EICOMPAT ISA_CLASS does not:
    it is 2 on plain sm_90 code that uses mbarrier / cp.async.bulk as much as on family code.
    """
    values = {r.code: r.scalar() for r in compat}
    if flag_a or values.get(COMPAT_ACCELERATOR_TARGET) == 1:
        return "a"
    for opts in options:
        for m in re.finditer(r"-arch(?:=|\s+)(?:sm_)?(\d+)([af]?)\b", opts):
            if int(m.group(1)) == sm and m.group(2) == "f":
                return "f"
    return ""


def _align4(n: int) -> int:
    return (n + 3) & ~3


def _cstr(table: bytes, offset: int) -> str:
    if offset >= len(table):
        return ""
    end = table.find(b"\0", offset)
    return table[offset : end if end >= 0 else len(table)].decode("utf-8", "replace").strip()
