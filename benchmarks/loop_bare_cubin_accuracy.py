"""Right / wrong / unknown loop claims when sassview is handed a recorded labelled cubin alone
(`sassview check X.cubin`: no source compile, no rolled build; only what the cubin holds, its
SASS, embedded PTX if any and line tables), against the hand labels of the same loops.

    python benchmarks/loop_bare_cubin_accuracy.py [-v]

(-v: each claim but the "no claim" ones, with what was said and the label.)

Corpora: census.cu (labels.json), copies.cu (labels_copies.json), shapes2.cu
(labels_shapes2.json), mactile.cu (labels_mactile.json), tutor.cu (labels_tutor.json),
deduce.cu (labels_deduce.json), hopper.cu (labels_hopper.json), the real build of each on
sm_80 and sm_90a. A claim is one label row on one arch: "no claim" where the line has no
entry (with no source beside the cubin, a loop unrolled away leaves none), unknown where the
census gives no number, wrong where it gives another (or more than one entry), right where
every labelled key it gives holds (`MAIN` always). An accuracy count: it prints, it does not
assert (the tests do).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

DATA = HERE.parent / "tests" / "data" / "loops"
ARCHS = ("sm_80", "sm_90a")
CORPORA = (
    ("census", "labels.json"),
    ("copies", "labels_copies.json"),
    ("shapes2", "labels_shapes2.json"),
    ("mactile", "labels_mactile.json"),
    ("tutor", "labels_tutor.json"),
    ("deduce", "labels_deduce.json"),
    ("hopper", "labels_hopper.json"),
)


# The keys every claim is weighed on where its label gives them; the label's others
# (`ptx_factor`, `requested`) only where the census gives them (a bare cubin's census gives no
# `ptx_factor`: its words say "x4 before it" instead).
MAIN = ("kind", "factor", "remainder", "copies", "tensor_ops")


def verdict(entries: list[Any], label: dict[str, Any]) -> str:
    if not entries:
        return "no claim"  # no source beside the cubin: a loop unrolled away leaves no entry
    if len(entries) != 1:
        return "wrong"  # a second claim about its line
    (e,) = entries
    if (e.kind == "full" and e.copies is None) or (e.kind == "rolled" and e.factor is None):
        return "unknown"
    claimed = {k: v for k, v in label.items() if k in MAIN or getattr(e, k) is not None}
    return "right" if all(getattr(e, k) == v for k, v in claimed.items()) else "wrong"


def differing(entries: list[Any], label: dict[str, Any]) -> str:
    if len(entries) != 1:
        return ""
    (e,) = entries
    return " ".join(f"{k}={getattr(e, k)!r}" for k, v in label.items() if getattr(e, k) != v)


def _said(e: Any) -> str:
    from sassview.analyses.loops.entry import claim

    return f"{claim(e)} [{e.decided_by}]"


def _entries(p: Any, inspections: dict[str, Any], marks: Any, row: dict[str, Any]) -> list[Any]:
    """The entries at a label row's `// @mark` line and call sites (by file name: the recorded
    line tables name the tree they were recorded in)."""
    from sassview.inspection import inspect_kernel

    kernel = row["kernel"]
    if kernel not in inspections:
        inspections[kernel] = inspect_kernel(p, p.kernel(kernel))
    want = (marks[row["loop"]], tuple(marks[m] for m in row.get("at", [])))
    return [
        e
        for e in inspections[kernel].facts("unroll")["entries"]
        if e.file
        and e.line
        and ((Path(e.file).name, e.line), tuple((Path(c.file).name, c.line) for c in e.inlined_at))
        == want
    ]


def score(verbose: bool = False) -> dict[str, Counter[str]]:
    from helpers.loop_marks import source_marks

    import sassview

    out: dict[str, Counter[str]] = {}
    for stem, labels in CORPORA:
        rows = json.loads((DATA / labels).read_text())["loops"]
        marks = source_marks(DATA, (f"{stem}.cu", f"{stem}.cuh"))
        found: Counter[str] = Counter()
        for arch in ARCHS:
            (p,) = sassview.load(DATA / f"{stem}.{arch}.cubin")  # as `sassview check X.cubin`
            inspections: dict[str, Any] = {}
            for row in rows:
                label = row.get(arch, row["label"])
                here = _entries(p, inspections, marks, row)
                v = verdict(here, label)
                found[v] += 1
                if verbose and v != "no claim":
                    said = "; ".join(_said(e) for e in here)
                    print(
                        f"  {v:7} {stem}.{arch} {row['kernel']} {row['loop']} {row.get('at', [])}:"
                    )
                    print(f"          said {said}; label {label}; differs {differing(here, label)}")
        out[stem] = found
        print(f"{stem}: {dict(found)}")
    print(f"all: {dict(sum(out.values(), Counter()))}")
    return out


if __name__ == "__main__":
    score(verbose="-v" in sys.argv)
