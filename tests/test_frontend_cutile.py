"""The cuTile Python frontend: the vector add and the tiled matmul of
data/frontends/cutile_kernels.py, compiled live with tileiras (no GPU; skipped without cuda-tile)
and read from the cubins recorded in data/frontends/cutile (no cuTile needed; re-record with
`python tests/data/frontends/cutile/record.py`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import sassview
from sassview.errors import InputError
from sassview.frontends import registry
from sassview.frontends.cutile import gpu_code_for
from sassview.frontends.registry import words
from sassview.ir import Artifacts, Kernel, Program

DATA = Path(__file__).parent / "data" / "frontends"
KERNELS = DATA / "cutile_kernels.py"
RECORDED = DATA / "cutile"
TEXT = KERNELS.read_text()
HAVE_CUTILE = registry.frontends()["cutile"].version() is not None  # cuda-tile and tileiras
live = pytest.mark.skipif(not HAVE_CUTILE, reason="pip install cuda-tile nvidia-cuda-tileiras")


def line_of(text: str) -> int:
    """The kernel file's line that holds `text` (once)."""
    (line,) = [n for n, src in enumerate(TEXT.splitlines(), 1) if text in src]
    return line


def by_line(kernel: Kernel, *opcodes: str) -> Counter[tuple[int, str]]:
    """(line in the kernel file, opcode) -> count, for the instructions of those opcodes."""
    return Counter(
        (i.source.line, i.opcode)
        for i in kernel.instructions
        if i.opcode in opcodes and i.source is not None and i.source.file.endswith(KERNELS.name)
    )


def recorded(name: str) -> Program:
    return sassview.from_artifacts(
        Artifacts(
            kind="cutile",
            arch="sm_100a",
            source_path=str(KERNELS),
            source_text=TEXT,
            cubin=(RECORDED / f"{name}.sm_100a.cubin").read_bytes(),
        )
    )


@pytest.fixture(scope="module")
def compiled() -> dict[str, Program]:
    if not HAVE_CUTILE:
        pytest.skip("pip install cuda-tile nvidia-cuda-tileiras")
    return {p.artifacts.label + " " + p.artifacts.arch: p for p in sassview.load(KERNELS)}


def _vector_add(program: Program) -> None:
    """Each ct.load and the ct.store of the vector add are global accesses at their own lines;
    the narrow-access note speaks cuTile (ArrayConstraint), not C++."""
    (kernel,) = program.kernels
    assert kernel.name == "vector_add"
    lines = by_line(kernel, "LDG", "STG")
    assert {line for line, _ in lines} == {
        line_of("x = ct.load"),
        line_of("y = ct.load"),
        line_of("ct.store(c"),
    }
    assert lines[(line_of("ct.store(c"), "STG")] > 0
    (inspection,) = sassview.analyze(program, "vector_add")
    (note,) = [a for a in inspection.annotations if a.kind == "narrow-access"]
    assert note.hint == words("cutile").narrow and "shape_divisible_by" in note.hint


def _matmul(program: Program) -> None:
    """ct.mma is tcgen05 on sm_100a (UTCHMMA), at the ct.mma line; its loads at theirs."""
    (kernel,) = program.kernels
    lines = by_line(kernel, "UTCHMMA", "LDG", "STG")
    assert lines[(line_of("ct.mma("), "UTCHMMA")] > 0
    assert {line for line, op in lines if op == "UTCHMMA"} == {line_of("ct.mma(")}
    assert lines[(line_of("a = ct.load"), "LDG")] > 0 and lines[(line_of("b = ct.load"), "LDG")]
    (inspection,) = sassview.analyze(program, "matmul")
    assert any(a.kind == "tensor-core" for a in inspection.annotations)


@pytest.mark.compile
@live
def test_live_vector_add_for_each_arch_and_variant(compiled: dict[str, Program]) -> None:
    assert sorted(compiled) == [
        "matmul sm_100a",
        "vector_add [TILE=1024] sm_100a",
        "vector_add [TILE=1024] sm_90a",
        "vector_add [TILE=256] sm_100a",
        "vector_add [TILE=256] sm_90a",
    ]
    for label in ("vector_add [TILE=256] sm_100a", "vector_add [TILE=1024] sm_90a"):
        program = compiled[label]
        assert program.artifacts.kind == "cutile"
        _vector_add(program)
    # TILE=1024 is four times the elements per thread of TILE=256, for the same 128 threads
    small, large = (compiled[f"vector_add [TILE={t}] sm_100a"].kernels[0] for t in (256, 1024))
    assert len(by_line(large, "LDG")) == len(by_line(small, "LDG"))
    assert sum(by_line(large, "LDG").values()) == 4 * sum(by_line(small, "LDG").values())


@pytest.mark.compile
@live
def test_live_matmul_uses_tcgen05_and_keeps_its_ir_stages(compiled: dict[str, Program]) -> None:
    program = compiled["matmul sm_100a"]
    _matmul(program)
    art = program.artifacts
    assert art.options[0] == "gpu_code=sm_100"
    assert "tile_load" in art.stages["cutile_ir"] and "mma" in art.stages["cutile_ir"]
    assert "load_view_tko" in art.stages["tileir"] and "mmaf" in art.stages["tileir"]
    assert art.ptx is not None and ".nv_intermediate_source_section" not in art.ptx
    assert program.ptx is not None and program.ptx.functions  # the embedded PTX parses


