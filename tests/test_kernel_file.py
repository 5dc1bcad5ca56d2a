"""`sassview check kernel.py`: discovery, declarations, variants, and what goes wrong."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from types import MappingProxyType

import pytest
from conftest import run_sassview as run

pytestmark = pytest.mark.compile

SAXPY_FILE = '''\
import sassview as sv

SAXPY = r"""
__global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll UNROLL
  for (int k = 0; k < 4; ++k) {
    int j = i * 4 + k;
    if (j < n) y[j] = a * x[j] + y[j];
  }
}
"""

sv.cuda(SAXPY, arch=["sm_80", "sm_90a"], variants={"UNROLL": [1, 4]})
'''


def write(tmp_path: Path, text: str, name: str = "kernel.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_each_arch_and_variant_is_one_result_with_lines_in_the_kernel_file(tmp_path: Path) -> None:
    path = write(tmp_path, SAXPY_FILE)
    done = run("-v", "check", path, "--json", env={"SASSVIEW_CACHE_DIR": str(tmp_path / "c")})
    assert done.returncode == 0, done.stderr
    programs = json.loads(done.stdout)["programs"]
    assert [(p["arch"], p["variant"]) for p in programs] == [
        ("sm_80", {"UNROLL": 1}), ("sm_80", {"UNROLL": 4}),
        ("sm_90a", {"UNROLL": 1}), ("sm_90a", {"UNROLL": 4}),
    ]  # fmt: skip
    for p in programs:
        assert p["label"] == f"saxpy [UNROLL={p['variant']['UNROLL']}]"
        assert p["source"] == str(path)
        (loop,) = p["kernels"][0]["analysis"]["loops"]
        assert loop["source_line"] == 7  # the `for` line of kernel.py, through #line
        assert loop["has_back_edge"] == (p["variant"]["UNROLL"] == 1)
    # A second run of the unchanged file compiles and disassembles nothing.
    again = run("-v", "check", path, "--json", env={"SASSVIEW_CACHE_DIR": str(tmp_path / "c")})
    assert again.returncode == 0
    assert "compiled" not in again.stderr and "disassembled" not in again.stderr
    assert json.loads(again.stdout)["programs"] == programs


def test_command_line_arch_overrides_the_declaration(tmp_path: Path) -> None:
    done = run("check", write(tmp_path, SAXPY_FILE), "--arch", "sm_120", "--json")
    assert done.returncode == 0, done.stderr
    assert {p["arch"] for p in json.loads(done.stdout)["programs"]} == {"sm_120"}


def test_cuda_file_is_found_next_to_the_kernel_file(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void twice(float* p) { p[threadIdx.x] *= 2.0f; }\n")
    path = write(tmp_path, 'import sassview as sv\nsv.cuda_file("k.cu", arch="sm_90a")\n')
    done = run("check", path, "--json")
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert program["kernels"][0]["display_name"] == "twice(float*)"


def clean_error(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and done.stdout == ""
    for needle in needles:
        assert needle in done.stderr
    assert "sassview/" not in done.stderr.replace("sassview/sassview", "")  # no frames of ours


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "import sassview as sv\ndef broken(:\n    pass\n")
    clean_error(run("check", path), f"{path}:2", "syntax error")


def test_exception_while_importing_shows_the_users_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "import sassview as sv\n\ndef f():\n    return 1 / 0\n\nf()\n")
    done = run("check", path)
    clean_error(done, "ZeroDivisionError", f'File "{path}", line 4')


def test_missing_package_names_what_to_install(tmp_path: Path) -> None:
    path = write(tmp_path, "import sassview as sv\nimport no_such_package_xyz\n")
    clean_error(run("check", path), "no_such_package_xyz", "pip install")


def test_a_file_without_declarations_says_how_to_declare(tmp_path: Path) -> None:
    path = write(tmp_path, "import sassview as sv\nX = 1\n")
    clean_error(run("check", path), "declares no kernels", "sv.cuda(")


def test_undeclared_triton_kernel_is_listed_with_the_line_to_add(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    path = write(
        tmp_path,
        """\
        import triton
        import triton.language as tl

        @triton.jit
        def scale(x_ptr, n, BLOCK: tl.constexpr):
            twice(n)

        @triton.jit
        def twice(v):  # a helper `scale` calls: compiled with it, never launched
            return v * 2

        @triton.autotune(configs=[triton.Config({"BLOCK": 32})], key=[])
        @triton.jit
        def tuned(out, W, stride_w, count: int, eps, BLOCK: tl.constexpr, IS_LAST: tl.constexpr):
            pass
        """,
    )
    done = run("check", path)
    clean_error(
        done, "declares no kernels", "line 4", "line 12", "check each",
        'sv.triton(scale, signature={"x_ptr": "*?", "n": "i32"}, constexprs={"BLOCK": 128}',
        "element type of x_ptr not knowable here",
        # BLOCK comes from the autotune config; W's name says nothing: the user must say
        'sv.triton(tuned, signature={"out": "*?", "W": "?", "stride_w": "i32", "count": "i32",'
        ' "eps": "fp32"}, constexprs={"IS_LAST": False}',
    )  # fmt: skip
    # Triton's launcher makes an integer argument passed as 1 a constexpr: said for strides only
    assert done.stderr.count("stride_w=1 for a contiguous dimension) is constexpr 1") == 1
    assert "twice" not in done.stderr


AUTOTUNED_FILE = """\
import triton
import triton.language as tl

