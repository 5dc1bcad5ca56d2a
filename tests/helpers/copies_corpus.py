"""The labelled corpus tests/data/loops/copies.cu as record_copies.py recorded it, with the
rolled builds the census asks: as they are, or with copies.cuh's depths counted one more
(sgemm_flat's K step sits in a depth-1 loop). A `RecordedCorpus` (recorded_corpus.py)."""

from __future__ import annotations

from helpers.recorded_corpus import ARCHS, DATA, RecordedCorpus


def _tag(flips: tuple[tuple[str, int], ...]) -> str:
    return {(): "", (("copies.cuh", 1),): "f"}[flips]  # a request never recorded: KeyError


CORPUS = RecordedCorpus("copies", ("copies.cuh",), rolled=_tag)
SOURCE, LABELS = CORPUS.source, CORPUS.labels
recorded_variant, marks, program = CORPUS.recorded_variant, CORPUS.marks, CORPUS.program
__all__ = ["ARCHS", "CORPUS", "DATA", "LABELS", "SOURCE", "marks", "program", "recorded_variant"]
