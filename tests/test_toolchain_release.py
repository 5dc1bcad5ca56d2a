"""Two real CUDA releases: the installed one and 12.9, added with `sassview toolchain add 12.9`
(CI does that before the suite: .ci/run). Without 12.9 these tests skip, naming the command;
in CI (CI or SASSVIEW_REQUIRE_TOOLCHAINS set) they fail instead, so a CI that lost the step
cannot pass quietly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sassview
from sassview.errors import SassviewError
from sassview.report.normalize import normalize_sass
from sassview.toolchain import store
from tests.conftest import run_sassview, toolchains_required

pytestmark = pytest.mark.compile
RELEASE = "12.9"
ROOT = Path(__file__).parents[1]
MATMUL = ROOT / "examples" / "matmul"
DATA = Path(__file__).parent / "data" / "toolchains"


@pytest.fixture(scope="module", autouse=True)
def release_12_9() -> store.Toolchain:
    try:
        return store.find(RELEASE)
    except SassviewError as exc:
        why = (
            f"CUDA {RELEASE} is not in the toolchain store ({exc.message}): "
            f"`sassview toolchain add {RELEASE}`"
        )
        if toolchains_required():
            pytest.fail(why, pytrace=False)
        pytest.skip(why)


def test_check_names_the_release_that_compiled(tmp_path: Path) -> None:
    done = run_sassview("check", ROOT / "examples/vecadd.cu", "--toolchain", RELEASE)
    assert done.returncode == 0, done.stderr
    head = done.stdout.splitlines()[0]
    assert "· nvrtc 12.9." in head and f"(toolchain {RELEASE})" in head, head
    as_json = run_sassview("check", ROOT / "examples/vecadd.cu", "--toolchain", RELEASE, "--json")
    tools = json.loads(as_json.stdout)["programs"][0]["toolchain"]
    assert tools["stored"] == RELEASE and tools["nvrtc"].startswith("12.9.")


@pytest.mark.parametrize("name", ["02_smem_tiled", "tiled"])
def test_the_recorded_listings_are_what_each_release_makes(name: str) -> None:
    recorded = json.loads((DATA / f"{name}.json").read_text())
    source = recorded["12.9"]["source"]
    for release, toolchain in (("12.9", RELEASE), ("13.5", None)):
        program = sassview.load(ROOT / source, toolchain=toolchain)[0]
        (insp,) = sassview.analyze(program)
        if release == "13.5" and program.artifacts.toolchain["nvrtc"] != "13.5":
            pytest.skip("the default release is no longer 13.5: record the pair again")
        assert normalize_sass(insp.kernel) == recorded[release]["listing"], release


def test_the_other_release_never_loads_into_sassview_s_process() -> None:
    """cuda.bindings takes whichever libnvrtc is loaded first (nvrtc_stored.py)."""
    sassview.compile(path=ROOT / "examples/gather.cu", toolchain=RELEASE, options=["-DX=1"])
    from cuda.bindings import nvrtc

    _, major, _ = nvrtc.nvrtcVersion()
    assert major >= 13


def test_diff_one_file_under_two_releases_classifies_the_change() -> None:
    done = run_sassview(
        "diff", MATMUL / "02_smem_tiled.cu", "--toolchain", RELEASE, "--toolchain", "default",
        "--json",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # the SASS differs
    report = json.loads(done.stdout)
    assert (report["toolchain_a"], report["toolchain_b"]) == (RELEASE, "default")
    assert report["verdict"] == "benign"
    assert {"what": "registers", "a": 32, "b": 31} in report["summary"]


def test_sweep_takes_the_release_as_an_axis() -> None:
    done = run_sassview("sweep", MATMUL / "02_smem_tiled.cu", "-p", "toolchain=12.9,default",
                        "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [r["variant"]["toolchain"] for r in rows] == ["12.9", "default"]
    assert [r["values"]["registers"] for r in rows] == [32, 31]


def test_the_gate_passes_a_benign_upgrade_and_fails_a_significant_one(tmp_path: Path) -> None:
    base = tmp_path / "baseline"
    for name in ("tiled.cu", "matmul/05_wgmma_tma.cu"):
        path = ROOT / "examples" / name
        assert run_sassview("baseline", path, "--dir", base, "--update").returncode == 0
    benign = run_sassview("baseline", ROOT / "examples/tiled.cu", "--dir", base, "--toolchain",
                          RELEASE)  # fmt: skip
    assert benign.returncode == 0, benign.stdout
    assert benign.stdout.startswith("benign    tiled_sum")
    assert "reordered within basic blocks only" in benign.stdout
    worse = run_sassview("baseline", MATMUL / "05_wgmma_tma.cu", "--dir", base, "--toolchain",
                         RELEASE)  # fmt: skip
    # 13.5 -> 12.9: that loop is faster, but 40 of 471 instructions differ (the mbarrier
    # waits among them): the gate fails. Both releases unroll the K loop by 4 with a
    # remainder loop (16 and 4 HGMMA in each; 13.5's line table gives 8 of the main loop's
    # to the `for` line), so the census reads both alike and the class is UNCLEAR, never a
    # factor change.
    assert worse.returncode == 1, worse.stdout
    assert worse.stdout.startswith("UNCLEAR   matmul_wgmma_tma"), worse.stdout
    assert "(against the baseline of 13." in worse.stdout
    assert "benign      loop_cycles: line 71: 191 -> line 71: 153" in worse.stdout


def test_the_fixture_compiles_with_the_release(pytester: pytest.Pytester) -> None:
    (pytester.path / "tiled.cu").symlink_to(ROOT / "examples/tiled.cu")
    pytester.makepyfile(
        test_k="""
        def test_old(sassview_kernel):
            k = sassview_kernel("tiled.cu", toolchain="12.9")
            assert k.inspection.program.artifacts.toolchain["stored"] == "12.9"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:textual-snapshot")
    result.assert_outcomes(passed=1)


