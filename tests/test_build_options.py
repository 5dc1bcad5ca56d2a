"""Every view builds a CUDA file as `check` does: one set of build options on every command, the
project's compile_commands.json found above the file, and the same in kernel.py's
`sv.cuda_file` and the pytest fixture.

The file is a header of a small project that compiles only with its build's flags: `-I include`
to find its own config header, `-DTILE` (the header refuses to guess) and `-std=c++17`.
Before, only `check` read the database: every other view failed on it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import pytest
from conftest import assert_clean_error
from conftest import run_sassview as sassview

from sassview.views.cli import cli

CONFIG = """\
#pragma once
#ifndef TILE
#error "TILE is set by the build (-DTILE=...)"
#endif
"""
SCALE = """\
#pragma once
#include "tiles/config.cuh"

__global__ void tiled_scale(float* data, int n) {
    int i = blockIdx.x * TILE + threadIdx.x;
    if constexpr (TILE > 32) {
        if (i < n) data[i] *= 2.0f;
    } else {
        if (i < n) data[i] += 1.0f;
    }
}
"""
BUILD_OPTIONS = (
    "-D", "-I", "--option", "--compiler", "--host-compiler", "--instantiate", "--include-before",
    "--included-by", "--build-dir", "--no-compile-commands",
)  # fmt: skip
# A template kernel nothing instantiates: it compiles only with --instantiate.
TEMPLATE = """\
template <int N>
__global__ void scale(float* x) { x[threadIdx.x] *= N; }
"""


@pytest.fixture(scope="module")
def header(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """include/tiles/scale.cuh of a project whose build/compile_commands.json compiles
    src/tiled.cu (which includes it) with -I include -DTILE=16 -std=c++17 for sm_80. Device
    code only: NVRTC compiles it, no host compiler needed. One copy for the module: its
    compiles are cached across the tests."""
    root = tmp_path_factory.mktemp("views") / "proj"
    (root / "include" / "tiles").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "build").mkdir()
    (root / "include" / "tiles" / "config.cuh").write_text(CONFIG)
    (root / "include" / "tiles" / "scale.cuh").write_text(SCALE)
    (root / "src" / "tiled.cu").write_text('#include "tiles/scale.cuh"\n')
    command = "nvcc -I../include -DTILE=16 -std=c++17 -arch=sm_80 -c ../src/tiled.cu -o t.o"
    entry = {"directory": str(root / "build"), "command": command, "file": "../src/tiled.cu"}
    (root / "build" / "compile_commands.json").write_text(json.dumps([entry]))
    return root / "include" / "tiles" / "scale.cuh"


def test_every_view_takes_the_same_build_options() -> None:
    for name in ("check", "tui", "export", "sweep", "try", "diff"):
        command = cli.get_command(click.Context(cli), name)
        assert command is not None
        flags = {f for p in command.params if isinstance(p, click.Option) for f in p.opts}
        assert set(BUILD_OPTIONS) <= flags, f"{name} lacks {set(BUILD_OPTIONS) - flags}"


@pytest.mark.compile
def test_sweep_builds_a_header_with_its_projects_flags(header: Path) -> None:
    done = sassview("sweep", header, "--json")
    assert done.returncode == 0, done.stderr
    assert "note: build flags from" in done.stderr and "(as included by" in done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [(r["arch"], r["kernel"].split("(")[0]) for r in rows] == [("sm_80", "tiled_scale")]


@pytest.mark.compile
def test_try_builds_a_header_with_its_projects_flags(header: Path) -> None:
    done = sassview("try", header, "--json")
    assert done.returncode == 0, done.stderr
    assert "note: build flags from" in done.stderr
    assert "trials" in json.loads(done.stdout)


@pytest.mark.compile
def test_diff_builds_both_sides_with_the_projects_flags(header: Path) -> None:
    done = sassview("diff", header, f"{header}?-maxrregcount=16", "--json")
    assert done.returncode in (0, 1), done.stderr
    compared = json.loads(done.stdout)
    assert compared["a"] == f"{header}@sm_80"  # the build's target, as check defaults to it
    assert compared["kernel"] == "_Z11tiled_scalePfi"


@pytest.mark.compile
def test_export_builds_a_header_with_its_projects_flags(header: Path, tmp_path: Path) -> None:
    done = sassview("export", header, "-o", tmp_path / "out", "-f", "json")
    assert done.returncode == 0, done.stderr
    (written,) = done.stdout.split()
    assert "sm_80" in Path(written).name and "tiled_scale" in Path(written).name


@pytest.mark.compile
def test_the_tui_loader_builds_a_header_with_its_projects_flags(header: Path) -> None:
    from sassview.tui.loader import Target, load

    loaded = load(Target(header))
    assert [(i.kernel.arch, i.kernel.display_name) for i in loaded.inspections] == [
        ("sm_80", "tiled_scale(float*, int)")
    ]
    assert any("build flags from" in n for n in loaded.notes)


@pytest.mark.compile
def test_no_compile_commands_leaves_the_database_out(header: Path) -> None:
    done = sassview("sweep", header, "--no-compile-commands")
    assert_clean_error(done, 'cannot open source file "tiles/config.cuh"')


@pytest.mark.compile
def test_the_pytest_fixture_builds_a_header_with_its_projects_flags(header: Path) -> None:
    from sassview.testing.loader import KernelCache, Target

    inspection, _ = KernelCache().get(Target(header, "sm_90a"))
    assert inspection.kernel.display_name == "tiled_scale(float*, int)"
    assert "-DTILE=16" in inspection.program.artifacts.options


@pytest.mark.compile
def test_a_kernel_files_cuda_file_takes_its_projects_flags(header: Path) -> None:
    kernel_py = header.parents[2] / "kernel.py"
    kernel_py.write_text(
        "import sassview as sv\n"
        'sv.cuda_file("include/tiles/scale.cuh", arch="sm_90a")\n'
        'sv.cuda_file("include/tiles/scale.cuh", arch="sm_90a", compile_commands=False)\n'
    )
    from sassview.api import load_kernel_file
    from sassview.errors import CompileError

    with pytest.raises(CompileError, match="tiles/config.cuh"):  # the second, without them
        load_kernel_file(kernel_py, parallel=False)
    kernel_py.write_text(
        "import sassview as sv\n"
        'sv.cuda_file("include/tiles/scale.cuh", arch="sm_90a", compile_commands="build")\n'
    )
    _, (program,) = load_kernel_file(kernel_py, parallel=False)
    assert "-DTILE=16" in program.artifacts.options


@pytest.mark.compile
def test_sweep_and_export_instantiate_a_template_kernel(tmp_path: Path) -> None:
    source = tmp_path / "tmpl.cu"
    source.write_text(TEMPLATE)
    done = sassview("sweep", source, "--instantiate", "scale<4>", "--json")
    assert done.returncode == 0, done.stderr
    assert [r["kernel"] for r in json.loads(done.stdout)["rows"]] == ["scale<4>(float*)"]
    out = sassview("export", source, "--instantiate", "scale<4>", "-o", tmp_path / "o")
    assert out.returncode == 0, out.stderr
    assert os.listdir(tmp_path / "o")


def test_build_options_given_for_a_kernel_file_are_said_to_be_unused(tmp_path: Path) -> None:
    kernel_py = tmp_path / "kernel.py"
    kernel_py.write_text("import sassview as sv\n")
    done = sassview("check", kernel_py, "-D", "TILE=8")
    assert "note: build options apply to CUDA C++ files; kernel.py: a kernel.py declares" in (
        done.stderr
    )


def test_build_keywords_are_the_records_fields() -> None:
    """BuildKeywords (the keyword spelling of the API, sv.cuda_file, the fixture and its
    marker) names every field of BuildOptions but the one resolve_build sets, and each has
    its reader: a field added to the record and not to the keywords fails here."""
    import dataclasses

    from sassview.frontends import build_options
    from sassview.testing.plugin import _setting_names

    fields = {f.name for f in dataclasses.fields(build_options.BuildOptions)} - {"kernels_in"}
    assert set(build_options.BuildKeywords.__annotations__) == fields
    assert set(build_options._READERS) == fields
    assert set(_setting_names()) == fields | {"arch", "path", "kernel", "variant"}


def test_the_command_line_takes_every_build_keyword_by_its_name() -> None:
    """Each build option of the command line is a build keyword by the same name, but -p and
    --no-compile-commands, which give `compile_commands` between them; so a keyword added to
    the record and not to the command line fails here."""
    from sassview.frontends import build_options
    from sassview.views import cli_build

    given = set(cli_build._NAMES) - set(cli_build._COMMAND_LINE_ONLY)
    assert given == set(build_options.BuildKeywords.__annotations__) - {"compile_commands"}


def test_the_command_lines_record_is_read_as_the_keywords_are() -> None:
    from sassview.api import BuildOptions
    from sassview.views.cli_build import _record

    given = {
        **{name: () for name in ("defines", "include_dirs", "options", "instantiate")},
        **{name: None for name in ("host_compiler", "included_by", "toolchain", "build_dir")},
        "compiler": "nvcc",
        "include_before": (Path("ctx.h"),),
        "no_compile_commands": False,
    }
    built = _record({**given, "defines": ("W=4",), "options": ("=-O3",), "build_dir": Path("b")})
    assert built == BuildOptions(
        defines=("W=4",),
        options=("-O3",),
        compiler="nvcc",
        include_before=(Path("ctx.h"),),
        compile_commands=Path("b"),
    )
    assert _record({**given, "no_compile_commands": True}).compile_commands is False
    assert _record(given).compile_commands is True


def test_a_declarations_settings_read_back_as_the_build_they_were_made_of() -> None:
    """declaration_settings and declared_build are each other's inverse (paths relative to the
    kernel file's directory), with the settings in the order sv.cuda_file always kept."""
    from sassview.api import BuildOptions
    from sassview.frontends.build_options import declaration_settings, declared_build

    build = BuildOptions(
        defines=("W=4",),
        include_dirs=(Path("inc"), Path("/abs/inc")),
        options=("-G",),
        compiler="nvrtc",
        host_compiler="g++-12",
        instantiate=("tile<128, float>",),
        include_before=(Path("ctx.h"),),
        compile_commands=Path("build"),
        included_by=Path("main.cu"),
        toolchain="12.9",
    )
    settings = declaration_settings(build)
    assert list(settings) == [
        "defines", "include_dirs", "options", "file", "compiler", "instantiate",
        "include_before", "host_compiler", "included_by", "compile_commands", "toolchain",
    ]  # fmt: skip
    assert settings["include_dirs"] == ("inc", "/abs/inc")
    assert settings["compile_commands"] == "build"
    base = Path("/work/k")
    assert declared_build(base, settings, ["X"], ["-O3"]) == BuildOptions(
        defines=("X",),
        include_dirs=(base / "inc", Path("/abs/inc")),
        options=("-O3",),
        compiler="nvrtc",
        host_compiler="g++-12",
        instantiate=("tile<128, float>",),
        include_before=(base / "ctx.h",),
        compile_commands=base / "build",
        included_by=base / "main.cu",
        toolchain="12.9",
    )
    plain = declaration_settings(BuildOptions(compile_commands=False))
    assert declared_build(base, plain, [], []) == BuildOptions(compile_commands=False)


