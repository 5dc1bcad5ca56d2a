"""The loop census on a second labelled corpus, tests/data/loops/shapes2.cu, in shapes the
first two (census.cu, copies.cu) lack: sizes inherited from a config's base or nested in a
policy struct, enums and constexpr functions as bounds, block-stride loads around register
tiles, a double-buffered K loop swapping its buffers by `^= 1` with the header's micro-kernel
at two call sites, early exits, `#pragma unroll 4` on a run-time bound, sizeof(T) counts,
loops under `if constexpr`, a -D the file's `#define` replaces, and wmma tiles in a K loop.

The listings were recorded by tests/data/loops/record_shapes2.py (NVRTC, sm_80 and sm_90a,
-DSPLIT=2 -DROWS=2): the real build, whose SASS the labels in labels_shapes2.json were read
from by hand, and the rolled builds the census asks (loops/rolled.py), read here from
helpers/shapes2_corpus.py (which the accuracy benchmark reads too) through
`rolled.build_variant`; these tests need nvdisasm only, but the one marked `compile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from helpers.loop_marks import named_place
from helpers.shapes2_corpus import (
    ARCHS,
    DEFINES,
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


def entries_at(arch: str, kernel: str, loop: str, at: list[str]) -> list[LoopEntry]:
    """Every entry (statement or not) the census gives the line of `loop` at `at`."""
    want = (marks()[loop], tuple(marks()[m] for m in at))
    return [e for e in inspection(arch, kernel).facts("unroll")["entries"] if _named(e) == want]


def find(arch: str, kernel: str, loop: str, at: list[str]) -> LoopEntry:
    here = entries_at(arch, kernel, loop, at)
    assert len(here) == 1, f"{loop} at {at}: {[e.tag() for e in here]}"
    return here[0]


def _id(arch: str, row: dict[str, Any]) -> str:
    return f"{arch}-{row['kernel']}-{row['loop']}-{'-'.join(row.get('at', []))}"


@pytest.mark.parametrize(
    ("arch", "row"), [pytest.param(a, r, id=_id(a, r)) for a in ARCHS for r in LABELS]
)
def test_each_label_holds(arch: str, row: dict[str, Any]) -> None:
    """One entry at the loop's line in its inline context, statement or not (a SASS loop the
    census cannot place is a second claim about the line), and it says what the SASS holds."""
    label = row.get(arch, row["label"])
    e = find(arch, row["kernel"], row["loop"], row.get("at", []))
    assert {k: getattr(e, k) for k in label} == label, row["why"]


def test_every_loop_with_code_is_labelled() -> None:
    """Each entry of each kernel (but the gone ones) is a labelled row: nothing the census
    says about this corpus goes unchecked."""
    labelled = {
        (r["kernel"], marks()[r["loop"]], tuple(marks()[m] for m in r.get("at", [])))
        for r in LABELS
    }
    for arch in ARCHS:
        p = program(arch)
        for k in p.kernels:
            name = k.display_name.split("(")[0]
            for e in inspection(arch, name).facts("unroll")["entries"]:
                named = _named(e)
                if e.kind != "gone":
                    assert named and (name, *named) in labelled, (arch, name, e.tag())


def test_the_replaced_define_is_named_and_the_guarded_one_is_not() -> None:
    """-DROWS=2 has no effect (the file's `#define ROWS 8` replaces it, and ms_rows has 8
    copies); -DSPLIT=2 is the value the guarded SPLIT took (ms_split has 2)."""
    notes = [
        a for a in inspection("sm_80", "macro_split").annotations if a.kind == "macro-override"
    ]
    assert len(notes) == 1 and "-D ROWS=2" in notes[0].message, [a.message for a in notes]


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_the_live_compile_is_the_recorded_one(arch: str) -> None:
    """Compiled again, with the builds the census asks made live: every label still holds
    (the recordings are not stale, and no claim rests on a recorded build alone)."""
    real = sassview.compile(path=SOURCE, arch=arch, defines=list(DEFINES), compiler="nvrtc")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", rolled._compile)
        wrong = []
        for row in LABELS:
            entries = inspect_kernel(real, real.kernel(row["kernel"])).facts("unroll")["entries"]
            want = (marks()[row["loop"]], tuple(marks()[m] for m in row.get("at", [])))
            here = [e for e in entries if _named(e) == want]
            label = row.get(arch, row["label"])
            if len(here) != 1 or {k: getattr(here[0], k) for k in label} != label:
                wrong.append((row["loop"], [e.tag() for e in here]))
    assert not wrong
