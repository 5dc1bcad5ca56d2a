"""Triton Gluon through the Triton path: the blocked-layout vector add of
data/frontends/gluon_kernels.py, compiled live (no GPU; skipped without Gluon) and read from the
cubin and stages recorded in data/frontends/gluon (`python tests/data/frontends/gluon/record.py`).
The layout the kernel writes decides the access width, and shows in its stages."""

from __future__ import annotations

from pathlib import Path

import pytest

import sassview
from sassview.frontends import registry
from sassview.ir import Artifacts, Kernel, Program
from sassview.parse.stage_lines import rows_by_line

DATA = Path(__file__).parent / "data" / "frontends"
KERNELS = DATA / "gluon_kernels.py"
RECORDED = DATA / "gluon"
TEXT = KERNELS.read_text()
HAVE_GLUON = registry.frontends()["gluon"].version() is not None
live = pytest.mark.skipif(not HAVE_GLUON, reason="Triton with Gluon (3.5 on) is not installed")


def line_of(text: str) -> int:
    (line,) = [n for n, src in enumerate(TEXT.splitlines(), 1) if text in src]
    return line


def global_widths(kernel: Kernel) -> dict[int, set[str]]:
    """Kernel-file line -> the opcodes of its global loads and stores."""
    out: dict[int, set[str]] = {}
    for i in kernel.instructions:
        if i.opcode in ("LDG", "STG") and i.source is not None:
            out.setdefault(i.source.line, set()).add(i.mnemonic.split(" ")[0])
    return out


def _layout_in_stage(text: str, file: str, per_thread: int) -> None:
    """The blocked layout, as written, in the stage; the gl.load line's ops use it."""
    layout = f"#ttg.blocked<{{sizePerThread = [{per_thread}], threadsPerWarp = [32]"
    assert layout in text
    rows = rows_by_line(text, file)[line_of("x = gl.load")]
    assert any("#blocked" in text.splitlines()[r] for r in rows)


@pytest.fixture(scope="module")
def compiled() -> dict[str, Program]:
    if not HAVE_GLUON:
        pytest.skip("Triton with Gluon is not installed")
    return {p.artifacts.label: p for p in sassview.load(KERNELS)}


@pytest.mark.compile
@live
def test_a_gluon_kernel_is_declared_by_sv_triton_and_compiles_as_gluon(
    compiled: dict[str, Program],
) -> None:
    from sassview.frontends.discover import import_kernel_file

    (decl,) = import_kernel_file(KERNELS).declarations
    assert decl.kind == "gluon"
    assert sassview.gluon is sassview.triton
    assert sorted(compiled) == ["gluon_add [PER_THREAD=1]", "gluon_add [PER_THREAD=4]"]
    for program in compiled.values():
        assert program.artifacts.kind == "gluon"
        assert list(program.artifacts.stages) == ["glir", "ttgir", "llir", "metadata"]


@pytest.mark.compile
@live
def test_the_layout_decides_the_width_and_shows_in_the_stages(
    compiled: dict[str, Program],
) -> None:
    load = line_of("x = gl.load")
    for per_thread, width in ((1, "LDG.E"), (4, "LDG.E.128")):
        program = compiled[f"gluon_add [PER_THREAD={per_thread}]"]
        assert width in global_widths(program.kernels[0])[load]
        for stage in ("glir", "ttgir"):
            _layout_in_stage(program.artifacts.stages[stage], str(KERNELS), per_thread)


def test_recorded_gluon_kernel() -> None:
    program = sassview.from_artifacts(
        Artifacts(
            kind="gluon",
            arch="sm_90a",
            source_path=str(KERNELS),
            source_text=TEXT,
            cubin=(RECORDED / "gluon_add.sm_90a.cubin").read_bytes(),
        )
    )
    widths = global_widths(program.kernels[0])
    assert widths[line_of("x = gl.load")] == {"LDG.E.128"}
    assert widths[line_of("gl.store(")] == {"STG.E.128"}
    for stage in ("glir", "ttgir"):
        text = (RECORDED / f"gluon_add.sm_90a.{stage}").read_text()
        _layout_in_stage(text, "/src/gluon_kernels.py", 4)


@live
def test_an_undeclared_gluon_kernel_is_suggested_as_sv_triton(tmp_path: Path) -> None:
    from sassview.frontends.discover import import_kernel_file

    path = tmp_path / "kernel.py"
    path.write_text(TEXT.split("\n\nsv.triton(")[0] + "\n")
    (found,) = import_kernel_file(path).undeclared
    assert (found.name, found.kind) == ("gluon_add", "gluon")
    assert found.hint.startswith('sv.triton(gluon_add, signature={"x_ptr": "*?"')  # asked


def test_gluon_words_name_its_layouts() -> None:
    said = registry.words("gluon")
    assert said.narrow is not None and "BlockedLayout(size_per_thread" in said.narrow
    assert said.coalesce is not None and "order=" in said.coalesce
