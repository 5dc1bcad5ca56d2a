"""The loop census of a recorded labelled cubin read alone, as `sassview check X.cubin` reads
it: no source compiled, no rolled build, only the cubin's SASS, its embedded PTX and its line
tables (analyses/unroll.py, `_by_line`). Where the cubin does not decide a factor the claim is
"factor unknown", never another number: each loop below was claimed confidently wrong
before (issue #31). benchmarks/loop_bare_cubin_accuracy.py counts every labelled loop."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from helpers.loop_marks import source_marks

import sassview
from sassview.analyses.loops.entry import LoopEntry, claim
from sassview.inspection import inspect_kernel
from sassview.ir import Program

DATA = Path(__file__).parent / "data" / "loops"
ARCHS = ("sm_80", "sm_90a")


@cache
def program(stem: str, arch: str) -> Program:
    (p,) = sassview.load(DATA / f"{stem}.{arch}.cubin")
    return p


def entry(stem: str, arch: str, kernel: str, mark: str) -> LoopEntry:
    """The one entry at a `// @mark` line (the recorded line tables name another tree: by
    file name)."""
    want = source_marks(DATA, (f"{stem}.cu", f"{stem}.cuh"))[mark]
    p = program(stem, arch)
    (e,) = [
        e
        for e in inspect_kernel(p, p.kernel(kernel)).facts("unroll")["entries"]
        if e.file and (Path(e.file).name, e.line) == want
    ]
    return e


# (corpus, kernel, mark, what was claimed before, the hand label)
WAS_WRONG = (
    # the remainder loop's one iteration holds two expf: it read x2, the main loop's ratio 4
    ("census", "bodies", "bd_softmax", "x8 for x4+rem"),
    # two accumulators' adds: the remainder read x6, the main loop x24
    ("census", "two_accums", "ta_k", "x24 for x4+rem"),
    # a float2 row copy: the remainder's one LDG.64 read as its 2 words (and 2 rows)
    ("copies", "swap_f2_rows", "sw_r", "x16 for x4+rem"),
    # a wmma K loop around an 8-copy fragment loop: the remainder read x8
    ("shapes2", "wmma_grid", "wg_k", "x32 for x4+rem"),
)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize(("stem", "kernel", "mark", "was"), WAS_WRONG)
def test_a_remainder_read_above_one_iteration_leaves_the_factor_unknown(
    stem: str, kernel: str, mark: str, was: str, arch: str
) -> None:
    e = entry(stem, arch, kernel, mark)
    assert (e.kind, e.factor, e.remainder, e.decided_by) == ("rolled", None, True, "count"), was
    # the claim says why, and what would settle it
    assert e.unknown_why and e.unknown_why.startswith("remainder's lines x"), e.unknown_why
    assert f"unroll factor unknown ({e.unknown_why})" in claim(e)
    assert e.unknown_why.endswith("the source would settle it")


@pytest.mark.parametrize("arch", ARCHS)
def test_an_unroll_by_2_whose_loads_are_its_copies_is_not_read_as_rolled(arch: str) -> None:
    """`#pragma unroll 2` over a body with an `if`: ptxas gives one side's FMUL the other's
    line, so the math reads x1; the two LDG at [R2.64] and [R2.64+0x4] are its two copies
    (or a stencil's neighbours: the lines cannot say)."""
    e = entry("census", arch, "bodies", "bd_if")
    assert (e.kind, e.factor) == ("rolled", None), "was: not unrolled"
    assert e.unknown_why is not None and e.unknown_why.startswith("a line at two offsets")


@pytest.mark.parametrize("arch", ARCHS)
def test_a_factor_with_no_remainder_beside_it_says_it_is_unknown_and_why(arch: str) -> None:
    """copies.cu's grid-stride int4 copy, one 16-byte copy a trip: its lines read x4 (words), the
    same as an unroll by 4 would; with no remainder loop the cubin cannot tell them apart."""
    e = entry("copies", arch, "copy_i4_stride", "cv_i4")
    assert (e.kind, e.factor, e.remainder) == ("rolled", None, False)
    assert e.unknown_why == (
        "lines x4 a trip and no remainder: x4 or 4 of a pattern; the source would settle it"
    )


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize(
    ("stem", "kernel", "mark", "factor", "remainder"),
    [
        # a remainder of one iteration (one copy of each line) gives the ratio its number
        ("census", "pragmas", "pr_4", 4, True),
        # a main loop x4 by NVVM, x4 by ptxas; ptxas' own remainder beside NVVM's one-trip one
        ("census", "exits", "ex_continue", 16, True),
        # one expf pair a trip, loads of two arrays at one line: one base register each
        ("copies", "two_exp", "te_i", 1, False),
        ("copies", "dot_two", "dt_i", 1, False),
    ],
)
def test_what_the_cubin_decides_still_stands(
    stem: str, kernel: str, mark: str, factor: int, remainder: bool, arch: str
) -> None:
    e = entry(stem, arch, kernel, mark)
    assert (e.kind, e.factor, e.remainder) == ("rolled", factor, remainder)
    assert e.unknown_why is None


@pytest.mark.parametrize("arch", ARCHS)
def test_a_bare_cubin_counts_the_tensor_ops_of_a_trip(arch: str) -> None:
    """The wmma K loop: 4 k-steps a trip, 8 HMMA each (its label's `tensor_ops`)."""
    assert entry("shapes2", arch, "wmma_grid", "wg_k").tensor_ops == 32
