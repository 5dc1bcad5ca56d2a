"""The loop census on kernels in the shapes of tutorial SGEMM code, tests/data/loops/tutor.cu
and tutor.cuh: tile loops that stop before a partial tile (`o + STRIDE <= BM`, STRIDE a
constexpr local of a file-wide `const int` and the template's parameters), trip counts sized
with a function-like macro (`constexpr int WIT = TT_DIV_UP(BM, WM);`), a header's fill
template called with the caller's constexpr in a double-buffered K loop's prologue and body,
and a prefetch under `if (t + 1 < tiles)` whose loops start at the thread's index (ptxas moves
code of the K loop's lines into the prefetch loop: its compare names it). No `#pragma
unroll`, `uint` induction variables, as tutorials write them. The copies are the trip counts,
and no rolled build is asked.

The listings were recorded by tests/data/loops/record_tutor.py (NVRTC, sm_80 and sm_90a);
the labels in labels_tutor.json were read from tutor.<arch>.sass.txt by hand. These tests
need nvdisasm only, but the one marked `compile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from helpers.tutor_corpus import ARCHS, ASKED, CORPUS

from sassview.analyses.loops import rolled


@pytest.fixture(autouse=True, scope="module")
def _recorded_builds() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", CORPUS.recorded_variant)
        yield


@pytest.mark.parametrize(("arch", "row"), CORPUS.label_params())
def test_each_label_holds(arch: str, row: dict[str, Any]) -> None:
    """One entry at the loop's line in its inline context, and it says what the SASS holds."""
    entries = list(CORPUS.inspection(arch, row["kernel"]).facts("unroll")["entries"])
    assert CORPUS.holds(entries, row, arch), (row["why"], [e.tag() for e in entries])


def test_every_loop_with_code_is_labelled() -> None:
    """Each entry of each kernel (but the gone ones) is a labelled row."""
    assert not CORPUS.unlabelled()


def test_the_copies_are_the_trip_counts() -> None:
    """Every full entry's copies are its trip count (a tile loop's `o + STRIDE <= BM`, a
    macro-sized constexpr, a helper's step from its caller), and no rolled build was needed
    to say so."""
    for arch in ARCHS:
        for _, e in CORPUS.entries(arch):
            if e.kind == "full":
                assert e.trip_count == e.copies and e.decided_by == "count", e.tag()
    assert not ASKED


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_the_live_compile_is_the_recorded_one(arch: str) -> None:
    """Compiled again, with the rolled builds live: every label still holds."""
    assert not CORPUS.live_wrong(arch)
