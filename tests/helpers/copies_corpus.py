"""The labelled corpus tests/data/loops/copies.cu as record_copies.py recorded it (NVRTC, sm_80
and sm_90a): the real build's program, the rolled builds the census asks (loops/rolled.py),
the hand labels (labels_copies.json) and the `// @name` marks that place them. Read by
tests/test_loop_copies.py and benchmarks/loop_copies_accuracy.py alike, so that the benchmark
imports no test module."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import sassview
from helpers.loop_marks import source_marks
from sassview.ir import Artifacts, Program
from sassview.parse.rolled_source import rolled_source

DATA = Path(__file__).parent.parent / "data" / "loops"
SOURCE = DATA / "copies.cu"
ARCHS = ("sm_80", "sm_90a")
LABELS = json.loads((DATA / "labels_copies.json").read_text())["loops"]


def _recorded(stem: str, arch: str, text: str) -> Artifacts:
    return Artifacts(
        kind="cuda",
        arch=arch,
        source_path=str(SOURCE),
        source_text=text,
        ptx=(DATA / f"{stem}.ptx").read_text(),
        cubin=(DATA / f"{stem}.cubin").read_bytes(),
    )


def recorded_variant(art: Artifacts, parity: int, flips: Mapping[str, int]) -> Artifacts | None:
    """The rolled build record_copies.py kept, for the corpus' own artifacts: as they are, or
    with copies.cuh's depths counted one more (sgemm_flat's K step sits in a depth-1 loop)."""
    if art.source_path != str(SOURCE):
        return None
    # by file name: the recorded line tables name the tree they were recorded in
    named = tuple(sorted((Path(f).name, depth) for f, depth in flips.items()))
    tag = {(): "", (("copies.cuh", 1),): "f"}[named]
    text = rolled_source(SOURCE.read_text(), parity)
    return _recorded(f"copies.rolled{parity}{tag}.{art.arch}", art.arch, text)


@cache
def marks() -> dict[str, tuple[str, int]]:
    """`// @name` -> (file name, line)."""
    return source_marks(DATA, ("copies.cu", "copies.cuh"))


@cache
def program(arch: str) -> Program:
    return sassview.from_artifacts(_recorded(f"copies.{arch}", arch, SOURCE.read_text()))
