"""Live compiles through NVRTC and nvJitLink (pip wheels only, no GPU), checked end to end."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import CORPUS

import sassview
from sassview.errors import CompileError, InputError

pytestmark = pytest.mark.compile
SOURCES = CORPUS / "sources"


def res_usage(cubin: bytes, tmp_path: Path) -> dict[str, dict[str, int]]:
    """cuobjdump -res-usage, the reference the model's resources must equal."""
    from sassview.toolchain.locate import cuobjdump

    f = tmp_path / "k.cubin"
    f.write_bytes(cubin)
    text = subprocess.run(
        [cuobjdump(), "-res-usage", str(f)], capture_output=True, text=True, check=True
    ).stdout
    out: dict[str, dict[str, int]] = {}
    for name, body in re.findall(r"Function (\S+):\n\s*(.*)", text):
        out[name] = {k: int(v) for k, v in re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", body)}
    return out


@pytest.mark.parametrize(
    ("source", "arch", "options"),
    [
        ("vecadd.cu", "sm_80", ()),
        ("tiled.cu", "sm_90a", ()),
        ("spill.cu", "sm_90a", ("-maxrregcount=32",)),
        ("bounds.cu", "sm_100a", ()),
        ("mma.cu", "sm_120", ()),
        ("wgmma.cu", "sm_90a", ()),
    ],
)
def test_live_resources_equal_cuobjdump(
    source: str, arch: str, options: tuple[str, ...], tmp_path: Path
) -> None:
    program = sassview.compile(path=SOURCES / source, arch=arch, options=options)
    assert program.arch == arch
    reference = res_usage(program.artifacts.cubin, tmp_path)
    for k in program.kernels:
        ref = reference[k.name]
        r = k.resources
        assert (r.registers, r.stack_frame, r.shared, r.local) == (
            ref["REG"],
            ref["STACK"],
            ref["SHARED"],
            ref["LOCAL"],
        )
        assert r.constant.get(0) == ref["CONSTANT[0]"]


def test_spill_bytes_come_from_the_ptxas_report() -> None:
    program = sassview.compile(
        path=SOURCES / "spill.cu", arch="sm_80", options=["-maxrregcount=32"]
    )
    spill = program.kernel("spill")
    assert (
        spill.resources.spills
        and spill.resources.spill_store_bytes
        and spill.resources.spill_store_bytes > 0
    )
    assert spill.resources.registers <= 32
    assert any("SpillRefill" in i.marks for i in spill.instructions)
    # A dynamically indexed array lives in the stack frame (local memory), without any spill.
    local = program.kernel("local_array")
    assert local.resources.spill_store_bytes == 0 and local.resources.stack_frame >= 32 * 4
    assert any(i.opcode == "LDL" for i in local.instructions)
    assert not any(i.marks for i in local.instructions)


def test_compile_from_a_string_with_defines_and_bundled_headers() -> None:
    src = """
    #include <cuda_fp16.h>
    #include <cuda_bf16.h>
    #include <cuda_fp8.h>
    #include <cooperative_groups.h>
    #include <cuda/std/cstdint>
    __global__ void k(__half* h, __nv_bfloat16* b, cuda::std::uint32_t* u) {
      h[threadIdx.x] = __float2half(WIDTH * 1.0f);
      b[threadIdx.x] = __float2bfloat16(2.0f);
      u[threadIdx.x] = cooperative_groups::this_thread_block().thread_rank();
    }
    """
    program = sassview.compile(src, arch="sm_90a", defines=["WIDTH=4"])
    (k,) = program.kernels
    assert k.display_name.startswith("k(__half*")
    assert "-DWIDTH=4" in program.artifacts.options


def test_local_include_change_changes_the_result(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "value.h"
    src = tmp_path / "k.cu"
    src.write_text('#include "value.h"\n__global__ void k(float* p) { p[0] = VALUE; }\n')
    header.write_text("#define VALUE 1.0f\n")
    first = sassview.compile(path=src, arch="sm_80", include_dirs=[tmp_path / "inc"])
    header.write_text("#define VALUE 2.5f\n")
    second = sassview.compile(path=src, arch="sm_80", include_dirs=[tmp_path / "inc"])
    assert first.artifacts.cubin != second.artifacts.cubin  # the cache saw the header change


def test_correspondence_maps_inlined_source_lines_both_ways() -> None:
    program = sassview.compile(path=SOURCES / "bounds.cu", arch="sm_90a")
    k = program.kernel("bounded")
    corr = k.correspondence
    path = str(SOURCES / "bounds.cu")
    # Line 3 is inner(), inlined twice through outer() into line 8.
    inner = corr.sass_for_line(path, 3)
    assert any(k.instruction_at(a).opcode == "MUFU" for a in inner)
    call_site = set(corr.sass_for_line(path, 8))
    assert set(inner) <= call_site  # the call site finds the inlined code too
    # SASS -> PTX -> source agree on the line for the sine instruction.
    mufu = next(i for i in k.instructions if i.opcode == "MUFU")
    ptx_line = corr.ptx_for_sass(mufu.address)
    assert ptx_line is not None
    assert mufu.address in corr.sass_for_ptx(ptx_line)
    assert corr.ptx_source[ptx_line].line == mufu.source.line == 3
    assert ptx_line in corr.ptx_for_line(path, 3)


def test_128_bit_sass_loads_map_to_vector_ptx_loads() -> None:
    program = sassview.compile(path=SOURCES / "vecadd.cu", arch="sm_90a")
    k = program.kernel("add_f4")
    ptx_lines = program.artifacts.ptx.splitlines()
    loads = [i for i in k.instructions if i.opcode == "LDG"]
    assert loads
    for ins in loads:
        line = k.correspondence.ptx_for_sass(ins.address)
        assert "ld.global" in ptx_lines[line - 1] and ".v4.f32" in ptx_lines[line - 1]


def test_ptx_text_assembles_through_nvjitlink() -> None:
    ptx = (CORPUS / "tiled" / "sm_90a" / "kernel.ptx").read_text()
    program = sassview.from_ptx(ptx)
    assert program.arch == "sm_90a" and program.artifacts.kind == "ptx"
    (k,) = program.kernels
    assert k.resources.shared_user == 1024 and k.resources.barriers == 1
    assert k.ptx is not None and k.ptx.name == k.name


def test_compile_error_names_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "bad.cu"
    src.write_text("__global__ void k() {\n  int x = ;\n}\n")
    with pytest.raises(CompileError) as info:
        sassview.compile(path=src, arch="sm_80")
    # The message names the place once; the detail shows the line and its caret beneath.
    assert f"{src}:2" in info.value.message and "int x = ;" in info.value.detail


def test_empty_source_is_refused() -> None:
    with pytest.raises(InputError, match="empty"):
        sassview.compile("   ", arch="sm_80")


def test_import_sassview_loads_no_heavy_framework() -> None:
    heavy = ("textual", "triton", "cutlass", "torch", "click", "cuda.bindings.nvrtc")
    code = f"import sys, sassview; print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run(
        [__import__("sys").executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""


def test_ptx_input_keeps_sass_to_ptx_lines_and_clean_inline_chains() -> None:
    # nvJitLink names the embedded PTX ".nv_debug_ptx_txt.<n>", ptxas ".nv_debug_ptx_txt".
    program = sassview.from_ptx((CORPUS / "tiled" / "sm_90a" / "kernel.ptx").read_text())
    (k,) = program.kernels
    assert sum(1 for i in k.instructions if i.ptx_line) > len(k.instructions) // 2
    assert not any(
        f.file.startswith(".nv_debug")
        for i in k.instructions
        if i.source
        for f in i.source.frames()
    )
