"""The loop census on kernels in the shapes of a Hopper GEMM series and a training codebase,
tests/data/loops/hopper.cu and hopper.cuh: a tile's first k-step issued on its own before a
`for (k = 1; ...)` loop of the other three (the MMAs per loop: ptxas' line table gives the
first HGMMA a later step's descriptor line, and schedules the first HMMA between the loop's
copies), and run-time loops over 16-byte register packs whose inner loop runs to a member of
a struct template reached through a typedef (`h8::count`: no constant the census reads),
one of which ptxas unrolls by 4 (the outer factor and the inner copies are one count in the
SASS: the rolled builds split them); and a pack's shared float atomicAdds, each a CAS retry
loop ptxas makes of one PTX atomic (no copy of the statement around it).

The listings were recorded by tests/data/loops/record_hopper.py (NVRTC, sm_80 and sm_90a):
the real build, whose SASS the labels in labels_hopper.json were read from by hand, and the
rolled builds the census asks (loops/rolled.py), read here from helpers/hopper_corpus.py
(which the accuracy benchmark reads too) through `rolled.build_variant`; these tests need
nvdisasm only, but the one marked `compile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from helpers.hopper_corpus import ARCHS, CORPUS, LABELS

from sassview.analyses.loops import rolled


@pytest.fixture(autouse=True, scope="module")
def _recorded_builds() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", CORPUS.recorded_variant)
        yield


def _here(arch: str, row: dict[str, Any]) -> list[Any]:
    """The entries at the row's place, but ptxas' retry loops (named by what they retry, no
    claim about the statement: `test_the_atomic_retries_are_ptxas_loops_apart`)."""
    return CORPUS.here(CORPUS.inspection(arch, row["kernel"]).facts("unroll")["entries"], row)


@pytest.mark.parametrize(("arch", "row"), CORPUS.label_params())
def test_each_label_holds(arch: str, row: dict[str, Any]) -> None:
    """One entry at the loop's line, and it says what the SASS holds."""
    here = _here(arch, row)
    label = row.get(arch, row["label"])
    assert len(here) == 1, [e.tag() for e in here]
    assert {k: getattr(here[0], k) for k in label} == label, row["why"]


def test_every_loop_with_code_is_labelled() -> None:
    """Each statement entry of each kernel (but the gone ones) is a labelled row."""
    assert not CORPUS.unlabelled(statements_only=True)


def test_the_pack_loops_were_settled_by_the_compiler() -> None:
    """The pack loops' numbers come from the rolled builds (no constant bounds them here)."""
    for arch in ARCHS:
        for row in LABELS:
            if row["kernel"] in ("tile_peeled<2>", "pack_atomic") or row["loop"] == "ps_red":
                continue
            (e,) = _here(arch, row)
            assert e.decided_by == "rolled build", (arch, e.tag())


def test_the_atomic_retries_are_ptxas_loops_apart() -> None:
    """The 8 CAS retry loops of pt_add's shared atomicAdds are ptxas' own, each its own entry
    named by what it retries, and none is the statement's."""
    for arch in ARCHS:
        entries = CORPUS.inspection(arch, "pack_atomic").facts("unroll")["entries"]
        retries = [e for e in entries if e.spin == "atomic CAS retry"]
        assert len(retries) == 8 and not any(e.statement for e in retries), arch


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_the_live_compile_is_the_recorded_one(arch: str) -> None:
    """Compiled again, with the rolled builds live: every label still holds."""
    assert not CORPUS.live_wrong(arch)
