"""A failed compile says what the compiler itself advises, tried; its log cut to the error.

The messages below are the compiler's own (NVRTC and nvcc 13.5, recorded from the files in the
tests that compile them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_clean_error
from conftest import run_sassview as sassview

from sassview.frontends.diagnose import compiler_advice, trimmed_log

CONSTEXPR = (
    'k.cu(3): error: calling a constexpr __host__ function("scale_for") from a __global__ '
    "function(\"k\") is not allowed. The experimental flag '--expt-relaxed-constexpr' can be "
    "used to allow this (note: for a __tile__/__tile_global__ caller, the flag guarantees "
    "support only for calls that are required by language rules to be evaluated at compile "
    "time)."
)
LAMBDA = (
    "lam.cu(2): error: __host__ or __device__ annotation on lambda requires --extended-lambda "
    "nvcc flag"
)
LAMBDA_CLOSURE = (
    'lam.cu(2): error: The closure type for a lambda ("lambda [](float)->float", defined at '
    "lam.cu:2) cannot be used in the template argument type of a __global__ function template "
    "instantiation, unless the lambda is defined within a __device__ or __global__ function, or "
    "the flag '-extended-lambda' is specified and the lambda is an extended lambda"
)
DEVICE_LAUNCH = (
    "dyn.cu(2): error: device-side kernel launch could not be processed as the required "
    "runtime APIs are not declared"
)


@pytest.mark.parametrize(
    ("log", "option"),
    [
        (CONSTEXPR, "--expt-relaxed-constexpr"),
        (LAMBDA, "--extended-lambda"),
        (LAMBDA_CLOSURE, "--extended-lambda"),
        (DEVICE_LAUNCH, "-rdc=true"),
        ('k.cu(1): error: identifier "TILE" is undefined', ""),
    ],
)
def test_the_option_the_compiler_names_is_its_advice(log: str, option: str) -> None:
    assert compiler_advice(log) == option


def test_a_long_log_is_cut_to_its_first_error_and_the_count() -> None:
    errors = [
        f'k.cu({i}): error: identifier "u{i}" is undefined\n  x = u{i};\n      ^\n'
        for i in range(2, 42)
    ]
    log = "\n".join(errors) + '\n40 errors detected in the compilation of "k.cu".\n'
    cut = trimmed_log(log).splitlines()
    assert cut[:3] == ['k.cu(2): error: identifier "u2" is undefined', "  x = u2;", "      ^"]
    assert cut[3].startswith("... ") and "(-v prints all of it)" in cut[3]
    assert cut[4] == '40 errors detected in the compilation of "k.cu".'
    short = "\n".join(errors[:2])
    assert trimmed_log(short) == short


RELAXED = """\
#include <cstdio>
constexpr float scale_for(int cols) { return cols > 0 ? 1.0f / cols : 0.0f; }
__global__ void scale(float* x) { x[threadIdx.x] *= scale_for(4); }
int main() { std::printf("%d\\n", 1); }
"""


@pytest.mark.compile
def test_the_compilers_advice_is_the_hint_and_is_tried(tmp_path: Path) -> None:
    source = tmp_path / "relaxed.cu"
    source.write_text(RELAXED)
    done = sassview("check", source)
    assert_clean_error(done, "calling a constexpr __host__ function")
    assert (
        "hint: the compiler's advice: --expt-relaxed-constexpr allows this; "
        "add -X=--expt-relaxed-constexpr (tried: it compiles)"
    ) in done.stderr
    assert "fix the error at that line" not in done.stderr
    assert sassview("check", source, "-X=--expt-relaxed-constexpr").returncode == 0


@pytest.mark.compile
def test_a_long_log_is_cut_and_v_prints_it_whole(tmp_path: Path) -> None:
    source = tmp_path / "many.cu"
    source.write_text(
        "".join(f"__global__ void k{i}(float* x) {{ x[0] = u{i}; }}\n" for i in range(40))
    )
    done = sassview("check", source)
    assert_clean_error(done, 'many.cu:1: identifier "u0" is undefined (and 39 more errors)')
    assert "more lines of the compiler's log (-v prints all of it)" in done.stderr
    assert "u39" not in done.stderr and len(done.stderr.splitlines()) < 12
    whole = sassview("-v", "check", source)
    assert 'identifier "u39" is undefined' in whole.stderr


@pytest.mark.compile
def test_a_compile_error_names_its_place_once_and_no_empty_hint(tmp_path: Path) -> None:
    """The message says `file:line: words`; below it the source line and caret, not the
    compiler's restatement of the same line, nor its closing count, nor a hint that points back
    at what is already there."""
    source = tmp_path / "bad.cu"
    source.write_text("__global__ void k(float* x) {\n  x[0] = y;\n  x[1] = z;\n}\n")
    done = sassview("check", source, "--arch", "sm_90a")
    assert_clean_error(done)
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f'error: compile failed: {source}:2: identifier "y" is undefined (and 1 more error)'
    )
    assert lines[1:3] == ["    x[0] = y;", "           ^"]
    assert sum('"y" is undefined' in line for line in lines) == 1
    assert f'{source}(3): error: identifier "z" is undefined' in lines  # the other one stays
    assert not any(
        line.startswith("hint:") or "detected in the compilation" in line for line in lines
    )


@pytest.mark.compile
def test_a_byte_order_mark_is_read_as_the_compiler_reads_it(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    (tmp_path / "scale.cuh").write_bytes(bom + b"#pragma once\n#define SCALE 2.f\n")
    main = tmp_path / "main.cu"
    main.write_bytes(
        bom + b'#include "scale.cuh"\n__global__ void k(float* x) { x[0] *= SCALE; }\n'
    )
    done = sassview("check", main, "--json")
    assert done.returncode == 0, done.stderr
    alone = tmp_path / "alone.cu"
    alone.write_bytes(bom + b"__global__ void k(float* x) { x[0] *= 2.f; }\n")
    done = sassview("-v", "check", alone)
    assert done.returncode == 0, done.stderr
    assert "nvrtc: compiled" in done.stderr  # the main file's mark is dropped: NVRTC takes it


def git_project(tmp_path: Path) -> Path:
    """A repository with its headers under include/, checked from src/ with no flags."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "include" / "ops").mkdir(parents=True)
    (tmp_path / "include" / "ops" / "config.cuh").write_text("#pragma once\n#define TILE 32\n")
    (tmp_path / "src").mkdir()
    source = tmp_path / "src" / "k.cu"
    source.write_text('#include "ops/config.cuh"\n__global__ void k(float* x) { x[0] = TILE; }\n')
    return source


