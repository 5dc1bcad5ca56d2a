"""The labelled corpus tests/data/loops/deduce.cu (a header's device templates whose arguments
the compiler deduces from the call, and a header loop on its call's line number) as
record_deduce.py recorded it (NVRTC, sm_80 and sm_90a): the program, the hand labels
(labels_deduce.json) and the `// @name` marks that place them. Read by
tests/test_loop_deduce.py and benchmarks/loop_copies_accuracy.py alike, so that the benchmark
imports no test module. A `RecordedCorpus` (recorded_corpus.py)."""

from __future__ import annotations

from helpers.recorded_corpus import ARCHS, DATA, RecordedCorpus

CORPUS = RecordedCorpus("deduce", ("deduce.cuh",))
SOURCE, FILES, LABELS, ASKED = CORPUS.source, CORPUS.files, CORPUS.labels, CORPUS.asked
recorded_variant, marks, program = CORPUS.recorded_variant, CORPUS.marks, CORPUS.program
__all__ = [
    "CORPUS",
    "ARCHS", "ASKED", "DATA", "FILES", "LABELS", "SOURCE", "marks", "program",
    "recorded_variant",
]  # fmt: skip
