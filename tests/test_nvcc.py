"""CUDA files as projects have them: whole programs (nvcc), runners including headers, template
kernels, headers needing their includer's context, and the cache keyed on every file that went
in. All compile live with the pip wheels (nvcc, NVRTC) and the host compiler on PATH."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS
from conftest import assert_clean_error as clean_error
from conftest import run_sassview as sassview

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.compile
SOURCES = CORPUS / "sources"
WHOLE = SOURCES / "whole_program.cu"
PROJECT = SOURCES / "project"
DEVICE_ONLY = SOURCES / "device_only.cu"
needs_host_compiler = pytest.mark.skipif(
    not (shutil.which("g++") or shutil.which("clang++")), reason="no host C++ compiler"
)


def nvcc_spy(tmp: Path) -> tuple[dict[str, str], Path]:
    """An nvcc that logs each compile (not --version) before running the real one."""
    from sassview.toolchain.locate import nvcc_info

    calls = tmp / "nvcc-calls.log"
    spy = tmp / "nvcc"
    spy.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] || echo "$@" >> {calls}\nexec {nvcc_info().path} "$@"\n'
    )
    spy.chmod(0o755)
    calls.write_text("")
    return {"SASSVIEW_NVCC": str(spy), "SASSVIEW_CACHE_DIR": str(tmp / "cache")}, calls


def runs(calls: Path) -> int:
    n = len(calls.read_text().splitlines())
    calls.write_text("")
    return n


@needs_host_compiler
def test_whole_program_compiles_with_nvcc_and_names_every_instantiated_kernel() -> None:
    done = sassview("check", WHOLE, "--arch", "sm_90a", "--json")
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert program["compiler"] == "nvcc"
    assert program["toolchain"]["nvcc"].startswith("13.") and program["toolchain"]["host"]
    assert {k["display_name"] for k in program["kernels"]} == {
        "fill<float>(float*, float, int)",
        "axpy_tiles<128, 4, float>(float, float const*, float*, int)",
        "axpy_tiles<64, 8, double>(double, double const*, double*, int)",
    }
    text = sassview("check", WHOLE, "--kernel", "axpy_tiles<128, 4, float>").stdout
    shown = WHOLE.relative_to(Path.cwd()) if WHOLE.is_relative_to(Path.cwd()) else WHOLE
    assert text.startswith(f"== {shown} · sm_90a · nvcc · ptxas")  # as typed under the cwd
    assert "line 12: fully unrolled (4 copies, no loop left)" in text


def test_device_only_file_stays_with_nvrtc() -> None:
    done = sassview("check", DEVICE_ONLY, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["programs"][0]["compiler"] == "nvrtc"


@needs_host_compiler
def test_device_only_file_gives_the_same_sass_with_both_compilers() -> None:
    import sassview as sv

    by_nvrtc = sv.compile(path=DEVICE_ONLY, compiler="nvrtc")
    by_nvcc = sv.compile(path=DEVICE_ONLY, compiler="nvcc")
    assert (by_nvrtc.artifacts.compiler, by_nvcc.artifacts.compiler) == ("nvrtc", "nvcc")
    assert sorted(k.name for k in by_nvrtc.kernels) == sorted(k.name for k in by_nvcc.kernels)

    def listing(k: object) -> list[tuple[object, ...]]:
        # Source lines in the user's file: nvcc also keeps frames inlined from the toolkit's
        # headers (cuda_fp16.hpp), NVRTC's bundled copies of them have none.
        return [
            (
                i.address,
                i.opcode,
                i.modifiers,
                tuple(o.text for o in i.operands),
                next((f.line for f in i.source.frames() if f.file == str(DEVICE_ONLY)), None)
                if i.source
                else None,
            )
            for i in k.instructions  # type: ignore[attr-defined]
        ]

    for k in by_nvrtc.kernels:
        twin = by_nvcc.kernel(k.name)
        assert listing(k) == listing(twin), k.display_name
        assert k.resources == twin.resources


@needs_host_compiler
def test_runner_gets_the_kernels_of_its_headers_and_records_them_as_inputs() -> None:
    import sassview as sv

    program = sv.compile(path=PROJECT / "runner.cu")
    assert {k.display_name for k in program.kernels} == {
        "scale_rows<256>(float*, float, int)",
        "warp_sum(float const*, float*)",
    }
    inputs = program.artifacts.inputs
    assert inputs[0] == str(PROJECT / "runner.cu")
    assert str(PROJECT / "kernels" / "reduce.cuh") in inputs
    assert str(PROJECT / "kernels" / "scale.cuh") in inputs


def test_header_needing_its_includer_says_so_and_takes_include_before() -> None:
    header = PROJECT / "kernels" / "reduce.cuh"
    # --no-compile-commands: the header as it is (else its includer, runner.cu, is found)
    alone = sassview("check", header, "--no-compile-commands")
    clean_error(alone, 'identifier "value_t" is undefined', "--include-before")
    done = sassview(
        "check", header, "--no-compile-commands", "--include-before", PROJECT / "context.h"
    )
    assert done.returncode == 0, done.stderr
    assert "warp_sum(float const*, float*)" in done.stdout


@pytest.mark.parametrize("compiler", ["nvrtc", pytest.param("nvcc", marks=needs_host_compiler)])
def test_template_kernels_nothing_instantiates_are_listed_then_instantiated(
    compiler: str,
) -> None:
    header = PROJECT / "kernels" / "scale.cuh"
    clean_error(
        sassview("check", header, "--no-compile-commands", "--compiler", compiler),
        "not instantiated: scale_rows<BLOCK>",
        f"{header}:5",
        "--instantiate 'scale_rows<BLOCK>'",
    )
    done = sassview(
        "check", header, "--no-compile-commands", "--compiler", compiler,
        "--instantiate", "scale_rows<128>", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert program["compiler"] == compiler
    assert [k["display_name"] for k in program["kernels"]] == [
        "scale_rows<128>(float*, float, int)"
    ]


def test_a_wrong_instantiation_names_the_expression() -> None:
    header = PROJECT / "kernels" / "scale.cuh"
    clean_error(
        sassview("check", header, "--no-compile-commands", "--instantiate", "scale_rows<float>"),
        "sassview --instantiate:1",
        "check --instantiate 'scale_rows<float>'",
    )


def test_kernel_file_declares_a_header_with_instantiations(tmp_path: Path) -> None:
    shutil.copytree(PROJECT, tmp_path / "project")
    kernel_py = tmp_path / "kernel.py"
    kernel_py.write_text(
        "import sassview as sv\n"
        "sv.cuda_file('project/kernels/scale.cuh', instantiate=['scale_rows<64>'])\n"
        "sv.cuda_file('project/kernels/reduce.cuh', include_before=['project/context.h'])\n"
    )
    done = sassview("check", kernel_py, "--json")
    assert done.returncode == 0, done.stderr
    names = [k["display_name"] for p in json.loads(done.stdout)["programs"] for k in p["kernels"]]
    assert names == ["scale_rows<64>(float*, float, int)", "warp_sum(float const*, float*)"]


def test_file_without_kernels_is_an_input_error_saying_what_it_holds(tmp_path: Path) -> None:
    host_only = tmp_path / "host_only.cu"
    host_only.write_text('#include <cstdio>\nint main() { std::printf("hi\\n"); }\n')
    nothing = tmp_path / "helpers.cuh"
    nothing.write_text("__device__ inline float twice(float x) { return 2 * x; }\n")
    if shutil.which("g++") or shutil.which("clang++"):
        clean_error(sassview("check", host_only), "host code only", "host_only.cu:1")
    clean_error(sassview("check", nothing), "no __global__ function")


@needs_host_compiler
def test_whole_program_asked_of_nvrtc_says_it_needs_nvcc() -> None:
    clean_error(
        sassview("check", WHOLE, "--compiler", "nvrtc"),
        "cannot open source file",
        "needs nvcc (host header <cstdio> at",
        "--compiler nvcc",
    )


def test_without_a_host_compiler_a_whole_program_gets_one_message(tmp_path: Path) -> None:
    # A PATH with no g++/clang++ on it: nvcc comes from the wheel, the host compiler from PATH.
    env = {"PATH": str(tmp_path), "SASSVIEW_HOST_COMPILER": "", "CUDAHOSTCXX": ""}
    done = sassview("check", WHOLE, env=env)
    clean_error(
        done,
        f"needs nvcc (host header <cstdio> at {WHOLE}:3)",
        "none was found",
        "install g++ or clang++",
        "--host-compiler",
    )
    assert len(done.stderr.strip().splitlines()) == 2  # the message and its hint
    assert sassview("check", DEVICE_ONLY, env=env).returncode == 0


@needs_host_compiler
def test_host_side_error_comes_back_at_the_users_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.cu"
    broken.write_text(
        "#include <vector>\n__global__ void k(float* x) { x[0] = 1.0f; }\n"
        "int main() {\n  std::vector<int> v;\n  v.push_bak(3);\n  k<<<1, 1>>>(nullptr);\n}\n"
    )
    clean_error(sassview("check", broken), f"compile failed (nvcc): {broken}:5:", "push_bak")


@needs_host_compiler
def test_unchanged_whole_program_runs_no_compiler_and_a_header_edit_recompiles(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    env, calls = nvcc_spy(tmp_path)
    runner = project / "runner.cu"

    first = sassview("-v", "check", runner, "--json", env=env)
    assert first.returncode == 0, first.stderr
    assert runs(calls) == 1
    second = sassview("-v", "check", runner, "--json", env=env)
    assert second.returncode == 0, second.stderr
    assert runs(calls) == 0
    assert "nvrtc: refused" not in second.stderr and "nvrtc: compiled" not in second.stderr
    assert "nvcc: cache hit" in second.stderr
    assert json.loads(first.stdout)["programs"] == json.loads(second.stdout)["programs"]

    # A header the runner includes: found through nvcc's -MD list, not a text scan.
    scale = project / "kernels" / "scale.cuh"
    scale.write_text(scale.read_text().replace("row[c] *= factor", "row[c] *= factor * factor"))
    assert sassview("check", runner, env=env).returncode == 0
    assert runs(calls) == 1
    # A header that gains an include of its own: the new list is followed from then on.
    (project / "kernels" / "extra.h").write_text("#define EXTRA 2.0f\n")
    scale.write_text('#include "extra.h"\n' + scale.read_text().replace("factor *", "EXTRA *"))
    assert sassview("check", runner, env=env).returncode == 0
    assert runs(calls) == 1
    assert sassview("check", runner, env=env).returncode == 0
    assert runs(calls) == 0
    (project / "kernels" / "extra.h").write_text("#define EXTRA 3.0f\n")
    assert sassview("check", runner, env=env).returncode == 0
    assert runs(calls) == 1


def test_nvrtc_header_included_through_a_macro_is_in_the_key(tmp_path: Path) -> None:
    (tmp_path / "factor.h").write_text("#define FACTOR 3.0f\n")
    source = tmp_path / "k.cu"
    source.write_text(
        '#define FACTOR_HEADER "factor.h"\n/**/ #include FACTOR_HEADER\n'
        "__global__ void k(float* x) { x[threadIdx.x] *= FACTOR; }\n"
    )
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "cache")}
    assert "nvrtc: compiled" in sassview("-v", "check", source, env=env).stderr
    assert "nvrtc: cache hit" in sassview("-v", "check", source, env=env).stderr
    (tmp_path / "factor.h").write_text("#define FACTOR 5.0f\n")
    assert "nvrtc: compiled" in sassview("-v", "check", source, env=env).stderr


@needs_host_compiler
def test_pytest_fixture_takes_the_compiler_and_instantiations(pytester: pytest.Pytester) -> None:
    shutil.copytree(PROJECT, pytester.path / "project")
    (pytester.path / "test_k.py").write_text(
        "def test_header(sassview_kernel):\n"
        "    k = sassview_kernel('project/kernels/scale.cuh', compiler='nvcc',\n"
        "                        instantiate=['scale_rows<32>'])\n"
        "    assert k.program.artifacts.compiler == 'nvcc'\n"
        "    assert k.kernel.display_name == 'scale_rows<32>(float*, float, int)'\n"
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@needs_host_compiler
def test_driver_api_host_code_compiles_and_a_missing_library_wheel_is_named() -> None:
    from cuda import pathfinder

    tma = SOURCES / "tma_host.cu"
    done = sassview("check", tma)
    assert done.returncode == 0, done.stderr
    assert "touch(float*)" in done.stdout
    if pathfinder.find_nvidia_header_directory("cublas") is None:
        clean_error(
            sassview("check", tma, "-D", "WITH_CUBLAS"),
            "cublas_v2.h",
            "pip install nvidia-cublas",
        )


def test_library_header_is_found_in_its_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cuda import pathfinder

    import sassview as sv

    wheel = tmp_path / "wheel" / "include"
    wheel.mkdir(parents=True)
    (wheel / "curand_kernel.h").write_text("#define CURAND_SEED 7\n")
    found = {"curand": str(wheel)}
    monkeypatch.setattr(pathfinder, "find_nvidia_header_directory", found.get)
    source = tmp_path / "k.cu"
    source.write_text(
        "#include <curand_kernel.h>\n__global__ void k(int* x) { x[0] = CURAND_SEED; }\n"
    )
    program = sv.compile(path=source, compiler="nvrtc")
    assert f"-I{wheel}" in program.artifacts.options
    assert str(wheel / "curand_kernel.h") in program.artifacts.inputs


@needs_host_compiler
def test_toolkit_header_in_quotes_goes_to_nvcc_and_a_missing_own_header_does_not(
    tmp_path: Path,
) -> None:
    quoted = tmp_path / "quoted.cu"
    quoted.write_text('#include "cuda_runtime.h"\n__global__ void k(float* x) { x[0] = 1; }\n')
    done = sassview("check", quoted, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["programs"][0]["compiler"] == "nvcc"
    own = tmp_path / "own.cu"
    own.write_text('#include "helpers.h"\n__global__ void k(float* x) { x[0] = 1; }\n')
    clean_error(sassview("check", own), 'cannot open source file "helpers.h"', "-I DIR")


@needs_host_compiler
def test_a_header_created_later_in_front_of_a_listed_one_recompiles(tmp_path: Path) -> None:
    """nvcc lists the files it read; a new header earlier on the search path shadows one of
    them, so it must change the key (the places NVRTC's scan probes are kept with the list)."""
    src, inc = tmp_path / "src", tmp_path / "inc"
    src.mkdir()
    inc.mkdir()
    (inc / "tile.cuh").write_text("#define TILE_KERNEL first_tile\n")
    main = src / "main.cu"
    main.write_text(
        '#include <cstdio>\n#include "tile.cuh"\n'
        "__global__ void TILE_KERNEL(float* x) { x[threadIdx.x] = 1.0f; }\n"
        'int main() { std::printf("%d\\n", 1); return 0; }\n'
    )
    env, calls = nvcc_spy(tmp_path)
    first = sassview("check", main, "-I", inc, env=env)
    assert first.returncode == 0, first.stderr
    assert "first_tile(float*)" in first.stdout and runs(calls) == 1
    assert sassview("check", main, "-I", inc, env=env).returncode == 0
    assert runs(calls) == 0  # unchanged: no compile
    (src / "tile.cuh").write_text("#define TILE_KERNEL second_tile\n")  # beside the includer
    shadowed = sassview("check", main, "-I", inc, env=env)
    assert shadowed.returncode == 0, shadowed.stderr
    assert runs(calls) == 1
    assert "second_tile(float*)" in shadowed.stdout


@needs_host_compiler
def test_host_short_type_names_send_a_tutorial_kernel_to_nvcc(tmp_path: Path) -> None:
    # Tutorial kernels count with `uint`, which nvcc's implicit <cuda_runtime.h> brings in from
    # the host's <sys/types.h>; NVRTC has no host headers and calls it undefined.
    source = tmp_path / "tutorial.cu"
    source.write_text(
        "__global__ void k(float* x, uint n) {\n"
        "  for (uint i = threadIdx.x; i < n; i += blockDim.x) x[i] *= 2.f;\n"
        "}\n"
    )
    done = sassview("check", source, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["programs"][0]["compiler"] == "nvcc"
    own = tmp_path / "own.cu"  # an undefined name of the file's own stays the file's error
    own.write_text("__global__ void k(float* x) { x[0] = not_declared; }\n")
    clean_error(sassview("check", own), 'identifier "not_declared" is undefined')
