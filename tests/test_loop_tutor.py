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
from functools import cache
from typing import Any

import pytest
from helpers.loop_marks import named_place
from helpers.tutor_corpus import (
    ARCHS,
    ASKED,
    LABELS,
    SOURCE,
    marks,
    program,
    recorded_variant,
)

import sassview
from sassview.analyses.loops import rolled
from sassview.analyses.loops.entry import LoopEntry
from sassview.inspection import Inspection, inspect_kernel


@pytest.fixture(autouse=True, scope="module")
def _recorded_builds() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", recorded_variant)
        yield


@cache
def inspection(arch: str, kernel: str) -> Inspection:
    p = program(arch)
    return inspect_kernel(p, p.kernel(kernel))


_named = named_place


def _want(row: dict[str, Any]) -> tuple[tuple[str, int], tuple[tuple[str, int], ...]]:
    return marks()[row["loop"]], tuple(marks()[m] for m in row.get("at", []))


def _holds(entries: list[LoopEntry], row: dict[str, Any], arch: str) -> bool:
    here = [e for e in entries if _named(e) == _want(row)]
    label = row.get(arch, row["label"])
    return len(here) == 1 and {k: getattr(here[0], k) for k in label} == label


def _id(arch: str, row: dict[str, Any]) -> str:
    return f"{arch}-{row['kernel']}-{row['loop']}-{'-'.join(row.get('at', []))}"


@pytest.mark.parametrize(
    ("arch", "row"), [pytest.param(a, r, id=_id(a, r)) for a in ARCHS for r in LABELS]
)
def test_each_label_holds(arch: str, row: dict[str, Any]) -> None:
    """One entry at the loop's line in its inline context, and it says what the SASS holds."""
    entries = list(inspection(arch, row["kernel"]).facts("unroll")["entries"])
    assert _holds(entries, row, arch), (row["why"], [e.tag() for e in entries])


def test_every_loop_with_code_is_labelled() -> None:
    """Each entry of each kernel (but the gone ones) is a labelled row."""
    labelled = {(r["kernel"], *_want(r)) for r in LABELS}
    for arch in ARCHS:
        for k in program(arch).kernels:
            name = k.display_name.split("(")[0]
            for e in inspection(arch, name).facts("unroll")["entries"]:
                if e.kind != "gone":
                    assert (name, *(_named(e) or ((), ()))) in labelled, (arch, name, e.tag())


def test_the_copies_are_the_trip_counts() -> None:
    """Every full entry's copies are its trip count (a tile loop's `o + STRIDE <= BM`, a
    macro-sized constexpr, a helper's step from its caller), and no rolled build was needed
    to say so."""
    for arch in ARCHS:
        for k in program(arch).kernels:
            for e in inspection(arch, k.display_name.split("(")[0]).facts("unroll")["entries"]:
                if e.kind == "full":
                    assert e.trip_count == e.copies and e.decided_by == "count", e.tag()
    assert not ASKED


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_the_live_compile_is_the_recorded_one(arch: str) -> None:
    """Compiled again, with the rolled builds live: every label still holds."""
    real = sassview.compile(path=SOURCE, arch=arch, compiler="nvrtc")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", rolled._compile)
        wrong = [
            (row["kernel"], row["loop"], row.get("at"))
            for row in LABELS
            if not _holds(
                list(inspect_kernel(real, real.kernel(row["kernel"])).facts("unroll")["entries"]),
                row,
                arch,
            )
        ]
    assert not wrong
