"""The cubin reader against what NVIDIA's own tools say about the same cubins.

Every recorded cubin (tests/corpus/*/*/ and tests/data/elf/*/*/) comes with the output of
`cuobjdump -res-usage` and the ptxas -v report; the reader must agree with both, kernel by kernel.
tests/data/elf/make.py re-makes the cubins under tests/data/elf.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from sassview.binary import nvinfo
from sassview.binary.elf import UNKNOWN_STACK, CubinInfo, is_elf, read_cubin
from sassview.errors import ParseError

TESTS = Path(__file__).parent
DATA = TESTS / "data" / "elf"
CUBIN_DIRS = sorted(
    p.parent for root in (TESTS / "corpus", DATA) for p in root.glob("*/*/kernel.cubin")
)


def _id(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"


def read(case: str, where: str) -> CubinInfo:
    path = DATA / case / where / "kernel.cubin"
    return read_cubin(path.read_bytes(), str(path))


def parse_res_usage(text: str) -> dict[str, dict[str, str]]:
    """cuobjdump -res-usage: {"<common>" or function name: {"REG": "12", "CONSTANT[0]": ...}}."""
    table: dict[str, dict[str, str]] = {}
    current: str | None = None
    for line in text.splitlines():
        if m := re.match(r"\s*Function (\S+):\s*$", line):
            current = m.group(1)
        elif re.match(r"\s*Common:\s*$", line):
            current = "<common>"
        elif current is not None and ":" in line:
            table[current] = dict(tok.split(":", 1) for tok in line.split())
            current = None
    return table


def parse_ptxas_smem(text: str) -> dict[str, tuple[int, int]]:
    """ptxas -v: {function: (registers, bytes smem)} for each function with a "Used" line."""
    table: dict[str, tuple[int, int]] = {}
    current = None
    for line in text.splitlines():
        if m := re.search(r"(?:entry function|Function properties for) '?([^' ]+)'?", line):
            current = m.group(1)
        elif (m := re.search(r"Used (\d+) registers", line)) and current:
            smem = re.search(r"(\d+) bytes smem", line)
            table[current] = (int(m.group(1)), int(smem.group(1)) if smem else 0)
    return table


def expected_arch(directory: Path) -> str:
    meta = directory / "meta.json"
    if meta.exists():
        return str(json.loads(meta.read_text())["arch"])
    return directory.name.split("-")[0]


# -- every recorded cubin agrees with cuobjdump and ptxas ----------------------------------------


def test_there_are_cubins_to_check() -> None:
    assert len(CUBIN_DIRS) >= 10


@pytest.mark.parametrize("directory", CUBIN_DIRS, ids=[_id(d) for d in CUBIN_DIRS])
def test_resources_match_cuobjdump(directory: Path) -> None:
    info = read_cubin((directory / "kernel.cubin").read_bytes(), str(directory))
    usage = parse_res_usage((directory / "res-usage.txt").read_text())
    assert {k.name for k in info.kernels} == set(usage) - {"<common>"}
    for kernel in info.kernels:
        r, want = kernel.resources, usage[kernel.name]
        got = {
            "REG": str(r.registers),
            "STACK": "UNKNOWN" if r.min_stack == UNKNOWN_STACK else str(r.min_stack),
            "SHARED": str(r.shared_user + r.shared_reserved),
            "LOCAL": str(r.local),
            **{f"CONSTANT[{bank}]": str(size) for bank, size in r.constant.items()},
        }
        assert got == {k: v for k, v in want.items() if k in got or k.startswith("CONSTANT")}, (
            kernel.name
        )
    common = {"GLOBAL": str(info.global_bytes)}
    common |= {f"CONSTANT[{bank}]": str(size) for bank, size in info.module_constant.items()}
    assert common == usage.get("<common>", {"GLOBAL": "0"})


@pytest.mark.parametrize("directory", CUBIN_DIRS, ids=[_id(d) for d in CUBIN_DIRS])
def test_shared_user_is_what_ptxas_reports(directory: Path) -> None:
    log = next(directory / n for n in ("ptxas.log", "compile.log") if (directory / n).exists())
    report = parse_ptxas_smem(log.read_text())
    info = read_cubin((directory / "kernel.cubin").read_bytes(), str(directory))
    checked = 0
    for kernel in info.kernels:
        if kernel.name in report:
            registers, smem = report[kernel.name]
            assert kernel.resources.shared_user == smem, kernel.name
            assert kernel.resources.registers == registers, kernel.name
            checked += 1
    assert checked or not any(k.is_entry for k in info.kernels)


@pytest.mark.parametrize("directory", CUBIN_DIRS, ids=[_id(d) for d in CUBIN_DIRS])
def test_arch_abi_and_shape(directory: Path) -> None:
    info = read_cubin((directory / "kernel.cubin").read_bytes(), str(directory))
    assert info.arch == expected_arch(directory)
    if directory.name.endswith("-abi7"):
        assert (info.abi_version, info.producer, info.tool_options) == (7, "", "")
    else:
        assert info.abi_version == 8
        assert info.producer.startswith("ptxas Cuda compilation tools, release 1")
        assert "-arch" in info.tool_options
    for kernel in info.kernels:
        r = kernel.resources
        assert kernel.text_size > 0 and kernel.text_size % 16 == 0
        assert all(0 <= a < kernel.text_size and a % 16 == 0 for a in r.exit_offsets)
        assert bool(r.exit_offsets) == kernel.is_entry
        assert r.spill_store_bytes is None and r.spill_load_bytes is None
        assert r.min_blocks_per_sm is None
        if not info.arch.startswith(("sm_8", "sm_7")) and r.shared_user + r.shared_reserved:
            assert r.shared_reserved == 1024
        else:
            assert r.shared_reserved == 0


# -- what the resources mean, case by case -------------------------------------------------------


def test_sm90_reserved_window_even_for_kernels_without_shared_memory() -> None:
    kernels = {k.name: k.resources for k in read("shared3", "sm_90a").kernels}
    assert (kernels["s100"].shared_user, kernels["s100"].shared_reserved) == (112, 1024)
    assert (kernels["dyn"].shared_user, kernels["dyn"].shared_reserved) == (0, 1024)
    assert (kernels["none"].shared_user, kernels["none"].shared_reserved) == (0, 1024)
    assert kernels["s100"].shared == 1136 and kernels["s100"].barriers == 1


def test_reserved_cap_symbol_and_family_suffix() -> None:
    for where in ("sm_100a", "sm_100f"):
        info = read("tcgen05", where)
        (kernel,) = info.kernels
        assert info.arch == where
        assert (kernel.resources.shared_user, kernel.resources.shared_reserved) == (4, 1024)
        assert "EIATTR_RESERVED_SMEM_USED" in {rec.name for rec in kernel.info}


def test_suffixes_of_every_architecture() -> None:
    # sm_100f without family instructions: only the ptxas command line tells it from sm_100.
    for where in ("sm_90", "sm_100f", "sm_103a", "sm_120", "sm_120a"):
        assert read("tiny", where).arch == where
    assert read("bulk", "sm_90").arch == "sm_90"  # ISA_CLASS 2, yet no suffix
    assert read("shared3", "sm_120a-ptxas12").arch == "sm_120a"  # the old e_flags bit, ABI 8
    assert read("shared3", "sm_90a-abi7").arch == "sm_90a"  # the old e_flags bit, ABI 7


def test_launch_bounds_maxnreg_and_cluster() -> None:
    kernels = {k.name: k for k in read("bounds", "sm_90a").kernels}
    scale = kernels["scale"].resources
    assert (scale.maxntid, scale.max_threads, scale.reqntid) == ((128, 1, 1), 128, None)
    assert scale.max_registers == 128  # 65536 / (128 threads x 4 blocks): minBlocks lives here
    assert kernels["scale3"].resources.maxntid == (256, 1, 1)
    assert kernels["maxreg"].resources.max_registers == 40
    clustered = {rec.name: rec.words() for rec in kernels["clustered"].info}
    assert clustered["EIATTR_CTA_PER_CLUSTER"] == (2, 1, 1)
    assert kernels["scale"].resources.param_bytes == 16  # float*, float, int (+ padding)


def test_reqntid_from_ptxas_12_abi7() -> None:
    info = read("reqntid", "sm_90a-abi7")
    (kernel,) = info.kernels
    assert info.abi_version == 7 and info.producer == ""
    assert kernel.resources.reqntid == (64, 2, 1)
    assert kernel.resources.maxntid is None and kernel.resources.max_registers == 168


def test_non_entry_device_function_has_its_own_kernel() -> None:
    kernels = {k.name: k for k in read("devfn", "sm_80").kernels}
    assert set(kernels) == {"_Z6helperfi", "caller"}
    assert not kernels["_Z6helperfi"].is_entry and kernels["caller"].is_entry
    assert kernels["_Z6helperfi"].resources.constant == {}
    assert kernels["caller"].resources.param_bytes == 12


def test_stack_frame_and_unknown_stack_under_recursion() -> None:
    kernels = {k.name: k.resources for k in read("stack", "sm_80").kernels}
    assert kernels["outer"].stack_frame == kernels["outer"].min_stack == 256
    assert kernels["recur"].min_stack == UNKNOWN_STACK


def test_module_globals_and_constant_banks() -> None:
    info = read("globals", "sm_80")
    assert info.global_bytes == 44
    assert dict(info.module_constant) == {3: 12, 4: 16}


def test_kernels_in_section_order_and_lookup() -> None:
    info = read("shared3", "sm_90a")
    assert [k.name for k in info.kernels] == ["none", "dyn", "s100"]
    assert info.kernel("dyn") is info.kernels[1] and info.kernel("nope") is None


# -- attribute records ---------------------------------------------------------------------------


def test_records_of_every_format_and_unknown_codes() -> None:
    raw = bytes([1, 0x7F, 0, 0, 2, 0x4C, 3, 0, 3, 0x1B, 0x80, 0, 4, 0x1C, 8, 0]) + struct.pack(
        "<II", 0x70, 0x120
    )
    nval, bval, hval, sval = nvinfo.parse_records(raw, "t")
    assert (nval.name, nval.value) == ("EIATTR_UNKNOWN_0x7f", 0)
    assert (bval.name, bval.value, hval.value) == ("EIATTR_NUM_BARRIERS", 3, 0x80)
    assert (sval.name, sval.value) == ("EIATTR_EXIT_INSTR_OFFSETS", None)
    assert sval.words() == (0x70, 0x120)
    assert "EXIT_INSTR_OFFSETS" in str(sval)


@pytest.mark.parametrize(
    "raw",
    [bytes([4, 0x1C, 8, 0, 1, 2]), bytes([3, 0x1B]), bytes([9, 0x1B, 0, 0])],
    ids=["sval-past-end", "stray-bytes", "unknown-format"],
)
def test_bad_records(raw: bytes) -> None:
    with pytest.raises(ParseError, match="t: "):
        nvinfo.parse_records(raw, "t")


# -- bad input: always a ParseError that says what is wrong --------------------------------------

GOOD = DATA / "shared3" / "sm_90a" / "kernel.cubin"


def _patched(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def _section_header(data: bytes, index: int) -> int:
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    return int(shoff) + 64 * index


def _bad_inputs() -> list[tuple[str, bytes, str]]:
    good = GOOD.read_bytes()
    nv_info = next(i for i in range(1, 40) if _name_of(good, i) == ".nv.info.none")
    cases = [
        ("empty", b"", "not an ELF file"),
        ("text", b"hello world\n", "not an ELF file"),
        ("ptx", b".version 8.7\n.target sm_80\n", "PTX text"),
        ("fatbin", b"\x50\xed\x55\xba" + bytes(60), "fatbin"),
        ("elf-header-cut", good[:40], "truncated"),
        ("table-cut", good[: len(good) // 2], "truncated"),
        ("last-byte-cut", good[:-1], "truncated"),
        ("shoff-huge", _patched(good, 0x28, "<Q", 1 << 40), "truncated"),
        ("shentsize", _patched(good, 0x3A, "<H", 12), "section headers are 12 bytes"),
        ("shstrndx", _patched(good, 0x3E, "<H", 999), "out of range"),
        ("no-sections", _patched(good, 0x3C, "<H", 0), "no section table"),
        ("machine", _patched(good, 0x12, "<H", 62), "EM_X86_64, not a CUDA cubin"),
        ("section-offset", _patched(good, _section_header(good, 4) + 0x18, "<Q", 1 << 33), "ends"),
        ("nv-info-size", _patched(good, _section_header(good, nv_info) + 0x20, "<Q", 3), "stray"),
    ]
    host = Path(sys.executable).resolve().read_bytes()
    if is_elf(host):
        cases.append(("host-executable", host, "not a CUDA cubin"))
    return cases


def _name_of(data: bytes, index: int) -> str:
    (shstrndx,) = struct.unpack_from("<H", data, 0x3E)
    (names_at,) = struct.unpack_from("<Q", data, _section_header(data, shstrndx) + 0x18)
    (name,) = struct.unpack_from("<I", data, _section_header(data, index))
    return data[names_at + name : data.index(b"\0", names_at + name)].decode()


@pytest.mark.parametrize("name,data,says", _bad_inputs(), ids=[c[0] for c in _bad_inputs()])
def test_bad_input_is_a_parse_error(name: str, data: bytes, says: str) -> None:
    with pytest.raises(ParseError) as caught:
        read_cubin(data, "input.cubin")
    assert says in caught.value.message
    assert caught.value.message.startswith("input.cubin: ")
    assert caught.value.hint


def test_random_damage_never_escapes_as_another_exception() -> None:
    good = GOOD.read_bytes()
    rng = random.Random(7)
    for _ in range(300):
        damaged = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        with contextlib.suppress(ParseError):
            read_cubin(bytes(damaged[: rng.randint(64, len(damaged))]))


# -- live: a fresh compile agrees with cuobjdump -------------------------------------------------

SOURCE = r"""
extern "C" __global__ void __launch_bounds__(256) k(const float* a, float* b, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? a[i] : 0.f;
    __syncthreads();
    if (i < n) b[i] = tile[255 - threadIdx.x];
}
"""


@pytest.mark.compile
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a", "sm_120"])
def test_fresh_compile_matches_cuobjdump(arch: str, tmp_path: Path) -> None:
    rt = pytest.importorskip("cuda.bindings.nvrtc")
    cuobjdump = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    cuobjdump = cuobjdump / "site-packages/nvidia/cu13/bin/cuobjdump"
    if not cuobjdump.exists():
        pytest.skip("no cuobjdump wheel")
    _, prog = rt.nvrtcCreateProgram(SOURCE.encode(), b"k.cu", 0, [], [])
    opts = [f"--gpu-architecture={arch}".encode()]
    (err,) = rt.nvrtcCompileProgram(prog, len(opts), opts)
    assert err == rt.nvrtcResult.NVRTC_SUCCESS
    _, n = rt.nvrtcGetCUBINSize(prog)
    cubin = b" " * n
    rt.nvrtcGetCUBIN(prog, cubin)
    (tmp_path / "k.cubin").write_bytes(cubin)
    usage = parse_res_usage(
        subprocess.run(
            [str(cuobjdump), "-res-usage", str(tmp_path / "k.cubin")],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    info = read_cubin(cubin)
    (kernel,) = info.kernels
    assert info.arch == arch
    assert usage["k"]["REG"] == str(kernel.resources.registers)
    assert usage["k"]["SHARED"] == str(kernel.resources.shared)
    assert kernel.resources.shared_user == 1024 and kernel.resources.maxntid == (256, 1, 1)
