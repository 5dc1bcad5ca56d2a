"""The labelled corpus tests/data/loops/mactile.cu (a header's micro-kernel templates called
with the kernel's own arguments) as record_mactile.py recorded it: no rolled build was
recorded (the census asked none when it was), so each one asked is noted in ASKED. A
`RecordedCorpus` (recorded_corpus.py)."""

from __future__ import annotations

from helpers.recorded_corpus import ARCHS, DATA, RecordedCorpus

CORPUS = RecordedCorpus("mactile", ("mactile.cuh",))
SOURCE, FILES, LABELS, ASKED = CORPUS.source, CORPUS.files, CORPUS.labels, CORPUS.asked
recorded_variant, marks, program = CORPUS.recorded_variant, CORPUS.marks, CORPUS.program
__all__ = [
    "CORPUS",
    "ARCHS", "ASKED", "DATA", "FILES", "LABELS", "SOURCE", "marks", "program",
    "recorded_variant",
]  # fmt: skip
