"""`sassview diff`: only real changes show; the summary says what the change did."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import CORPUS

pytestmark = pytest.mark.compile
SPILL = CORPUS / "sources" / "spill.cu"


def diff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sassview", "diff", *args, "--json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_a_real_change_shows_in_the_summary_and_the_listing() -> None:
    done = diff(
        f"{SPILL}@sm_80?-maxrregcount=32", f"{SPILL}@sm_80?-maxrregcount=128", "-k", "spill"
    )
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    summary = {s["what"]: (s["a"], s["b"]) for s in doc["summary"]}
    assert summary["spill_bytes"][0] > 0 and summary["spill_bytes"][1] == 0
    assert {o["opcode"]: (o["a"], o["b"]) for o in doc["opcodes"]}["STL"][1] == 0
    assert not doc["same_sass"] and any(line.startswith("-") for line in doc["sass_diff"])


def test_a_register_cap_that_binds_nothing_changes_nothing() -> None:
    # local_array needs 30 registers: capping at 64 or 128 leaves the code as it was.
    done = diff(
        f"{SPILL}@sm_80?-maxrregcount=64", f"{SPILL}@sm_80?-maxrregcount=128", "-k", "local_array"
    )
    assert done.returncode == 0, done.stdout
    doc = json.loads(done.stdout)
    assert doc["same_sass"] and doc["summary"] == [] and doc["opcodes"] == []


def test_register_allocation_alone_is_not_a_change() -> None:
    """Two compiles that differ only in which registers ptxas picked: the same cubin read
    back with its registers renamed (R<n> -> R<n+100>) by rewriting nvdisasm's text."""
    import sassview
    from sassview.parse.sass_text import parse_sass_text
    from sassview.steer.diff import compare

    text = (CORPUS / "tiled" / "sm_90a" / "sass.txt").read_text()
    import re

    shifted = re.sub(r"(?<![\w.])R(\d+)(?![\w])", lambda m: f"R{int(m.group(1)) + 100}", text)
    (a,) = sassview.analyze(sassview.load(CORPUS / "tiled" / "sm_90a" / "kernel.cubin")[0])
    moved = parse_sass_text(shifted).functions[0].instructions
    assert moved != a.kernel.instructions
    import dataclasses

    b_kernel = dataclasses.replace(a.kernel, instructions=moved)
    b = dataclasses.replace(a, kernel=b_kernel)
    assert compare(a, b).sass_diff == []


def test_different_architectures_and_malformed_specs() -> None:
    vecadd = str(CORPUS / "sources" / "vecadd.cu")
    done = diff(f"{vecadd}@sm_80?X=1", f"{vecadd}@sm_90a?X=1", "-k", "add_f4")
    assert done.returncode == 1 and not json.loads(done.stdout)["same_sass"]
    bad = diff(f"{vecadd}?nonsense", vecadd)
    assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr
    both = diff(vecadd, vecadd)
    assert both.returncode == 2 and "pick one with --kernel" in both.stderr