pytest_plugins = ["pytester"]


def test_triton_runs_the_release_s_ptxas_where_asked() -> None:
    pytest.importorskip("triton")
    kernel = ROOT / "examples/triton/kernel.py"
    done = run_sassview("check", kernel, "-k", "scale", "-a", "sm_90a", "--toolchain", RELEASE)
    assert done.returncode == 0, done.stderr
    heads = [line for line in done.stdout.splitlines() if line.startswith("== ")]
    assert heads and all("· ptxas 12.9.86 (toolchain 12.9)" in h for h in heads), heads
    bundled = run_sassview("check", kernel, "-k", "scale", "-a", "sm_90a")
    assert "(toolchain 12.9)" not in bundled.stdout


LOOPS_HEADER = """#pragma once
__device__ constexpr unsigned four() { return 4; }
__device__ __forceinline__ void copy4(float4* d, const float4* s, unsigned n) {
  for (unsigned v = 0; v < four(); ++v) d[v * n] = s[v * n];
}
"""
LOOPS_SOURCE = """#include "loops.cuh"
typedef unsigned int uint;
__global__ void loops(const float4* __restrict__ s, float4* __restrict__ d) {
  copy4(d + threadIdx.x, s + threadIdx.x, blockDim.x);
  for (uint v = 4; v < 4 + four(); ++v) d[v * blockDim.x + threadIdx.x] = s[v * blockDim.x];
}
"""


def test_a_stored_release_s_loops_are_settled_by_its_own_rolled_builds(tmp_path: Path) -> None:
    """Line 5's bound is a constexpr call no constant reading evaluates; 12.9's SASS (sm_80)
    holds it as 4 LDG.E.128 and 4 STG.E.128 at line 5 and no branch back: fully unrolled, 4
    copies of one float4 copy (the count alone reads its 16 words as 16 copies). The rolled
    builds are 12.9's own (its PTX header), and a release added again since gives none."""
    from dataclasses import replace
    from types import MappingProxyType

    from sassview.frontends.cuda_rolled import rolled_build

    (tmp_path / "loops.cuh").write_text(LOOPS_HEADER)
    (tmp_path / "loops.cu").write_text(LOOPS_SOURCE)
    done = run_sassview("check", tmp_path / "loops.cu", "-a", "sm_80", "--toolchain", RELEASE,
                        "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert program["toolchain"]["stored"] == RELEASE
    (kernel,) = program["kernels"]
    (entry,) = [e for e in kernel["analysis"]["loops"] if e["source_line"] == 5]
    assert (entry["kind"], entry["copies"], entry["decided_by"]) == ("full", 4, "rolled build")
    real = sassview.compile(path=tmp_path / "loops.cu", arch="sm_80", toolchain=RELEASE)
    built = rolled_build(real.artifacts, 1)
    assert built is not None and built.ptx is not None
    assert "release 12.9," in built.ptx and '.pragma "nounroll"' in built.ptx
    other = {**real.artifacts.toolchain, "toolchain": f"{RELEASE}:{'0' * 20}"}
    moved = replace(real.artifacts, toolchain=MappingProxyType(other))
    assert rolled_build(moved, 1) is None
