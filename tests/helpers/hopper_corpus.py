"""The labelled corpus tests/data/loops/hopper.cu as record_hopper.py recorded it (no -D), with
the rolled builds the census asks, tagged by the headers whose depths they count one more (as
shapes2's). A `RecordedCorpus` (recorded_corpus.py)."""

from __future__ import annotations

from pathlib import Path

from helpers.recorded_corpus import ARCHS, DATA, RecordedCorpus


def _tag(flips: tuple[tuple[str, int], ...]) -> str:
    return "".join(f"_{Path(f).stem}{d}" for f, d in flips)


DEFINES: tuple[str, ...] = ()  # as record_hopper.py compiles it
CORPUS = RecordedCorpus("hopper", ("hopper.cuh",), defines=DEFINES, rolled=_tag)
SOURCE, FILES, LABELS = CORPUS.source, CORPUS.files, CORPUS.labels
recorded_variant, marks, program = CORPUS.recorded_variant, CORPUS.marks, CORPUS.program
__all__ = [
    "CORPUS",
    "ARCHS", "DATA", "DEFINES", "FILES", "LABELS", "SOURCE", "marks", "program",
    "recorded_variant",
]  # fmt: skip