def test_build_keywords_are_read_into_the_record_in_one_place() -> None:
    from sassview.api import BuildOptions
    from sassview.errors import InputError

    given = BuildOptions.of(
        defines={"W": 4, "FAST": None},
        include_dirs=["inc", Path("more")],
        options="-lineinfo",  # one option given bare is that option, not its letters
        compile_commands="build",
        included_by="main.cu",
    )
    assert given == BuildOptions(
        defines=("W=4", "FAST"),
        include_dirs=(Path("inc"), Path("more")),
        options=("-lineinfo",),
        compile_commands=Path("build"),
        included_by=Path("main.cu"),
    )
    # over a record: the keywords win, the rest is the record's
    base = BuildOptions(defines=("A",), toolchain="12.9")
    assert BuildOptions.of(base, options=["-G"]) == BuildOptions(
        ("A",), (), ("-G",), toolchain="12.9"
    )
    with pytest.raises(TypeError, match="kernels_in: not a build option"):
        BuildOptions.of(kernels_in=["a.cu"])
    with pytest.raises(InputError, match="'clang' is not a compiler"):
        BuildOptions.of(compiler="clang")


def test_the_api_takes_a_record_or_its_keywords_alike(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """sassview.compile(..., defines=[...]) and (..., build=BuildOptions(...)) hand the
    compiler the same record; given neither, the file as it is (no compile_commands.json)."""
    import sassview
    from sassview import build as build_module
    from sassview.api import BuildOptions
    from sassview.frontends import cuda

    seen: list[BuildOptions] = []
    monkeypatch.setattr(cuda, "compile_cuda", lambda *a, build, **k: seen.append(build))
    monkeypatch.setattr(build_module, "build_program", lambda artifacts, where: artifacts)
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k() {}\n")
    sassview.compile(path=source, defines=["W=4"], include_dirs=["inc"], compiler="nvrtc")
    sassview.compile(
        path=source,
        build=BuildOptions(defines=("W=4",), include_dirs=(Path("inc"),), compiler="nvrtc"),
    )
    sassview.compile(path=source, build=BuildOptions(defines=("X",)), defines=["W=4"])
    assert (
        seen[0]
        == seen[1]
        == BuildOptions(
            defines=("W=4",), include_dirs=(Path("inc"),), compiler="nvrtc", compile_commands=False
        )
    )
    assert seen[2].defines == ("W=4",)  # the keyword over the record's field


@pytest.mark.compile
def test_the_api_builds_a_header_as_check_does_when_given_a_build(header: Path) -> None:
    import sassview
    from sassview.api import BuildOptions
    from sassview.errors import CompileError

    (program,) = sassview.load(header, arch="sm_90a", build=BuildOptions())
    assert "-DTILE=16" in program.artifacts.options
    with pytest.raises(CompileError, match="tiles/config.cuh"):  # as it is: no project flags
        sassview.load(header, arch="sm_90a")
