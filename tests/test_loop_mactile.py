"""The loop census on GEMM-shaped kernels whose micro-kernels are header templates,
tests/data/loops/mactile.cu and mactile.cuh: `mac_tile<BK, BM, BN>(...)` and
`store_tile<BM, BN>(...)` called with the kernel's own template parameters, its constexpr
locals, `#define`s, literals at two call sites of one kernel, a config struct through a type
parameter, a parameter passed on from one helper to the next (`store_row<COLS>`), and
constexpr locals of template parameters (`constexpr int HALF = ROWS / 2;`, a kernel's and a
helper's). Each
helper's loops read their bounds from the arguments of the call site they are inlined at
(analyses/loops/files.py `loop_at`): the copies are the trip counts, and no rolled build is
asked.

The listings were recorded by tests/data/loops/record_mactile.py (NVRTC, sm_80 and sm_90a);
the labels in labels_mactile.json were read from mactile.<arch>.sass.txt by hand. These tests
need nvdisasm only, but the one marked `compile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from helpers.mactile_corpus import ARCHS, ASKED, CORPUS

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


def test_the_copies_are_the_call_sites_trip_counts() -> None:
    """Every full entry's copies are its trip count at that call site (one statement, two
    counts: mac_tile<2, 2, 4> and mac_tile<4, 4, 1> in one kernel), and no rolled build was
    needed to say so."""
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