import sassview as sv


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=1, num_stages=1),
        triton.Config({"BLOCK": 256}, num_warps=2, num_stages=1, maxnreg=64),
    ],
    key=["n"],
)
@triton.jit
def halve(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=keep) * 0.5, mask=keep)


sv.triton(halve, signature={"src_ptr": "*fp32", "dst_ptr": "*fp32", "n": "i32"}, arch="sm_90a")
"""


def test_each_autotune_config_is_one_variant_labelled_by_its_values(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    path = write(tmp_path, AUTOTUNED_FILE)
    done = run("check", path, "--json", env={"SASSVIEW_CACHE_DIR": str(tmp_path / "c")})
    assert done.returncode == 0, done.stderr
    assert "not declared" not in done.stderr  # the autotuner object is the declared kernel
    first, second = json.loads(done.stdout)["programs"]
    assert first["label"] == "halve [BLOCK=64, num_warps=1, num_stages=1]"
    assert second["label"] == "halve [BLOCK=256, num_warps=2, num_stages=1, maxnreg=64]"
    assert "constexprs=BLOCK=64" in first["options"] and "num_warps=1" in first["options"]
    assert "maxnreg=64" in second["options"]  # a compile option, not a constexpr
    assert "maxnreg=64" not in first["options"]
    (kernel,) = second["kernels"]
    assert kernel["resources"]["registers"] <= 64


def test_heuristics_are_computed_per_config_where_they_need_no_launch(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    text = AUTOTUNED_FILE.replace(
        "@triton.jit", '@triton.heuristics({"HALF": lambda a: a["BLOCK"] // 2})\n@triton.jit'
    ).replace("BLOCK: tl.constexpr)", "BLOCK: tl.constexpr, HALF: tl.constexpr)")
    text = text.replace("tl.arange(0, BLOCK)", "tl.arange(0, HALF) * 2")
    done = run("check", write(tmp_path, text), "--json")
    assert done.returncode == 0, done.stderr
    first, second = json.loads(done.stdout)["programs"]
    assert "constexprs=BLOCK=64,HALF=32" in first["options"]  # from each config's BLOCK
    assert "constexprs=BLOCK=256,HALF=128" in second["options"]
    assert "HALF" not in first["label"]  # derived, so not part of what tells variants apart


def test_autotune_configs_combine_with_the_variant_grid(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    from sassview.declare import collecting
    from sassview.frontends.discover import import_kernel_file

    text = AUTOTUNED_FILE.replace('arch="sm_90a")', 'variants={"num_stages": [2, 3]})')
    with collecting():
        kf = import_kernel_file(write(tmp_path, text))
    (decl,) = kf.declarations
    assert [(v["BLOCK"], v["num_stages"]) for v in decl.variant_grid()] == [
        (64, 2), (64, 3), (256, 2), (256, 3),
    ]  # fmt: skip


def test_bad_arch_in_a_declaration_caches_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, SAXPY_FILE.replace('["sm_80", "sm_90a"]', '"sm_77"'))
    cache = tmp_path / "cache"
    clean_error(run("check", path, env={"SASSVIEW_CACHE_DIR": str(cache)}), "sm_77")
    assert not [m for m in cache.rglob("manifest.json") if "tool-versions" not in m.parts]


def test_compile_error_in_a_cuda_string_points_into_the_kernel_file(tmp_path: Path) -> None:
    path = write(tmp_path, SAXPY_FILE.replace("a * x[j]", "a * undefined_name"))
    clean_error(run("check", path), f"{path}:9", "undefined_name")


NOISY_FILE = (
    SAXPY_FILE.replace(
        'arch=["sm_80", "sm_90a"], variants={"UNROLL": [1, 4]}',
        'arch="sm_90a", defines=["UNROLL=2"]',
    )
    + """
import ctypes
import os
import sys

