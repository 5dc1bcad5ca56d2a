"""Four programs shaped like real repositories' CUDA files (tests/corpus/sources/real), checked
as a new user checks them: `sassview check FILE --arch sm_90a`, nothing else, or the one
option the error's hint names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS
from conftest import assert_clean_error as clean_error
from conftest import run_sassview as sassview

pytestmark = pytest.mark.compile
REAL = CORPUS / "sources" / "real"
needs_host_compiler = pytest.mark.skipif(
    not (shutil.which("g++") or shutil.which("clang++")), reason="no host C++ compiler"
)


def kernels(done: object) -> dict[str, dict[str, object]]:
    document = json.loads(done.stdout)  # type: ignore[attr-defined]
    return {k["display_name"]: k for p in document["programs"] for k in p["kernels"]}


@needs_host_compiler
def test_a_templated_runner_lists_each_tile_configuration_its_host_code_launches() -> None:
    done = sassview("check", REAL / "gemm_runner" / "runner.cu", "--arch", "sm_90a", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["programs"][0]["compiler"] == "nvcc"
    names = sorted(n.split("(")[0] for n in kernels(done))
    assert names == ["sgemm_tiled<128, 128, 8, 8>", "sgemm_tiled<64, 64, 8, 4>"]


def twoheaders(tmp: Path) -> Path:
    """The project copied to `tmp` with the compile_commands.json CMake would write."""
    root = tmp / "twoheaders"
    shutil.copytree(REAL / "twoheaders", root)
    (root / "build").mkdir()
    command = (
        f"/usr/local/cuda/bin/nvcc -I{root / 'kernels'} -DBLOCK_THREADS=256 -O3 -std=c++17 "
        f"--generate-code=arch=compute_90a,code=[sm_90a] -x cu -c {root / 'src/main.cu'} -o m.o"
    )
    entry = {"directory": str(root / "build"), "command": command, "file": "../src/main.cu"}
    (root / "build" / "compile_commands.json").write_text(json.dumps([entry]))
    return root


@needs_host_compiler
def test_a_runner_gets_its_headers_kernels_through_the_builds_include_path(
    tmp_path: Path,
) -> None:
    root = twoheaders(tmp_path)
    done = sassview("check", root / "src" / "main.cu", "--arch", "sm_90a", "--json")
    assert done.returncode == 0, done.stderr
    found = kernels(done)
    assert sorted(n.split("(")[0] for n in found) == ["gemv_rows", "softmax_rows"]
    assert all(k["resources"]["max_threads"] == 256 for k in found.values())  # -DBLOCK_THREADS


def test_a_kernel_header_of_the_project_sweeps_with_its_includers_flags(tmp_path: Path) -> None:
    root = twoheaders(tmp_path)
    done = sassview("sweep", root / "kernels" / "gemv.cuh", "--json")
    assert done.returncode == 0, done.stderr
    assert f"(as included by {root / 'src' / 'main.cu'})" in done.stderr
    assert [r["arch"] for r in json.loads(done.stdout)["rows"]] == ["sm_90a"]


@needs_host_compiler
def test_cublas_and_the_driver_apis_tensor_map_need_only_the_cublas_wheel() -> None:
    from cuda import pathfinder

    runner = REAL / "cublas_tma" / "hopper_runner.cu"
    done = sassview("check", runner, "--arch", "sm_90a", "--json")
    if pathfinder.find_nvidia_header_directory("cublas") is None:
        clean_error(done, "cublas_v2.h", "pip install nvidia-cublas")
    else:
        assert done.returncode == 0, done.stderr
        assert "scale_tile(float*, float const*, float, int)" in kernels(done)


def test_a_header_relying_on_its_includer_is_checked_as_included_there() -> None:
    header = REAL / "warpsize" / "block_reduce.cuh"
    includer = REAL / "warpsize" / "reduce.cu"
    alone = sassview("check", header, "--arch", "sm_90a", "--no-compile-commands")
    clean_error(alone, 'identifier "real" is undefined', f"--included-by {includer}")
    found = sassview("check", header, "--arch", "sm_90a", "--json")  # its includer, found
    assert found.returncode == 0, found.stderr
    assert f"note: block_reduce.cuh compiled as {includer} includes it" in found.stderr
    done = sassview("check", header, "--arch", "sm_90a", "--included-by", includer, "--json")
    assert done.returncode == 0, done.stderr
    assert f"note: block_reduce.cuh compiled as {includer} includes it" in done.stderr
    through_includer = sassview("check", includer, "--arch", "sm_90a", "--json")
    (here,), (there,) = kernels(done).values(), kernels(through_includer).values()
    assert here["name"] == there["name"] == "_Z12block_reducePKfPfi"
    # the same loop report, trip counts included: WARPSIZE is #defined in reduce.cu ahead of
    # its #include, which the header's own check reads (pre-included lines) and the includer's
    # check reads in translation-unit order (the includer walked into the header at its
    # #include): warp_reduce's halving loop has 5 trips at both calls
    assert here["analysis"]["loops"] == there["analysis"]["loops"]
    assert [x["trip_count"] for x in there["analysis"]["loops"] if x["kind"] == "full"] == [5, 5]
