"""A header checked alone is compiled as the project's nearest file that includes it includes
it, and only the header's own kernels are reported (not those its includer defines first)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_sassview as sassview

from sassview.frontends.build_options import BuildOptions, resolve_build
from sassview.frontends.includer import find_includers

HEADER = """\
#pragma once
// Relies on its includer for WARP and for real_t: it does not compile alone.
namespace lib {
__device__ __forceinline__ real_t warp_sum(real_t v) {
  for (int o = WARP / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__global__ void warp_reduce(const real_t* in, real_t* out) {
  real_t v = warp_sum(in[blockIdx.x * WARP + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
}  // namespace lib
"""
INCLUDER = """\
#define WARP 32
typedef float real_t;
// A kernel of the includer's own, before the header: not the header's to report.
__global__ void fill(real_t* out, real_t v) { out[threadIdx.x] = v; }
#include "../include/lib/warp.cuh"
__global__ void after(real_t* out) { out[threadIdx.x] = lib::warp_sum(out[threadIdx.x]); }
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "include" / "lib").mkdir(parents=True)
    header = tmp_path / "include" / "lib" / "warp.cuh"
    header.write_text(HEADER)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.cu").write_text(INCLUDER)
    (tmp_path / "tests" / "deep").mkdir(parents=True)
    (tmp_path / "tests" / "deep" / "t.cu").write_text(
        INCLUDER.replace("../include", "../../include")
    )
    (tmp_path / "src" / "unrelated.cu").write_text("// names warp.cuh in a comment only\n")
    return header


def test_the_includers_are_the_projects_files_that_include_it_nearest_first(
    tmp_path: Path,
) -> None:
    header = project(tmp_path)
    assert find_includers(header, ()) == [
        tmp_path / "src" / "main.cu",
        tmp_path / "tests" / "deep" / "t.cu",
    ]


def test_a_header_alone_is_built_in_its_nearest_includers_context(tmp_path: Path) -> None:
    header = project(tmp_path)
    found = resolve_build(header, BuildOptions())
    assert found.options.kernels_in == (header,)
    assert len(found.options.include_before) == 1
    (note,) = found.notes
    assert f"compiled as {tmp_path / 'src' / 'main.cu'} includes it" in note
    assert "the nearest of 2 files that include it" in note
    as_is = resolve_build(header, BuildOptions(compile_commands=False))
    assert as_is.options.include_before == () and as_is.notes == ()


@pytest.mark.compile
def test_check_reports_only_the_headers_own_kernels(tmp_path: Path) -> None:
    header = project(tmp_path)
    done = sassview("check", header, "--json")
    assert done.returncode == 0, done.stderr
    assert f"compiled as {tmp_path / 'src' / 'main.cu'} includes it" in done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert [k["display_name"] for k in program["kernels"]] == [
        "lib::warp_reduce(float const*, float*)"
    ]
    named = sassview("check", header, "--included-by", tmp_path / "src" / "main.cu", "--json")
    assert named.returncode == 0, named.stderr
    (program,) = json.loads(named.stdout)["programs"]
    assert [k["display_name"] for k in program["kernels"]] == [
        "lib::warp_reduce(float const*, float*)"
    ]


@pytest.mark.compile
def test_the_tui_loader_and_the_pytest_loader_see_the_headers_kernels(tmp_path: Path) -> None:
    from sassview.testing.loader import KernelCache
    from sassview.testing.loader import Target as TestTarget
    from sassview.tui.loader import Target, load

    header = project(tmp_path)
    loaded = load(Target(header, kernel="warp_reduce"))
    assert [i.kernel.display_name for i in loaded.inspections] == [
        "lib::warp_reduce(float const*, float*)"
    ]
    (program,) = KernelCache().load(TestTarget(header, "sm_90a"))
    assert [k.display_name for k in program.kernels] == ["lib::warp_reduce(float const*, float*)"]
