"""No value a user or a checked-out file gives reaches a shell: nvcc runs its steps through `sh`
(frontends/nvcc_shell.py says which arguments), so each channel a value takes to nvcc plants a
command that would create a marker file, and the marker must never appear."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assert_clean_error, run_sassview

pytestmark = pytest.mark.compile

WHOLE = """\
#include <cstdio>
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
int main() { scale<<<1, 32>>>(nullptr, 2.0f, 0); std::printf("done\\n"); return 0; }
"""


def _program(tmp: Path, name: str = "whole.cu") -> Path:
    path = tmp / name
    path.write_text(WHOLE)
    return path


def _planted(marker: Path) -> str:
    """A shell command substitution that creates `marker` (no space: `${IFS}`)."""
    return f"$(touch${{IFS}}{marker})"


def test_a_file_name_with_a_command_is_compiled_and_the_command_never_runs(
    tmp_path: Path,
) -> None:
    program = _program(tmp_path, "w$(touch${IFS}PWNED).cu")
    done = run_sassview("check", program, "--compiler", "nvcc", "--json")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "PWNED").exists()
    assert not Path("PWNED").exists()
    program_doc = json.loads(done.stdout)["programs"][0]
    assert program_doc["compiler"] == "nvcc"
    assert program_doc["kernels"][0]["name"].startswith("_Z5scale")


@pytest.mark.parametrize(
    "option",
    [
        pytest.param(lambda m: ["-D", f"X={_planted(m)}"], id="define"),
        pytest.param(lambda m: ["-D", f"X=`touch {m}`"], id="define-backticks"),
        pytest.param(lambda m: ["-X", f"-Xptxas=-v;touch {m}"], id="nvcc-option-bare"),
        pytest.param(lambda m: ["-X", f"--ptxas-options=-v,{_planted(m)}"], id="ptxas-option"),
        pytest.param(lambda m: ["-I", f"{m.parent}/inc`touch {m}`"], id="include-dir"),
    ],
)
def test_an_option_with_a_command_is_refused_before_nvcc_runs(
    tmp_path: Path, option: object
) -> None:
    marker = tmp_path / "PWNED"
    program = _program(tmp_path)
    args = option(marker)  # type: ignore[operator]
    done = run_sassview("check", program, "--compiler", "nvcc", *args)
    assert_clean_error(done, "nvcc would hand", "to a shell")
    assert not marker.exists()


@pytest.mark.parametrize("form", ["command", "arguments"])
def test_a_compile_database_command_never_runs_what_it_plants(tmp_path: Path, form: str) -> None:
    marker = tmp_path / "PWNED"
    program = _program(tmp_path)
    words = ["nvcc", f"-DX={_planted(marker)}", "-Xptxas", f"-v;touch {marker}2", "-c", "whole.cu"]
    entry: dict[str, object] = {"directory": str(tmp_path), "file": "whole.cu"}
    if form == "command":
        entry["command"] = " ".join(f"'{w}'" for w in words)
    else:
        entry["arguments"] = words
    (tmp_path / "compile_commands.json").write_text(json.dumps([entry]))
    done = run_sassview("check", program)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "error: nvcc would hand" in done.stderr  # after the note naming the database
    assert not marker.exists() and not Path(f"{marker}2").exists()


def test_an_unbalanced_quote_in_a_compile_database_is_one_message(tmp_path: Path) -> None:
    program = _program(tmp_path)
    entry = {"directory": str(tmp_path), "file": "whole.cu", "command": "nvcc -DX='1 -c whole.cu"}
    (tmp_path / "compile_commands.json").write_text(json.dumps([entry]))
    done = run_sassview("check", program)
    assert_clean_error(done, "compile_commands.json", "cannot be split into words")


def test_a_sweep_macro_value_never_runs_what_it_plants(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    program = _program(tmp_path)
    done = run_sassview("sweep", program, "--compiler", "nvcc", "-p", f"X={_planted(marker)},2")
    assert "nvcc would hand" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not marker.exists()


def test_a_kernel_py_define_never_runs_what_it_plants(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    _program(tmp_path)
    (tmp_path / "kernel.py").write_text(
        "import sassview as sv\n"
        f"sv.cuda_file('whole.cu', defines=[{'X=' + _planted(marker)!r}], compiler='nvcc')\n"
    )
    done = run_sassview("check", tmp_path / "kernel.py")
    assert "nvcc would hand" in done.stderr
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert not marker.exists()


def test_nvrtc_takes_the_same_define_as_data(tmp_path: Path) -> None:
    """The refusal is nvcc's alone: NVRTC runs no shell, and the value is only a macro."""
    marker = tmp_path / "PWNED"
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(int* p) { p[0] = 1; }\n")
    done = run_sassview("check", kernel, "--compiler", "nvrtc", "-D", f"X={_planted(marker)}")
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


def test_a_host_compiler_the_checkout_brings_is_never_run(tmp_path: Path) -> None:
    """A compile_commands.json naming a script of the project as -ccbin: sassview would run it
    (`--version`, then nvcc would). It is named as not honoured; g++ from PATH compiles."""
    marker = tmp_path / "PWNED"
    program = _program(tmp_path)
    script = tmp_path / "tools" / "g++"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec g++ "$@"\n')
    script.chmod(0o755)
    build = tmp_path / "build"
    build.mkdir()
    entry = {
        "directory": str(build),
        "file": str(program),
        "arguments": ["nvcc", "-ccbin", "../tools/g++", "-c", str(program)],
    }
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    done = run_sassview("check", program, "--compiler", "nvcc")
    assert done.returncode == 0, done.stderr
    assert "not honoured: -ccbin ../tools/g++ (a program inside the project" in done.stderr
    assert not marker.exists()
