"""The labelled corpus tests/data/loops/tutor.cu (tutorial SGEMM shapes: tile loops that stop
before a partial tile, macro-sized constexpr counts, a double-buffered prefetch) as
record_tutor.py recorded it: no rolled build was recorded (the census asked none when it was),
so each one asked is noted in ASKED. A `RecordedCorpus` (recorded_corpus.py)."""

from __future__ import annotations

from helpers.recorded_corpus import ARCHS, DATA, RecordedCorpus

CORPUS = RecordedCorpus("tutor", ("tutor.cuh",))
SOURCE, FILES, LABELS, ASKED = CORPUS.source, CORPUS.files, CORPUS.labels, CORPUS.asked
recorded_variant, marks, program = CORPUS.recorded_variant, CORPUS.marks, CORPUS.program
__all__ = [
    "CORPUS",
    "ARCHS", "ASKED", "DATA", "FILES", "LABELS", "SOURCE", "marks", "program",
    "recorded_variant",
]  # fmt: skip
