"""Right / wrong / unknown loop claims on the recorded copies corpus (tests/data/loops/copies.cu).

    python benchmarks/loop_copies_accuracy.py

For sm_80 and sm_90a, the census of the recorded real build (reading the recorded rolled
builds, as tests/test_loop_copies.py does, and once with no rolled build at all) against the
hand labels of labels_copies.json, and the labels' `before` column (what the census said at
69b3583, before the rolled builds). An accuracy count, not a timing: it prints, it does not
assert (the tests do).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))


def verdict(got: str, label: dict[str, object]) -> str:
    if "unknown" in got:
        return "unknown"
    want = (
        f"full x{label['copies']}"
        if label["kind"] == "full"
        else f"x{label['factor']}" + ("+rem" if label["remainder"] else "")
    )
    return "right" if got == want else "wrong"


def main() -> None:
    import test_loop_copies as corpus

    from sassview.analyses.loops import rolled
    from sassview.inspection import inspect_kernel

    runs = {"with the rolled builds": corpus.recorded_variant, "no rolled build": None}
    before: Counter[str] = Counter()
    for row in corpus.LABELS:  # the same on both archs
        before[verdict(row["before"], row["label"])] += len(corpus.ARCHS)
    print(f"before (labels' 'before', {sum(before.values())} claims): {dict(before)}")
    for name, builder in runs.items():
        rolled.build_variant = builder or (lambda art, parity, flips: None)
        found: Counter[str] = Counter()
        for arch in corpus.ARCHS:
            p = corpus.program(arch)
            for row in corpus.LABELS:
                at = tuple(corpus.marks()[m][1] for m in row.get("at", []))
                entries = inspect_kernel(p, p.kernel(row["kernel"])).facts("unroll")["entries"]
                (e,) = [
                    x
                    for x in entries
                    if x.line == corpus.marks()[row["loop"]][1]
                    and tuple(c.line for c in x.inlined_at) == at
                ]
                tag = e.tag().split(" ", 1)[1].split(" (asked")[0]
                found[verdict(tag, row["label"])] += 1
        print(f"now, {name}: {dict(found)}")


if __name__ == "__main__":
    main()
