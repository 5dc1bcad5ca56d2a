"""The labelled corpus tests/data/loops/deduce.cu (a header's device templates whose arguments
the compiler deduces from the call, and a header loop on its call's line number) as
record_deduce.py recorded it (NVRTC, sm_80 and sm_90a): the program, the hand labels
(labels_deduce.json) and the `// @name` marks that place them. Read by
tests/test_loop_deduce.py and benchmarks/loop_copies_accuracy.py alike, so that the benchmark
imports no test module."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import sassview
from helpers.loop_marks import source_marks
from sassview.ir import Artifacts, Program

DATA = Path(__file__).parent.parent / "data" / "loops"
SOURCE = DATA / "deduce.cu"
FILES = ("deduce.cu", "deduce.cuh")
ARCHS = ("sm_80", "sm_90a")
LABELS = json.loads((DATA / "labels_deduce.json").read_text())["loops"]
ASKED: list[tuple[str, int, dict[str, int]]] = []  # the rolled builds the census asked for


def _recorded(arch: str) -> Artifacts:
    stem = f"deduce.{arch}"
    return Artifacts(
        kind="cuda",
        arch=arch,
        source_path=str(SOURCE),
        source_text=SOURCE.read_text(),
        ptx=(DATA / f"{stem}.ptx").read_text(),
        cubin=(DATA / f"{stem}.cubin").read_bytes(),
        compile_log=(DATA / f"{stem}.log").read_text(),
        options=(f"--gpu-architecture={arch}", "-lineinfo"),
    )


def recorded_variant(art: Artifacts, parity: int, flips: Mapping[str, int]) -> Artifacts | None:
    """None, noted in ASKED: no rolled build was recorded (the census asked none of this
    corpus when it was recorded; a claim resting on one would be stale here)."""
    ASKED.append((art.arch, parity, dict(flips)))
    return None


@cache
def marks() -> dict[str, tuple[str, int]]:
    """`// @name` -> (file name, line)."""
    return source_marks(DATA, FILES)


@cache
def program(arch: str) -> Program:
    return sassview.from_artifacts(_recorded(arch))
