"""A CMake project with no build directory: sassview configures it (never builds it) and takes
each file's compile command, as a user runs `sassview check src/app.cu` inside the project.

tests/data/cmake_project is a project of our own: a library target with a public include
directory, definitions, C++20 (a concept), --expt-relaxed-constexpr and an architecture; an
app target in a subdirectory. Without its flags softmax.cu does not compile (TILE_DIM, the
concept, the include directory), so a passing check proves the flags came from CMake.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from conftest import assert_clean_error
from conftest import run_sassview as sassview
from helpers.kernels import CMAKE_PROJECT

from sassview.frontends import cmake_project
from sassview.frontends.build_options import BuildOptions, resolve_build

PROJECT = CMAKE_PROJECT
SOFTMAX = PROJECT / "src" / "softmax.cu"


def copy_project(tmp_path: Path) -> Path:
    root = tmp_path / "tiles"
    shutil.copytree(PROJECT, root)
    return root


def without_wheel(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """cmake only from `path` (PATH), as on a machine without the cmake wheel."""
    monkeypatch.setattr(cmake_project, "_wheel_cmake", lambda: None)
    monkeypatch.delenv(cmake_project.CMAKE_ENV, raising=False)
    monkeypatch.setenv("PATH", path)


def test_the_project_root_is_the_outermost_cmakelists_calling_project(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert cmake_project.find_project(tmp_path / "plain.cu") is None
    outer = tmp_path / "repo"
    (outer / "sub" / "src").mkdir(parents=True)
    (outer / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(o)\n")
    (outer / "sub" / "CMakeLists.txt").write_text("add_library(x src/a.cu)\n")
    source = outer / "sub" / "src" / "a.cu"
    source.write_text("__global__ void k() {}\n")
    assert cmake_project.find_project(source) == outer
    (tmp_path / "CMakeLists.txt").write_text("project(beyond_the_repository_top)\n")
    (outer / ".git").mkdir()  # the repository's top: nothing above it is looked at
    assert cmake_project.find_project(source) == outer


@pytest.mark.compile  # cmake's configure runs nvcc on its test programs
def test_configure_runs_once_and_again_when_a_cmake_file_changes(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    source = root / "src" / "transpose.cu"
    first = resolve_build(source, BuildOptions())
    assert "configured now, nothing built" in first.notes[0], first.notes
    assert set(first.options.defines) >= {"TILE_DIM=32", "TILES_ROWS_PER_BLOCK=4"}
    assert first.options.include_dirs == (root / "include",)
    assert {"-std=c++20", "--expt-relaxed-constexpr", "--use_fast_math"} <= set(
        first.options.options
    )
    assert first.archs == ("sm_80",)
    again = resolve_build(source, BuildOptions())
    assert "configured before" in again.notes[0] and again.options == first.options
    lists = root / "CMakeLists.txt"
    lists.write_text(lists.read_text().replace("TILE_DIM=32", "TILE_DIM=16"))
    changed = resolve_build(source, BuildOptions())
    assert "configured now" in changed.notes[0]
    assert "TILE_DIM=16" in changed.options.defines
    nothing = resolve_build(source, BuildOptions(compile_commands=False))
    assert nothing.notes == () and nothing.options.defines == ()


@pytest.mark.compile  # cmake's configure runs nvcc on its test programs
def test_a_file_no_target_compiles_is_said_and_gets_no_flags(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    stray = root / "src" / "stray.cu"
    stray.write_text("__global__ void k() {}\n")
    found = resolve_build(stray, BuildOptions())
    assert found.options.defines == () and found.flags is None
    assert any("no target of it compiles stray.cu" in n for n in found.notes), found.notes


@pytest.mark.compile  # cmake's configure runs nvcc on its test programs
def test_cmake_on_path_is_used_without_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = cmake_project._wheel_cmake()
    if wheel is None:
        pytest.skip("the cmake wheel stands in for a system cmake here: pip install cmake")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cmake").symlink_to(wheel)  # cmake finds its modules through the link
    without_wheel(monkeypatch, f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    found = resolve_build(copy_project(tmp_path) / "src" / "transpose.cu", BuildOptions())
    assert f"cmake: {bin_dir / 'cmake'} (PATH)" in found.notes[0], found.notes
    assert "TILE_DIM=32" in found.options.defines


def test_no_cmake_at_all_is_a_note_naming_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    without_wheel(monkeypatch, str(empty))
    found = resolve_build(copy_project(tmp_path) / "src" / "transpose.cu", BuildOptions())
    assert found.options.defines == ()
    assert len(found.notes) == 1 and "no cmake was found" in found.notes[0]
    assert "pip install cmake" in found.notes[0]


def test_cmake_named_by_the_environment_must_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cmake_project.CMAKE_ENV, "/nowhere/cmake")
    with pytest.raises(cmake_project.ToolchainError, match="SASSVIEW_CMAKE=/nowhere/cmake"):
        cmake_project.find_cmake()


@pytest.mark.compile  # cmake's configure runs nvcc on its test programs
def test_a_failing_configure_is_one_error_in_cmakes_own_words(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text(
        textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.18)
        project(ext LANGUAGES CXX CUDA)
        message(FATAL_ERROR "Torch not found: set Torch_DIR")
        add_library(ext k.cu)
        """)
    )
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[0] = 1.f; }\n")
    done = sassview("check", tmp_path / "k.cu")
    assert_clean_error(done, "cmake could not configure", "Torch not found: set Torch_DIR")
    assert "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON" in done.stderr  # the hint: configure it yourself
    # and none of the project's flags is wanted: the file compiles without them
    assert sassview("check", tmp_path / "k.cu", "--no-compile-commands").returncode == 0