def test_a_missing_header_is_found_in_the_project_nearest_first(tmp_path: Path) -> None:
    from sassview.frontends.missing_header import include_dir_for, missing_header

    source = git_project(tmp_path)
    (tmp_path / "third_party" / "old" / "ops").mkdir(parents=True)
    (tmp_path / "third_party" / "old" / "ops" / "config.cuh").write_text("#pragma once\n")
    log = f'{source}(1): catastrophic error: cannot open source file "ops/config.cuh"\n'
    missing = missing_header(log)
    assert missing is not None and missing.header == "ops/config.cuh"
    assert include_dir_for(missing) == (tmp_path / "include", (tmp_path / "third_party" / "old",))
    gcc = f"{source}:1:10: fatal error: ops/nothing.cuh: No such file or directory\n"
    nowhere = missing_header(gcc)
    assert nowhere is not None and include_dir_for(nowhere) is None


@pytest.mark.parametrize(
    ("header", "package"),
    [
        ("nvtx3/nvToolsExt.h", "nvidia-nvtx"),
        ("nvToolsExt.h", "nvidia-nvtx"),
        ("cublasLt.h", "nvidia-cublas"),
        ("cusparseLt.h", "nvidia-cusparselt-cu13"),
        ("cuda_profiler_api.h", "nvidia-cuda-profiler-api"),
        ("cutlass/gemm/device/gemm.h", "nvidia-cutlass"),
        ("cudnn.h", "nvidia-cudnn-cu13"),
    ],
)
def test_a_library_header_names_its_wheel(header: str, package: str) -> None:
    from sassview.frontends.libheaders import missing_library_hint

    log = f'k.cu(1): catastrophic error: cannot open source file "{header}"'
    assert (
        missing_library_hint(log)
        == f"{header} comes with the {package} wheel: pip install {package}"
    )
    assert (
        missing_library_hint('k.cu(1): catastrophic error: cannot open source file "cute_ops/a.h"')
        == ""
    )


