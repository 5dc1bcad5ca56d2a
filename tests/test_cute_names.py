"""CuTe DSL kernels: short names (frontends/cute_names.py) and narrow-access hints that name
the true cause (analyses/cute_width_hints.py), on recorded compiles (tests/data/cute) and live
ones of tests/data/frontends/cute_elementwise.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_sassview
from cute_data import recorded

from sassview.analyses import cute_width_hints
from sassview.build import build_program
from sassview.frontends.cute_names import _static_tile, names_json
from sassview.inspection import Inspection, inspect_program

ROOT = Path(__file__).parents[1]
ELEMENTWISE = ROOT / "tests" / "data" / "frontends" / "cute_elementwise.py"


def narrow_notes(insp: Inspection) -> list[str]:
    kinds = ("narrow-access", "merge-candidate")
    return [a.hint for a in insp.annotations if a.kind in kinds]


# --- names --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "run", "short"),
    [
        ("cute_elementwise", "sm_90a-1", "elementwise_add_kernel<f32, 16x128, bits=32>"),
        ("cute_elementwise", "sm_90a-2", "elementwise_add_kernel<f32, 16x128, bits=128>"),
        ("cute_arch_kernels", "sm_90a-1", "ArchCopy.kernel<f32, 512>"),  # a kernel method
        ("cute_arch_kernels", "sm_100a-3", "ArchCopy.kernel<f32, 1024>"),
    ],
)
def test_a_kernel_reads_as_its_function_and_specialization(case: str, run: str, short: str) -> None:
    insp = recorded(case, run)
    assert insp.kernel.display_name == short
    assert insp.kernel.name.startswith("kernel_cutlass_") and len(insp.kernel.name) > 100
    assert insp.kernel.matches(short.split("<")[0])  # -k elementwise_add_kernel


def test_names_that_read_alike_are_numbered() -> None:
    recorded_names = {"cutlass_k_a": "k<f32>", "cutlass_k_b": "k<f32>", "cutlass_h": "h"}
    symbols = ["kernel_cutlass_k_a_0", "kernel_cutlass_k_b_1", "kernel_other_2"]
    assert json.loads(names_json(recorded_names, symbols)) == {
        "kernel_cutlass_k_a_0": "k<f32>",
        "kernel_cutlass_k_b_1": "k<f32>#2",
    }


@pytest.mark.parametrize(
    ("tensor", "tile"),
    [
        ("tensor<ptr<f32, gmem, align<16>> o ((16,128),(?,?)):((?{div=4},1),(?,128))>", "16x128"),
        ("tensor<ptr<f32, gmem, align<16>> o 4096:1>", "4096"),
        ("tensor<ptr<f32, gmem, align<16>> o (4096):(1)>", "4096"),
        ("tensor<ptr<bf16, gmem, align<16>> o (?{div=128},?{div=128}):(?{i64},1)>", ""),
        ("tensor<ptr<f32, gmem> o ((?,4),(?,?)):((1,?),(?,?))>", ""),
    ],
)
def test_the_tile_is_the_static_leading_mode(tensor: str, tile: str) -> None:
    assert _static_tile(tensor) == tile


@pytest.mark.compile
def test_check_prints_the_short_name_and_the_symbol_once() -> None:
    pytest.importorskip("cutlass.cute")
    done = run_sassview("check", ELEMENTWISE, "-k", "elementwise_add_kernel")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\nelementwise_add_kernel<f32, 16x128, bits=32>\n" in out
    symbols = [line for line in out.splitlines() if line.startswith("  symbol ")]
    assert len(symbols) == 2  # one a kernel, in its header
    assert all(s.split()[1].startswith("kernel_cutlass_elementwise_add_kernel_") for s in symbols)
    assert out.count("kernel_cutlass_") == 2  # nowhere else
    as_json = json.loads(run_sassview("check", ELEMENTWISE, "--json").stdout)
    kernels = [k for p in as_json["programs"] for k in p["kernels"]]
    assert [k["display_name"] for k in kernels] == [
        "elementwise_add_kernel<f32, 16x128, bits=32>",
        "elementwise_add_kernel<f32, 16x128, bits=128>",
    ]
    assert all(k["name"] == s.split()[1] for k, s in zip(kernels, symbols, strict=True))


@pytest.mark.compile
def test_a_tiled_mma_kernel_names_its_atom() -> None:
    pytest.importorskip("cutlass.cute")
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import compile_all, plan

    kf = import_kernel_file(ROOT / "examples" / "cute" / "hopper_gemm.py")
    (art,) = compile_all(kf, jobs=plan(kf)[:1], parallel=False)
    (kernel,) = build_program(art).kernels
    assert kernel.display_name == "gemm_kernel<bf16, mma 64x128x16>"


# --- hints --------------------------------------------------------------------------------


def test_a_per_element_predicate_is_named_as_the_cause() -> None:
    before = recorded("cute_elementwise", "sm_90a-1")  # 32-bit atom, one flag per element
    hints = narrow_notes(before)
    assert len(hints) == 5  # 2 narrow-access, 3 merge-candidate
    assert set(hints) == {cute_width_hints.PREDICATE_HINT}
    assert "thrCrd[(0, None), None, None]" in hints[0] and "num_bits_per_copy=128" in hints[0]
    assert "`sassview try` cannot apply it" in hints[0]
    # The hint applied (a 128-bit atom, a flag per atom): 128-bit accesses, no note left.
    after = recorded("cute_elementwise", "sm_90a-2")
    assert narrow_notes(after) == []
    opcodes = after.kernel.opcode_counts()
    assert (opcodes.get("LDG"), opcodes.get("STG")) == (8, 4)
    widths = {i.modifiers for i in after.kernel.instructions if i.opcode in ("LDG", "STG")}
    assert widths == {("E", "128")}
    assert before.kernel.opcode_counts()["LDG"] == 32


@pytest.mark.compile
def test_the_old_hint_applied_alone_does_not_compile() -> None:
    """The 128-bit atom the hint used to name, with the per-element predicate kept: the DSL
    refuses it, as the predicate hint says."""
    pytest.importorskip("cutlass.cute")
    from sassview.errors import CompileError
    from sassview.frontends.cute import compile_cute
    from sassview.frontends.discover import import_kernel_file

    kf = import_kernel_file(ELEMENTWISE)
    host = kf.declarations[0].target
    with pytest.raises(CompileError, match="expects pred to have compatible shape"):
        compile_cute(host, *kf.declarations[0].args, arch="sm_90a", bits=128, predicate="element")
    assert "expects pred to have compatible shape" in cute_width_hints.PREDICATE_HINT


@pytest.mark.compile
def test_an_unpredicated_narrow_copy_names_the_atom() -> None:
    pytest.importorskip("cutlass.cute")
    from sassview.frontends.cute import compile_cute
    from sassview.frontends.discover import import_kernel_file

    kf = import_kernel_file(ELEMENTWISE)
    decl = kf.declarations[0]
    art = compile_cute(decl.target, *decl.args, arch="sm_90a", bits=32, predicate="none")
    (insp,) = inspect_program(build_program(art))
    hints = narrow_notes(insp)
    # Each run of four 32-bit copies is one merge-candidate note that owns its loads' narrow
    # notes (one finding per cause); every one names the atom.
    assert hints and set(hints) == {cute_width_hints.MERGE_HINT}
    assert cute_width_hints.PREDICATE_HINT not in hints