print("NOISE-print")
os.write(1, b"NOISE-fd1\\n")
ctypes.CDLL(None).printf(b"NOISE-libc\\n")  # a C library's own write to fd 1
KEPT = sys.stdout = open(1, "w", closefd=False)  # rebound, kept alive, still unflushed at the end
sys.stdout.write("NOISE-rebound\\n")
"""
)


@pytest.mark.parametrize("command", ["check", "sweep", "try"])
def test_user_code_output_goes_to_stderr_and_stdout_is_only_the_json(
    tmp_path: Path, command: str
) -> None:
    path = write(tmp_path, NOISY_FILE)
    done = run(command, path, "--json", env={"SASSVIEW_CACHE_DIR": str(tmp_path / "c")})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["schema_version"] >= 1, done.stdout
    for noise in ("print", "fd1", "libc", "rebound"):
        assert f"NOISE-{noise}" in done.stderr


def test_sys_exit_while_importing_is_an_error_not_a_silent_success(tmp_path: Path) -> None:
    path = write(tmp_path, "import sys\nimport sassview as sv\n\nsys.exit(0)\n")
    done = run("check", path, "--json")
    clean_error(done, "sys.exit(0)", '__name__ == "__main__"')


def test_a_directory_named_like_a_kernel_file_is_called_a_directory(tmp_path: Path) -> None:
    (tmp_path / "kernel.py").mkdir()
    for command in ("check", "sweep", "try"):
        clean_error(run(command, tmp_path / "kernel.py"), "is a directory", "kernel.py")


@pytest.mark.parametrize("command", ["check", "sweep", "try", "diff"])
def test_sys_exit_while_compiling_is_an_error_not_a_silent_success(
    tmp_path: Path, command: str
) -> None:
    """A CuTe DSL host function runs while its kernel compiles: a sys.exit() there too."""
    pytest.importorskip("cutlass")
    example = Path(__file__).parents[1] / "examples" / "cute" / "kernel.py"
    text = example.read_text().replace("    threads = 256\n", "    import sys\n    sys.exit(0)\n")
    path = tmp_path / "kernel.py"
    path.write_text(text.replace('arch=["sm_90a", "sm_100a"]', 'arch="sm_90a"'))
    args = (path, path) if command == "diff" else (path, "--json")  # diff: the file on both sides
    done = run(command, *args, env={"SASSVIEW_CACHE_DIR": str(tmp_path / "c")})
    clean_error(done, "sys.exit(0)")


def test_a_kernel_declared_twice_is_labelled_by_the_settings_that_differ() -> None:
    from sassview.declare import Declaration
    from sassview.frontends.declaration import KernelFile
    from sassview.frontends.jobs import Job

    def decl(**defines: int) -> Declaration:
        settings = {"defines": tuple(f"{k}={v}" for k, v in defines.items()), "file": False}
        return Declaration("cuda", "saxpy", "", ("sm_90a",), MappingProxyType(settings))

    kf = KernelFile(Path("k.py"), "", (decl(TILE=64, N=1), decl(TILE=128, N=1), decl()), ())
    labels = [Job(i, "sm_90a", {"UNROLL": 4}).label(d, kf) for i, d in enumerate(kf.declarations)]
    # the third has no setting of its own that differs: its place among them tells it apart
    assert labels == ["saxpy(TILE=64, N=1) [UNROLL=4]", "saxpy(TILE=128, N=1) [UNROLL=4]",
                      "saxpy#3 [UNROLL=4]"]  # fmt: skip


def test_kernel_option_keeps_the_declarations_that_compile_that_kernel(tmp_path: Path) -> None:
    text = SAXPY_FILE.replace('arch=["sm_80", "sm_90a"], variants={"UNROLL": [1, 4]}', "")
    text = text.replace("#pragma unroll UNROLL\n", "") + (
        'sv.cuda(r"""__global__ void twice(float* p) { p[threadIdx.x] *= 2.0f; }""")\n'
    )
    path = write(tmp_path, text)
    done = run("check", path, "-k", "twice", "--json")
    assert done.returncode == 0, done.stderr
    assert [p["label"] for p in json.loads(done.stdout)["programs"]] == ["twice"]
    clean_error(run("check", path, "-k", "nope"), "no kernel named 'nope'", "saxpy")


def test_guessed_types_read_annotations_that_name_a_type_and_else_the_name() -> None:
    from sassview.frontends.specs.triton import guess_type

    assert [guess_type("a", ann) for ann in (int, "int", float, "*fp16", "i64")] == [
        "i32", "i32", "fp32", "*fp16", "i64",
    ]  # fmt: skip
    # An annotation that is no Triton type (a torch type, under `from __future__ import
    # annotations`) says nothing: the name decides, a pointer whose element type nothing says.
    assert guess_type("x_ptr", "torch.Tensor") == "*?"
    assert guess_type("weights", "torch.Tensor") == "?"
    assert [guess_type(n) for n in ("N_CTX", "stride_qm", "row_size", "sm_scale", "Mean")] == [
        "i32", "i32", "i32", "fp32", "?",
    ]  # fmt: skip


def test_a_cuda_string_takes_the_compiler_it_names(tmp_path: Path) -> None:
    """`sv.cuda(..., compiler="nvcc")` builds the string with nvcc, as `sv.cuda_file` would
    (it took NVRTC, the command line's --compiler is only noted for a kernel.py); a compiler
    that is none is the declaration's error, named at its line."""
    text = SAXPY_FILE.replace('variants={"UNROLL": [1, 4]})', 'compiler="nvcc")')
    text = text.replace("#pragma unroll UNROLL\n", "")
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "c")}
    done = run("check", write(tmp_path, text), "--arch", "sm_80", env=env)
    assert done.returncode == 0, done.stderr
    assert "· nvcc ·" in done.stdout.splitlines()[0]
    bad = run("check", write(tmp_path, text.replace('"nvcc"', '"gcc"')), env=env)
    assert bad.returncode == 2
    assert "sv.cuda(): compiler='gcc' is not a compiler" in bad.stderr
