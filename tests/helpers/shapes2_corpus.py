"""The labelled corpus tests/data/loops/shapes2.cu as record_shapes2.py recorded it (-DSPLIT=2
-DROWS=2), with the rolled builds the census asks, tagged by the headers whose depths they
count one more (`shapes2.rolled0_shapes21`). A `RecordedCorpus` (recorded_corpus.py)."""

from __future__ import annotations

from pathlib import Path

from helpers.recorded_corpus import ARCHS, DATA, RecordedCorpus


def _tag(flips: tuple[tuple[str, int], ...]) -> str:
    return "".join(f"_{Path(f).stem}{d}" for f, d in flips)


DEFINES = ("SPLIT=2", "ROWS=2")  # as record_shapes2.py compiles it
CORPUS = RecordedCorpus("shapes2", ("shapes2.cuh",), defines=DEFINES, rolled=_tag)
SOURCE, FILES, LABELS = CORPUS.source, CORPUS.files, CORPUS.labels
recorded_variant, marks, program = CORPUS.recorded_variant, CORPUS.marks, CORPUS.program
__all__ = [
    "CORPUS",
    "ARCHS", "DATA", "DEFINES", "FILES", "LABELS", "SOURCE", "marks", "program",
    "recorded_variant",
]  # fmt: skip
