"""KernelUnderTest: each assertion passing and failing on kernels whose answer is known, the
messages it fails with, and the pieces under it (opcode patterns, listings, normalisation).

Kernels come from examples/ (compiled live, marked `compile`) and from the recorded corpus
(tests/corpus, read from the kept cubins: no compiler needed).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

import pytest
from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

import sassview
from sassview.errors import InputError
from sassview.ir import Kernel, OperandKind
from sassview.report.listing import labels, sass_listing
from sassview.testing import (
    CountMismatch,
    FeatureMismatch,
    KernelUnderTest,
    SpillsFound,
    TooManyRegisters,
    UnrollMismatch,
    WidthMismatch,
    normalize_ptx,
    normalize_sass,
)
from sassview.testing.failures import compare
from sassview.testing.filecheck import FileCheckFailure
from sassview.testing.loader import choose, missing_frontend
from sassview.testing.patterns import compile_opcode_pattern

EXAMPLES = Path(__file__).parents[1] / "examples"
compiled = pytest.mark.compile


@functools.cache
def kernel(
    path: str, name: str | None = None, arch: str = "sm_90a", options: tuple[str, ...] = ()
) -> KernelUnderTest:
    (insp,) = sassview.inspect(EXAMPLES / path, arch=arch, kernel=name, options=options)
    return KernelUnderTest(insp)


@functools.cache
def recorded(case: str, arch: str = "sm_90a", name: str | None = None) -> KernelUnderTest:
    (program,) = sassview.load(CORPUS / case / arch / "kernel.cubin")
    insp = sassview.analyze(program, name)
    return KernelUnderTest(insp[0])


def failure(check: object) -> str:
    with pytest.raises(AssertionError) as caught:
        check()  # type: ignore[operator]
    return str(caught.value)


# -- opcode patterns and comparisons ------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "mnemonic", "hit"),
    [
        ("LDG.E.128*", "LDG.E.128", True),
        ("LDG.E.128*", "LDG.E.128.CONSTANT", True),
        ("LDG.E.128*", "LDG.E.64", False),
        ("LDG.E", "LDG.E.128", False),  # a dotted pattern is the whole mnemonic
        ("LDG", "LDG.E.128.CONSTANT", True),  # a bare opcode takes any modifiers
        ("LDG", "LDGSTS.E", False),
        ("HGMMA.64x*", "HGMMA.64x128x16.F32.BF16", True),
        ("HGMMA.64x*", "HGMMA.128x64x16.F32", False),
        ("*.128*", "STS.128", True),
        ("HMMA.1688?F32*", "HMMA.1688.F32.TF32", True),
    ],
)
def test_opcode_patterns(pattern: str, mnemonic: str, hit: bool) -> None:
    assert bool(compile_opcode_pattern(pattern).fullmatch(mnemonic)) is hit


def test_comparisons_read_like_the_question() -> None:
    assert compare(4) == ("==", 4)
    assert compare(">=128") == (">=", 128)
    assert compare("< 3") == ("<", 3)
    with pytest.raises(ValueError, match="comparison"):
        compare(">=lots")
    with pytest.raises(ValueError, match="opcode pattern"):
        compile_opcode_pattern("LDG E")


# -- listings and normalisation (recorded cubins) ------------------------------------------


def test_listing_is_nvdisasm_like_with_labels_and_source_lines() -> None:
    k = recorded("tiled")
    text = k.sass_text()
    assert text.startswith("_Z9tiled_sumPKfPfi:  // tiled_sum(")
    assert re.search(
        r"^        /\*[0-9a-f]{4}\*/  LDG\.E\S* R\d+, .* ;  // tiled\.cu:5$", text, re.M
    )
    targets = labels(k.kernel)
    assert targets and all(name.startswith(".L_x_") for name in targets.values())
    for name in targets.values():
        assert f"\n{name}:\n" in text and f"`({name})" in text
    assert len(text.splitlines()) == 1 + len(k.kernel.instructions) + len(targets)


def test_listing_without_addresses_or_sources() -> None:
    text = sass_listing(recorded("vecadd").kernel, addresses=False, source=False)
    assert "/*" not in text and "//" not in text.split("\n", 1)[1]


def test_normalized_listing_drops_addresses_padding_and_renames_registers() -> None:
    k = recorded("vecadd", name="add_f4")
    text = normalize_sass(k.kernel)
    assert "/*" not in text and "NOP" not in text
    assert text.splitlines()[-1] == "  EXIT ;"
    seen = re.findall(r"(?<![\w.])R(\d+)(?!\w)", text)
    firsts = list(dict.fromkeys(int(n) for n in seen))
    assert firsts == list(range(len(firsts)))  # R0, R1, R2 ... in order of first appearance


def _permuted(k: Kernel, perm: dict[int, int]) -> Kernel:
    """The same kernel with its R registers renamed by `perm` (what another allocation gives)."""

    def rename(text: str) -> str:
        return re.sub(r"(?<![\w.$])R(\d+)(?![\w$])", lambda m: f"R{perm[int(m.group(1))]}", text)

    instructions = tuple(
        ins._replace(
            operands=tuple(
                dataclasses.replace(op, text=rename(op.text))
                if op.kind is not OperandKind.LABEL
                else op
                for op in ins.operands
            )
        )
        for ins in k.instructions
    )
    return dataclasses.replace(k, instructions=instructions)


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_normalized_listing_ignores_register_allocation(rng: object) -> None:
    k = recorded("tiled").kernel
    order = list(range(256))
    rng.shuffle(order)  # type: ignore[attr-defined]
    perm = dict(zip(range(256), order, strict=True))
    assert normalize_sass(_permuted(k, perm)) == normalize_sass(k)


def test_normalized_ptx_renames_registers_and_labels_and_drops_noise() -> None:
    ptx = (CORPUS / "tiled" / "sm_90a" / "kernel.ptx").read_text()
    text = normalize_ptx(ptx)
    assert ".loc" not in text and "//" not in text and "\n\n" not in text
    assert "$L__BB" not in text and "$L__0" in text
    shifted = re.sub(r"%r(\d+)", lambda m: f"%r{int(m.group(1)) + 7}", ptx)
    assert normalize_ptx(shifted) == text


# -- choosing the kernel, frontends --------------------------------------------------------


def test_choose_says_which_kernels_there_are() -> None:
    (program,) = sassview.load(CORPUS / "vecadd" / "sm_90a" / "kernel.cubin")
    with pytest.raises(InputError, match="2 kernels match") as caught:
        choose([program], None, None, Path("vecadd.cu"))
    assert "add_f4" in caught.value.hint and "add_scalar" in caught.value.hint
    with pytest.raises(InputError, match="no kernel named 'nope'"):
        choose([program], "nope", None, Path("vecadd.cu"))
    assert choose([program], "add_f4", None, Path("v.cu"))[1].name == "add_f4"


def test_missing_frontend_is_found_behind_sassviews_error() -> None:
    try:
        try:
            raise ModuleNotFoundError("No module named 'triton'", name="triton")
        except ImportError:
            raise InputError("kernel.py: importing it failed", "pip install triton") from None
    except InputError as exc:
        assert missing_frontend(exc) == "triton"
    assert missing_frontend(ModuleNotFoundError("x", name="sassview.frontends.x")) is None


# -- assertions on compiled kernels ---------------------------------------------------------


@compiled
def test_vector_add_passes_what_it_should() -> None:
    k = kernel("vecadd.cu", "add_f4")
    k.assert_load_width(128, lines=7)
    k.assert_load_width(">=64")
    k.assert_store_width(128, lines=(8, 8))
    k.assert_count("LDG.E.128*", 2)
    k.assert_count("LDG.E.128*", ">=1", lines=range(6, 9))
    k.assert_no_spills()
    k.assert_max_registers(32)
    k.assert_does_not_use("local memory")
    k.assert_does_not_use("tensor_cores")
    assert k.count("FADD", lines=8) == 4 and k.count("FADD", lines=7) == 0


@compiled
def test_narrow_loads_fail_with_the_merge_candidate_as_near_miss() -> None:
    k = kernel("gather.cu", "sum4_scalar")
    message = failure(lambda: k.assert_load_width(128))
    assert isinstance(pytest.raises(WidthMismatch, k.assert_load_width, 128).value, AssertionError)
    assert message.startswith("sum4_scalar (sm_90a): 4 of 4 global loads in the kernel are not")
    assert "expected: 128-bit global loads (e.g. LDG.E.128)" in message
    assert "near miss: 4 x LDG.E.CONSTANT at offsets 0x0, 0x4, 0x8, 0xc from one base" in message
    assert "`__restrict__`" in message and "tl.multiple_of" in message
    assert "gather.cu:12  out[threadIdx.x] = p[0] + p[1] + p[2] + p[3];" in message
    assert message.count("  > /*") == 4


@compiled
def test_empty_scope_is_a_failure_not_a_pass() -> None:
    k = kernel("gather.cu", "sum4_scalar")
    with pytest.raises(WidthMismatch, match="no global loads on line 3"):
        k.assert_load_width(128, lines=3)


@compiled
def test_count_failure_shows_the_same_opcode_with_other_modifiers() -> None:
    k = kernel("vecadd.cu", "add_scalar", arch="sm_80")
    with pytest.raises(CountMismatch) as caught:
        k.assert_count("LDG.E.128*", 2)
    message = str(caught.value)
    assert "0 instructions match 'LDG.E.128*' in the kernel, expected 2" in message
    assert "near miss: same opcode, other modifiers: LDG.E x2" in message
    assert "vecadd.cu:14  if (i < n) c[i] = a[i] + b[i];" in message


@compiled
def test_unroll_by_four_with_its_loop_scope() -> None:
    k = kernel("tiled.cu")
    k.assert_unrolled(line=9, factor=4)
    k.assert_unrolled(line=9)
    loop = k.loop(line=9)
    k.assert_count("LDS", 4, loop=loop)
    k.assert_count("FADD", 4, loop=loop.index)
    message = failure(lambda: k.assert_unrolled(line=9, factor=8))
    asked = "(asked: #pragma unroll 4)"
    assert f"loop at line 9 is unrolled by 4, with a remainder loop {asked}" in message
    assert "expected: unrolled by 8" in message and "tiled.cu:9  for (int r = 0;" in message
    with pytest.raises(UnrollMismatch, match="no loop at line 5") as caught:
        k.assert_unrolled(line=5)
    assert "line 9: unrolled by 4" in str(caught.value)
    with pytest.raises(IndexError, match="no loop 7"):
        k.count("LDS", loop=7)


@compiled
def test_full_unroll_and_spills_under_a_register_cap() -> None:
    k = kernel("pressure.cu", options=("-maxrregcount=32",))
    k.assert_unrolled(line=6, factor="full")
    k.assert_unrolled(line=6, factor=64)
    with pytest.raises(LookupError, match="fully unrolled"):
        k.loop(line=6)
    k.assert_uses("spills")
    message = failure(k.assert_no_spills)
    assert isinstance(pytest.raises(SpillsFound, k.assert_no_spills).value, AssertionError)
    assert "accumulate (sm_90a) spills registers:" in message
    assert "-maxrregcount=32 caused it" in message and "STL [R1+" in message
    with pytest.raises(TooManyRegisters, match="uses 32 registers per thread, more than 16"):
        k.assert_max_registers(16)
    kernel("pressure.cu").assert_no_spills()


@compiled
def test_features_and_the_architecture_hint() -> None:
    kernel("wgmma.cu").assert_uses("wgmma")
    kernel("wgmma.cu").assert_uses("HGMMA.64x8x16*")
    kernel("wgmma.cu").assert_uses("tensor cores")
    kernel("tiled.cu").assert_uses("__syncthreads")
    kernel("tiled.cu").assert_uses("shared memory")
    message = failure(lambda: kernel("vecadd.cu", "add_f4", arch="sm_80").assert_uses("wgmma"))
    assert "wgmma exists only on sm_90a; this kernel was compiled for sm_80" in message
    with pytest.raises(FeatureMismatch, match=r"add_f4 \(sm_90a\) uses LDG.E.128\*"):
        kernel("vecadd.cu", "add_f4").assert_does_not_use("LDG.E.128*")


@compiled
def test_serialized_wgmma_is_a_feature_with_ptxas_words() -> None:
    source = Path(__file__).parent / "data" / "analyses" / "sources" / "wgmma_pipeline.cu"

    def pipeline(name: str) -> KernelUnderTest:
        (insp,) = sassview.inspect(source, arch="sm_90a", kernel=name)
        return KernelUnderTest(insp)

    pipeline("waits_each_step").assert_does_not_use("serialized wgmma")
    serialized = pipeline("waits_after_loop")
    serialized.assert_uses("serialized_wgmma")
    message = failure(lambda: serialized.assert_does_not_use("serialized wgmma"))
    assert "C7515 Potential Performance Loss: wgmma.mma_async instructions are serial" in message
    assert "scale-d = 0" in message  # the hint of the wgmma-serialized finding


@compiled
def test_filecheck_points_at_the_check_written_here() -> None:
    k = kernel("vecadd.cu", "add_f4")
    k.filecheck("CHECK: LDG.E.128\nCHECK-NOT: STL\nCHECK: EXIT")
    k.filecheck("CHECK: ld.global.nc.v4.f32", on="ptx")
    with pytest.raises(FileCheckFailure) as caught:
        k.filecheck("""
            CHECK: LDG.E.128
            CHECK-NEXT: STG.E.128
        """)
    message = str(caught.value)
    here = Path(__file__).name
    assert re.search(rf"{here}:\d+:25: error: CHECK-NEXT: is not on the line after", message)
    assert "add_f4.sm_90a.sass:" in message
    with pytest.raises(ValueError, match="on='cubin'"):
        k.filecheck("CHECK: x", on="cubin")


@compiled
def test_ptx_filecheck_reports_ptx_line_numbers() -> None:
    k = kernel("vecadd.cu", "add_f4")
    start = k.kernel.ptx.start_line if k.kernel.ptx else 0
    with pytest.raises(FileCheckFailure) as caught:
        k.filecheck("CHECK: ld.global.f64", on="ptx")
    assert f"add_f4.sm_90a.ptx:{start}:1: note: scanning from here" in str(caught.value)


def test_snapshot_needs_the_fixture() -> None:
    with pytest.raises(RuntimeError, match="sassview_kernel pytest fixture"):
        recorded("vecadd").snapshot()


def test_a_mismatch_with_many_accesses_lists_them_one_a_line_and_says_how_many_more() -> None:
    """29 distinct accesses used to be one line of 29 items; a few still share the line."""
    from sassview.testing.failures import FOUND_LINES, compose

    many = [f"/*{0x10 * i:04x}*/ LDG.E: 32 sectors, min 4 (stride)" for i in range(29)]
    lines = compose("k: 29 of 29 global accesses are not proven coalesced", found=many).split("\n")
    assert lines[1] == "  found:    29 distinct"
    assert lines[2 : 2 + FOUND_LINES] == [f"    {m}" for m in many[:FOUND_LINES]]
    assert lines[2 + FOUND_LINES] == f"    ... and {29 - FOUND_LINES} more"
    assert compose("k", found=many[:2]).split("\n")[1] == f"  found:    {many[0]}; {many[1]}"


@compiled
def test_a_long_run_of_offsets_reads_as_its_ends_and_step() -> None:
    """The naive matmul's line 10 has three runs of narrow loads (28 in all) from one base; the
    near miss names its own run, 16 loads at 0x0..0x3c, not 28 loads with 16 offsets listed."""
    (insp,) = sassview.inspect(EXAMPLES / "matmul" / "01_naive.cu", arch="sm_90a")
    message = failure(lambda: KernelUnderTest(insp).assert_load_width(128))
    (near,) = [line for line in message.splitlines() if "near miss:" in line]
    assert near.startswith(
        "  near miss: 16 x LDG.E.CONSTANT at offsets 0x0, 0x4, ..., 0x3c (every 0x4) from one base"
    ), near
    assert "0x8" not in near.split("from one base")[0]