def test_the_response_files_cmake_writes_are_read_in(tmp_path: Path) -> None:
    (tmp_path / "inc.rsp").write_text('-I"/a b/include" -I/c\n')
    argv = ["nvcc", "-DX=1", "--options-file", "inc.rsp", "-c", "k.cu"]
    assert cmake_project.expand_options_files(argv, tmp_path) == [
        "nvcc", "-DX=1", "-I/a b/include", "-I/c", "-c", "k.cu",
    ]  # fmt: skip
    kept = ["nvcc", "--options-file", "missing.rsp"]
    assert cmake_project.expand_options_files(kept, tmp_path) == kept


@pytest.mark.compile
def test_check_compiles_a_cmake_projects_file_with_no_flags() -> None:
    done = sassview("-v", "check", SOFTMAX, "-k", "softmax", "--json")
    assert done.returncode == 0, done.stderr
    assert f"note: build flags from the CMake project {PROJECT}" in done.stderr
    assert "flags from sassview-compile_commands.json (softmax.cu's command)" in done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert program["arch"] == "sm_80"  # the target's CUDA_ARCHITECTURES
    assert {"-DTILE_DIM=32", "-std=c++20", "--expt-relaxed-constexpr"} <= set(program["options"])
    names = [k["display_name"] for k in program["kernels"]]
    assert names == ["ops::softmax(float const*, float*, int)"]  # `-k softmax`: the namespace's


@pytest.mark.compile
def test_the_tui_loader_the_fixture_and_export_take_the_projects_flags(tmp_path: Path) -> None:
    from sassview.tui.loader import Target, load

    loaded = load(Target(SOFTMAX, kernel="ops::softmax"))
    assert [i.kernel.display_name for i in loaded.inspections] == [
        "ops::softmax(float const*, float*, int)"
    ]
    assert any("CMake project" in n for n in loaded.notes)
    from sassview.testing.loader import KernelCache
    from sassview.testing.loader import Target as FixtureTarget

    (program,) = KernelCache().load(FixtureTarget(SOFTMAX, "sm_80"))  # sassview_kernel's
    assert {"-DTILE_DIM=32", "-std=c++20"} <= set(program.artifacts.options)
    done = sassview("export", SOFTMAX, "-o", tmp_path / "out", "-k", "softmax")
    assert done.returncode == 0, done.stderr
    assert "CMake project" in done.stderr
    (page,) = (tmp_path / "out").rglob("*.md")
    assert "ops::softmax" in page.read_text()


def test_cmakes_error_is_said_in_its_own_words_at_its_line() -> None:
    said = cmake_project._cmake_error_text(
        "-- Detecting CUDA compile features - done\n"
        "CMake Error at CMakeLists.txt:12 (target_compile_features):\n"
        '  target_compile_features The compiler feature "cuda_std_20" is not known\n\n'
        "Call Stack (most recent call first):\n  CMakeLists.txt:12 (x)\n"
    )
    assert said == (
        'CMakeLists.txt:12: target_compile_features The compiler feature "cuda_std_20" is not known'
    )
    assert (
        cmake_project._cmake_error_text("CMake Error: no such dir\n") == "CMake Error: no such dir"
    )
