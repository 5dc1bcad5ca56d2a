"""A project's build flags from its compile_commands.json: found above the file or with -p, the
entry's -I/-D/-std/-arch honoured, a header taking the flags of a file that includes it, and
every flag sassview does not use named."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS
from conftest import run_sassview as sassview

from sassview.frontends.compdb import build_flags, find_database

PROJECT = CORPUS / "sources" / "cmake_project"
FLAGS = (
    "-DTILE=64 -std=c++17 --expt-relaxed-constexpr -Xcompiler=-fPIC -O3 "
    "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
    "-gencode arch=compute_90a,code=sm_90a -arch=native"
)


def project(tmp: Path, flags: str = FLAGS, build: str = "build") -> Path:
    """The project copied to `tmp`, with a database as CMake writes one (absolute paths)."""
    root = tmp / "proj"
    shutil.copytree(PROJECT, root)
    (root / build).mkdir(parents=True)
    up = os.path.relpath(root, root / build)  # paths relative to the build directory
    source = f"{up}/src/tiled.cu"
    command = f"/usr/bin/nvcc -I{up}/include {flags} -x cu -c {source} -o tiled.o"
    entry = {"directory": str(root / build), "command": command, "file": source}
    (root / build / "compile_commands.json").write_text(json.dumps([entry]))
    return root


def test_flags_of_the_files_entry_are_read_as_nvcc_reads_them(tmp_path: Path) -> None:
    root = project(tmp_path)
    source = root / "src" / "tiled.cu"
    database = find_database(source)
    assert database == root / "build" / "compile_commands.json"
    flags = build_flags(source, database)
    assert flags is not None and flags.entry == source
    assert flags.include_dirs == (root / "include",)
    assert flags.defines == ("TILE=64",)
    assert flags.options == ("-std=c++17", "--expt-relaxed-constexpr")
    assert flags.archs == ("sm_80", "sm_90a")
    assert flags.ignored == ("-Xcompiler=-fPIC", "-O3", "-x cu", "-c", "-o tiled.o")
    assert flags.not_honoured == ("-arch=native",)


def test_header_takes_the_flags_of_a_file_including_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    header = root / "include" / "tiles" / "config.cuh"  # reached through scale.cuh
    flags = build_flags(header, root / "build" / "compile_commands.json")
    assert flags is not None and flags.entry == root / "src" / "tiled.cu"
    assert flags.defines == ("TILE=64",)


def test_file_the_database_does_not_cover_gets_no_flags(tmp_path: Path) -> None:
    root = project(tmp_path)
    stray = root / "src" / "other.cu"
    stray.write_text("__global__ void k() {}\n")
    assert build_flags(stray, root / "build" / "compile_commands.json") is None


@pytest.mark.compile
def test_check_uses_the_build_flags_and_names_what_it_does_not_honour(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = sassview("check", root / "src" / "tiled.cu", "--json")
    assert done.returncode == 0, done.stderr
    assert f"note: build flags from {root / 'build' / 'compile_commands.json'}" in done.stderr
    assert "not honoured: -arch=native" in done.stderr
    assert "ignored, host or build only: -Xcompiler=-fPIC -O3" in done.stderr
    programs = json.loads(done.stdout)["programs"]
    assert [p["arch"] for p in programs] == ["sm_80", "sm_90a"]
    assert {k["name"] for p in programs for k in p["kernels"]} == {"_Z11tiled_scalePfi"}
    assert "-DTILE=64" in programs[0]["options"] and "-std=c++17" in programs[0]["options"]


@pytest.mark.compile
def test_header_is_checked_with_its_includers_flags_and_p_names_the_build_dir(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, flags="-DTILE=16 -std=c++17 -arch=sm_90a", build="out/release")
    header = root / "include" / "tiles" / "scale.cuh"
    alone = sassview("check", header)
    assert alone.returncode == 2 and 'cannot open source file "tiles/config.cuh"' in alone.stderr
    assert "-p BUILD_DIR" in alone.stderr
    done = sassview("check", header, "-p", root / "out" / "release")
    assert done.returncode == 0, done.stderr
    assert f"(as included by {root / 'src' / 'tiled.cu'})" in done.stderr
    assert "tiled_scale(float*, int)" in done.stdout
    missing = sassview("check", header, "-p", tmp_path / "nowhere")
    assert missing.returncode == 2 and "no compile_commands.json there" in missing.stderr