def test_a_makefiles_cuda_flags_are_named_as_sassview_options(tmp_path: Path) -> None:
    from sassview.frontends.makefile_flags import makefile_note

    (tmp_path / ".git").mkdir()
    (tmp_path / "Makefile").write_text(
        "CUDA_HOME ?= /usr/local/cuda\n"
        "NVCCFLAGS := -O3 -arch=sm_80 -Iinc \\\n  -DTILE=64 --expt-relaxed-constexpr "
        "-I$(CUDA_HOME)/include\nall:\n\tnvcc $(NVCCFLAGS) src/k.cu\n"
    )
    (tmp_path / "src").mkdir()
    note = makefile_note(tmp_path / "src" / "k.cu")
    assert note.startswith(f"note: {tmp_path / 'Makefile'}:2 sets NVCCFLAGS")
    assert f"pass --arch sm_80 -I {tmp_path / 'inc'} -D TILE=64 -X=--expt-relaxed-constexpr" in note
    assert "(left out: -I$(CUDA_HOME)/include)" in note


@pytest.mark.compile
def test_check_names_and_tries_the_include_directory_the_project_has(tmp_path: Path) -> None:
    source = git_project(tmp_path)
    done = sassview("check", source)
    assert_clean_error(
        done,
        f"hint: ops/config.cuh is in {tmp_path / 'include'}: add -I {tmp_path / 'include'} "
        "(tried: it compiles)",
    )
    assert sassview("check", source, "-I", tmp_path / "include").returncode == 0


TORCH_EXTENSION = """\
#include <torch/extension.h>

template <typename scalar_t>
__global__ void scale_kernel(const scalar_t* __restrict__ in, scalar_t* __restrict__ out,
                             float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}

torch::Tensor scale(torch::Tensor x, double s) {
  auto out = torch::empty_like(x);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", [&] {
    scale_kernel<scalar_t><<<(x.numel() + 255) / 256, 256>>>(
        x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), s, x.numel());
  });
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale, "scale"); }
"""

NVTX_PROGRAM = """\
#include <nvtx3/nvToolsExt.h>

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

void run(const float* x, float* y, int n) {
  nvtxRangePushA("axpy");
  axpy<<<(n + 255) / 256, 256>>>(2.f, x, y, n);
  nvtxRangePop();
}
"""


@pytest.mark.compile
def test_a_torch_extension_says_it_needs_torch(tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed here: its headers are found")
    source = tmp_path / "ext.cu"
    source.write_text(TORCH_EXTENSION)
    done = sassview("check", source)
    assert_clean_error(
        done, "hint: a PyTorch extension: its host code needs torch's headers (pip install torch)"
    )


@pytest.mark.compile
def test_an_nvtx_program_names_the_nvtx_wheel(tmp_path: Path) -> None:
    from cuda import pathfinder

    runtime = pathfinder.find_nvidia_header_directory("cudart")
    if runtime and (Path(runtime) / "nvtx3").is_dir():
        pytest.skip("nvidia-nvtx is installed here")
    source = tmp_path / "ranges.cu"
    source.write_text(NVTX_PROGRAM)
    done = sassview("check", source)
    assert_clean_error(
        done, "hint: nvtx3/nvToolsExt.h comes with the nvidia-nvtx wheel: pip install nvidia-nvtx"
    )
