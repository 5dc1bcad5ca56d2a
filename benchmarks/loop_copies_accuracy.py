"""Right / wrong / unknown loop claims on the recorded labelled corpora: copies.cu
(tests/helpers/copies_corpus.py, tested by tests/test_loop_copies.py), shapes2.cu
(tests/helpers/shapes2_corpus.py, tested by tests/test_loop_shapes2.py), mactile.cu
(tests/helpers/mactile_corpus.py, tested by tests/test_loop_mactile.py), tutor.cu
(tests/helpers/tutor_corpus.py, tested by tests/test_loop_tutor.py), deduce.cu
(tests/helpers/deduce_corpus.py, tested by tests/test_loop_deduce.py) and hopper.cu
(tests/helpers/hopper_corpus.py, tested by tests/test_loop_hopper.py).

    python benchmarks/loop_copies_accuracy.py

For each corpus, sm_80 and sm_90a, the census of the recorded real build (reading the recorded
rolled builds, as the tests do, and once with no rolled build at all) against the hand labels,
and the labels' `before` column (what the census said before: copies.cu's at 69b3583, before
the rolled builds; shapes2.cu's at ef7f075, before that corpus; mactile.cu's at 566a2f7, before
a helper template's arguments were read at its call site; tutor.cu's at a588a9a, before
`o + STRIDE <= BM` tests, expression macros and a compare naming a nested statement were
read; deduce.cu's at a588a9a, before deduced arguments were read and a header loop on its
call's line number placed; hopper.cu's at a588a9a, before that corpus). A claim is one
label row on one arch: unknown where the census gives no number, wrong where it gives
another (or the line has no entry, or more than one), right where every labelled key holds
(`tensor_ops` too). An accuracy count, not a timing: it prints, it does not assert (the
tests do).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))


def tag_verdict(got: str, label: dict[str, Any]) -> str:
    """A `before` tag (`full x8`, `x4+rem`, `full copies unknown`) against a label."""
    if "unknown" in got:
        return "unknown"
    want = (
        f"full x{label['copies']}"
        if label["kind"] == "full"
        else f"x{label['factor']}" + ("+rem" if label["remainder"] else "")
    )
    return "right" if got == want else "wrong"


def verdict(entries: list[Any], label: dict[str, Any]) -> str:
    if len(entries) != 1:
        return "wrong"  # no entry for a loop with code, or a second claim about its line
    (e,) = entries
    if (e.kind == "full" and e.copies is None) or (e.kind == "rolled" and e.factor is None):
        return "unknown"
    return "right" if all(getattr(e, k) == v for k, v in label.items()) else "wrong"


def _entries(corpus: Any, arch: str, row: dict[str, Any]) -> list[Any]:
    from sassview.inspection import inspect_kernel

    p = corpus.program(arch)
    marks = corpus.marks()
    want = (marks[row["loop"]], tuple(marks[m] for m in row.get("at", [])))
    return [
        e
        for e in inspect_kernel(p, p.kernel(row["kernel"])).facts("unroll")["entries"]
        if e.file
        and e.line
        and e.spin is None  # ptxas' retry loops at the line are named apart: no claim of it
        and ((Path(e.file).name, e.line), tuple((Path(c.file).name, c.line) for c in e.inlined_at))
        == want
    ]


def main() -> None:
    from helpers import (  # the corpora as recorded (tests/helpers)
        copies_corpus,
        deduce_corpus,
        hopper_corpus,
        mactile_corpus,
        shapes2_corpus,
        tutor_corpus,
    )

    from sassview.analyses.loops import rolled

    corpora = (
        ("copies.cu", copies_corpus),
        ("shapes2.cu", shapes2_corpus),
        ("mactile.cu", mactile_corpus),
        ("tutor.cu", tutor_corpus),
        ("deduce.cu", deduce_corpus),
        ("hopper.cu", hopper_corpus),
    )
    for name, corpus in corpora:
        before: Counter[str] = Counter()
        for row in corpus.LABELS:
            for arch in corpus.ARCHS:
                said = row["before"]
                said = said[arch] if isinstance(said, dict) else said
                before[tag_verdict(said, row.get(arch, row["label"]))] += 1
        print(f"{name}: before (labels' 'before', {sum(before.values())} claims): {dict(before)}")
        for run, builder in (
            ("with the rolled builds", corpus.recorded_variant),
            ("no rolled build", None),
        ):
            rolled.build_variant = builder or (lambda art, parity, flips: None)
            found: Counter[str] = Counter()
            wrong = []
            for arch in corpus.ARCHS:
                for row in corpus.LABELS:
                    v = verdict(_entries(corpus, arch, row), row.get(arch, row["label"]))
                    found[v] += 1
                    if v == "wrong":
                        wrong.append(f"{arch}:{row['loop']}")
            print(
                f"{name}: now, {run}: {dict(found)}"
                + (f" wrong: {' '.join(wrong)}" if wrong and builder else "")
            )


if __name__ == "__main__":
    main()
