"""The labelled corpus tests/data/loops/hopper.cu as record_hopper.py recorded it (NVRTC,
sm_80 and sm_90a, no -D): the real build's program, the rolled builds the census
asks (loops/rolled.py), the hand labels (labels_hopper.json) and the `// @name` marks that
place them. Read by tests/test_loop_hopper.py and benchmarks/loop_copies_accuracy.py alike,
so that the benchmark imports no test module."""

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
SOURCE = DATA / "hopper.cu"
FILES = ("hopper.cu", "hopper.cuh")
ARCHS = ("sm_80", "sm_90a")
DEFINES: tuple[str, ...] = ()  # as record_hopper.py compiles it
LABELS = json.loads((DATA / "labels_hopper.json").read_text())["loops"]


def _recorded(stem: str, arch: str, text: str) -> Artifacts:
    return Artifacts(
        kind="cuda",
        arch=arch,
        source_path=str(SOURCE),
        source_text=text,
        ptx=(DATA / f"{stem}.ptx").read_text(),
        cubin=(DATA / f"{stem}.cubin").read_bytes(),
        compile_log=(DATA / f"{stem}.log").read_text() if stem.count(".") == 1 else "",
        options=(f"--gpu-architecture={arch}", "-lineinfo", *(f"-D{d}" for d in DEFINES)),
    )


def recorded_variant(art: Artifacts, parity: int, flips: Mapping[str, int]) -> Artifacts | None:
    """The rolled build record_hopper.py kept for these flips (by file name: the recorded
    line tables name the tree they were recorded in); None for another program's artifacts
    or flips it was never asked."""
    if art.source_path != str(SOURCE):
        return None
    tag = "".join(f"_{Path(f).stem}{d}" for f, d in sorted(flips.items()))
    stem = f"hopper.rolled{parity}{tag}.{art.arch}"
    if not (DATA / f"{stem}.cubin").exists():
        return None
    return _recorded(stem, art.arch, rolled_source(SOURCE.read_text(), parity))


@cache
def marks() -> dict[str, tuple[str, int]]:
    """`// @name` -> (file name, line)."""
    return source_marks(DATA, FILES)


@cache
def program(arch: str) -> Program:
    return sassview.from_artifacts(_recorded(f"hopper.{arch}", arch, SOURCE.read_text()))
