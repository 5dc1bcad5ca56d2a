"""Triton's cache as input: a recorded cache (no Triton needed) and caches filled live."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from conftest import run_sassview

import sassview
from sassview.errors import InputError
from sassview.frontends.discover import directory_kind
from sassview.frontends.triton_cache import artifacts_of, find_kernels

pytest_plugins = ["pytester"]
DATA = Path(__file__).parent / "data"
RECORDED = DATA / "triton_cache"
KERNELS = DATA / "frontends" / "triton_cache_kernels.py"


def lines_of(function: str) -> range:
    """The lines of `def function` in the kernels' source, up to the next blank line."""
    text = KERNELS.read_text().splitlines()
    start = next(i for i, t in enumerate(text, 1) if t.startswith(f"def {function}("))
    end = next((i for i, t in enumerate(text[start:], start + 1) if not t.strip()), len(text) + 1)
    return range(start, end)


def maker() -> ModuleType:
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    spec = importlib.util.spec_from_file_location(
        "make_triton_cache", DATA / "make_triton_cache.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the recorded cache: no Triton, no source file needed -----------------------------------


def test_a_cache_lists_each_kernel_with_its_metadata() -> None:
    kernels = find_kernels(RECORDED)
    assert [k.name for k in kernels] == ["add", "matmul", "matmul", "triton_poi_fused_add_mul_0"]
    for k in kernels:  # what the listing says is what Triton's metadata says
        meta = json.loads((k.directory / f"{k.name}.json").read_text())
        assert (k.num_warps, k.num_stages, k.shared) == (
            meta["num_warps"], meta["num_stages"], meta["shared"],
        )  # fmt: skip
        assert k.cc == meta["target"]["arch"] and k.triton_version == meta["triton_version"]
        assert k.source_path is not None and k.source_path.endswith("triton_cache_kernels.py")
    assert [k.arch for k in kernels] == ["sm_90a", "sm_90a", "sm_80", "sm_90a"]
    assert [k.inductor for k in kernels] == [False, False, False, True]  # by its name


def test_check_inspects_every_kernel_with_lines_in_its_source(tmp_path: Path) -> None:
    """A copied cache (the recorded source path need not exist): every program labelled by
    entry and options, the sm_90a matmul on wgmma and the sm_80 one on mma.sync, SASS lines
    inside each kernel's own function."""
    cache = tmp_path / "cache"
    shutil.copytree(RECORDED, cache)
    done = run_sassview("check", cache, "--json")
    assert done.returncode == 0, done.stderr
    assert "4 kernels from Triton's cache, 1 made by torch.compile" in done.stderr
    programs = json.loads(done.stdout)["programs"]
    labels = [p["label"] for p in programs]
    assert labels[1].startswith("matmul [entry=7U5TR6KS, num_warps=8, num_stages=3")
    assert labels[3].endswith("from=torch.compile]")
    units = {p["arch"]: json.dumps(p["kernels"]) for p in programs if "matmul" in p["label"]}
    assert "HGMMA" in json.dumps(units["sm_90a"]) and "HMMA" in json.dumps(units["sm_80"])
    for program in sassview.load(cache):
        (kernel,) = program.kernels
        own = set(lines_of(kernel.name))
        memory = {i.source.line for i in kernel.instructions if i.opcode in ("LDG", "STG")}
        assert memory and memory <= own, (kernel.name, sorted(memory - own))
        # Triton compiled these without sassview's inline-asm fix (llvm/llvm-project#177718):
        # an instruction ptxas hoisted may carry a line up to a 4-line asm block past the end.
        lines = {
            i.source.line
            for i in kernel.instructions
            if i.source is not None and i.source.file.endswith(KERNELS.name)
        }
        assert lines <= own | set(range(max(own), max(own) + 4)), (kernel.name, sorted(lines))


def test_one_entry_and_a_kernel_by_entry_are_chosen(tmp_path: Path) -> None:
    (entry,) = [k.directory for k in find_kernels(RECORDED) if k.arch == "sm_80"]
    assert [p.artifacts.label for p in sassview.load(entry)] == [find_kernels(entry)[0].label]
    done = run_sassview("check", RECORDED, "-k", entry.name[:8], "--json")
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert program["arch"] == "sm_80"
    missing = run_sassview("check", RECORDED, "-k", "softmax")
    assert missing.returncode == 2
    assert "no kernel 'softmax'" in missing.stderr and "add, matmul" in missing.stderr


def test_a_plain_directory_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no kernels here")
    assert directory_kind(tmp_path) is None
    done = run_sassview("check", tmp_path)
    assert done.returncode == 2 and "is a directory, not a file" in done.stderr
    with pytest.raises(InputError, match="no compiled Triton kernels"):
        find_kernels(tmp_path)


def test_export_and_the_tui_read_a_cache(tmp_path: Path) -> None:
    from sassview.tui.loader import Target, load

    done = run_sassview("export", RECORDED, "-o", tmp_path / "out", "-k", "add")
    assert done.returncode == 0, done.stderr
    (written,) = done.stdout.split()
    assert "add" in Path(written).name and "LDG.E.128" in Path(written).read_text()
    loaded = load(Target(path=RECORDED))
    assert [i.kernel.name for i in loaded.inspections] == [k.name for k in find_kernels(RECORDED)]


def test_the_pytest_fixture_takes_a_cache_entry(pytester: pytest.Pytester) -> None:
    (entry,) = [k.directory for k in find_kernels(RECORDED) if k.name == "add"]
    pytester.makepyfile(
        textwrap.dedent(f"""
        def test_entry(sassview_kernel):
            k = sassview_kernel({str(entry)!r})
            k.assert_load_width(128)

        def test_by_variant(sassview_kernel):
            k = sassview_kernel({str(RECORDED)!r}, kernel="matmul", variant={{"num_warps": 8}})
            assert k.arch == "sm_90a"
        """)
    )
    result = pytester.runpytest_inprocess(
        "-q", "-p", "no:cacheprovider", "-p", "no:textual-snapshot"
    )
    result.assert_outcomes(passed=2)


# --- caches filled live --------------------------------------------------------------------


@pytest.mark.compile
def test_a_live_cache_from_torch_compiles_directory_shows_its_source(tmp_path: Path) -> None:
    """Kernels written under a torchinductor_* directory (where Inductor writes its code) are
    marked as torch.compile's, and their source text comes with them."""
    source = tmp_path / "torchinductor_user" / "ab" / "cabc123.py"
    source.parent.mkdir(parents=True)
    shutil.copy(KERNELS, source)
    maker().fill(tmp_path / "cache", source)
    kernels = find_kernels(tmp_path / "cache")
    assert len(kernels) == 4 and all(k.inductor for k in kernels)
    art = artifacts_of(kernels[0])
    assert art.source_path == str(source) and art.source_text == source.read_text()


@pytest.mark.compile
def test_a_caches_hint_knob_is_said_untried_and_why(tmp_path: Path) -> None:
    """A cached kernel's hint that names a knob (divisibility=, for an unaligned launch's
    32-bit accesses) reads untried, with why: the cache holds no kernel.py to compile the
    variant from, so `check --try` cannot try it either (steer/standing.py, issue #33 item 4)."""
    maker().fill_unaligned(tmp_path / "cache")
    for extra in ((), ("--try",)):
        done = run_sassview("check", tmp_path / "cache", "--json", *extra)
        assert done.returncode == 0, done.stderr
        (kernel,) = [k for p in json.loads(done.stdout)["programs"] for k in p["kernels"]]
        (narrow,) = [a for a in kernel["annotations"] if a["kind"] == "narrow-access"]
        knob = "divisibility=['x_ptr', 'y_ptr', 'out_ptr', 'n']"
        assert narrow["standing"] == {
            "state": "untried", "knob": knob, "fix": True,
            "outcome": "a Triton cache keeps no kernel.py to compile it from: declare the "
            "kernel with sv.triton to try it",
        }  # fmt: skip
        assert narrow["hint"].startswith("Triton widens")
        assert f"[untried: {knob} (a Triton cache keeps no kernel.py" in narrow["hint"]
    text = run_sassview("check", tmp_path / "cache").stdout
    assert f"[untried: {knob} (a Triton cache" in text  # the text view says the same


@pytest.mark.compile
def test_a_kernel_dump_directory_is_read_without_metadata(tmp_path: Path) -> None:
    """TRITON_KERNEL_DUMP writes the stages and the cubin but no metadata json: num_warps and
    the target come from the TTGIR, shared memory stays unknown."""
    maker().fill(tmp_path / "cache", dump=tmp_path / "dump")
    dumped = find_kernels(tmp_path / "dump")
    cached = find_kernels(tmp_path / "cache")
    assert sorted((k.name, k.arch, k.num_warps) for k in dumped) == sorted(
        (k.name, k.arch, k.num_warps) for k in cached
    )
    assert all(k.shared is None and "json" not in k.files for k in dumped)
    (program, *_) = sassview.load(tmp_path / "dump")
    assert program.artifacts.stages["ttgir"].startswith("#")


def test_sassview_dir_opens_a_cache_and_only_a_cache(tmp_path: Path) -> None:
    """`sassview DIR` is `sassview tui DIR` for a Triton cache; another folder stays unknown."""
    from sassview.views.cli_tui import _openable

    assert _openable(str(RECORDED))
    assert not _openable(str(tmp_path))


def test_labels_name_each_configs_constexprs_read_from_its_ttir(tmp_path: Path) -> None:
    """Triton's metadata keeps warps and stages, not the tile sizes an autotune config set:
    they are read back from the TTIR's shapes at the source's `tl.arange` / `tl.zeros` calls
    (named where the kernel's file is readable; else the dot's tile)."""
    from sassview.frontends.triton_cache import find_kernels

    copied = tmp_path / "cache"
    shutil.copytree(Path(__file__).parent / "data" / "triton_cache", copied)
    labels = [k.label for k in find_kernels(copied)]  # the recorded source is not here
    assert labels[1].endswith("num_stages=3, dot=128x128x64]")
    assert labels[2].endswith("num_stages=2, dot=64x64x32]")
    source = Path(__file__).parent / "data" / "frontends" / "triton_cache_kernels.py"
    for ir in copied.glob("*/*"):
        if ir.suffix in (".ttir", ".ttgir", ".source", ".llir"):
            text = ir.read_text()
            ir.write_text(re.sub(r'"/[^"]*triton_cache_kernels\.py"', f'"{source}"', text))
    labels = [k.label for k in find_kernels(copied)]
    assert labels == [
        "add [entry=MRWS5W2Q, num_warps=4, num_stages=3, BLOCK=1024]",
        "matmul [entry=7U5TR6KS, num_warps=8, num_stages=3, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64]",
        "matmul [entry=SVG2V5NR, num_warps=4, num_stages=2, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32]",
        "triton_poi_fused_add_mul_0 [entry=PLC4ERUY, num_warps=2, num_stages=3, XBLOCK=256,"
        " from=torch.compile]",
    ]  # the values make_triton_cache.py compiled with