def test_recorded_vector_add() -> None:
    _vector_add(recorded("vector_add"))


def test_recorded_matmul() -> None:
    _matmul(recorded("matmul"))


def test_the_tile_ir_tileiras_appends_to_the_embedded_ptx_is_cut_off() -> None:
    from sassview.binary.elf import read_cubin, without_tile_ir

    cubin = (RECORDED / "vector_add.sm_100a.cubin").read_bytes()
    assert b".nv_intermediate_source_section" in cubin
    ptx = read_cubin(cubin).debug_ptx
    assert ".nv_intermediate_source_section" not in ptx and ".entry vector_add" in ptx
    appended = ptx + ".nv_intermediate_source_section {\n.code_block {\n}\n}\n"
    assert without_tile_ir(appended) == ptx == without_tile_ir(ptx)


@pytest.mark.parametrize(
    ("arch", "code"), [("sm_100a", "sm_100"), ("sm_90a", "sm_90"), ("sm_120", "sm_120")]
)
def test_gpu_code_is_the_bare_number(arch: str, code: str) -> None:
    assert gpu_code_for(arch) == code


def test_an_arch_tileiras_does_not_know_is_refused() -> None:
    with pytest.raises(InputError) as info:
        gpu_code_for("sm_75")
    assert "tileiras cannot compile for sm_75" in info.value.message
    assert "sm_80" in info.value.hint and "sm_121" in info.value.hint


@live
def test_an_undeclared_cutile_kernel_is_listed_with_its_declaration(tmp_path: Path) -> None:
    from sassview.frontends.discover import import_kernel_file

    path = tmp_path / "kernel.py"
    path.write_text(
        "import cuda.tile as ct\n\n\n"
        "@ct.kernel\n"
        "def scale(a, b, TILE: ct.Constant[int]):\n"
        "    ct.store(b, index=(ct.bid(0),), tile=ct.load(a, index=(ct.bid(0),), shape=(TILE,)))\n"
    )
    (found,) = import_kernel_file(path).undeclared
    assert (found.name, found.kind, found.line) == ("scale", "cutile", 4)
    assert found.hint == (
        'sv.cutile(scale, {"a": <ArrayConstraint>, "b": <ArrayConstraint>, "TILE": <value>},'
        ' arch="sm_100a")'
    )


@live
def test_a_variant_that_names_nothing_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(TEXT.replace('variants={"TILE"', 'variants={"TYLE"'))
    with pytest.raises(InputError) as info:
        sassview.load(path, arch="sm_100a")
    assert "variant 'TYLE' is neither a parameter nor a hint" in info.value.message
    assert "TILE" in info.value.hint and "occupancy" in info.value.hint


def test_a_spill_is_tried_with_a_lower_occupancy_hint() -> None:
    from sassview.declare import Declaration
    from sassview.frontends.specs.cutile import spill_knob

    decl = Declaration("cutile", "k", None, ("sm_100a",), {"hints": {"occupancy": 2}})
    assert spill_knob(decl, {}) is not None and spill_knob(decl, {}).knob == "occupancy=1"  # type: ignore[union-attr]
    assert spill_knob(decl, {"occupancy": 1}) is None
    unset = Declaration("cutile", "k", None, ("sm_100a",), {"hints": {}})
    assert spill_knob(unset, {}).variant == {"occupancy": 1}  # type: ignore[union-attr]


def test_labels_of_two_declarations_of_one_kernel_are_short() -> None:
    """Two cuTile declarations of one kernel told apart by an ArrayConstraint: the label named
    the constraint's ~300-character repr per parameter (~1,500 in all); now its dtype and rank,
    or `#n` where those do not tell them apart."""
    pytest.importorskip("cuda.tile")
    import cuda.tile as ct
    from cuda.tile.compilation import ArrayConstraint

    from sassview.frontends.declaration import Declaration, KernelFile
    from sassview.frontends.jobs import Job

    def array(dtype: object, **extra: object) -> object:
        return ArrayConstraint(
            dtype, 2, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
            may_alias_internally=False, stride_constant=(None, 1), **extra,
        )  # fmt: skip

    def decl(a: object, b: object) -> Declaration:
        return Declaration("cutile", "mm", None, ("sm_100a",), {"parameters": {"A": a, "B": b}})

    f16, bf16 = array(ct.float16), array(ct.bfloat16)
    kf = KernelFile(Path("k.py"), "", (decl(f16, f16), decl(bf16, bf16)), ())
    labels = [Job(i, "sm_100a", {}).label(kf.declarations[i], kf) for i in range(2)]
    assert labels == ["mm(A=float16[2d], B=float16[2d])", "mm(A=bfloat16[2d], B=bfloat16[2d])"]
    aligned = array(ct.float16, shape_divisible_by=(1, 64))
    kf = KernelFile(Path("k.py"), "", (decl(f16, f16), decl(aligned, f16)), ())
    assert [Job(i, "sm_100a", {}).label(kf.declarations[i], kf) for i in range(2)] == [
        "mm#1", "mm#2",
    ]  # fmt: skip
