"""`sassview diff`: only real changes show; the summary says what the change did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    # The loop at line 7 reloads spilled values every trip: its issue cycles per trip fall.
    (line_a, cycles_a), (line_b, cycles_b) = (v.split(":") for v in summary["loop_cycles"])
    assert line_a == line_b == "7" and int(cycles_a) > 2 * int(cycles_b)
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


SCALE = "__global__ void scale(float* x, float s) { x[threadIdx.x] *= s; }\n"


def test_arch_option_applies_to_both_sides(tmp_path: Path) -> None:
    a = tmp_path / "a.cu"
    a.write_text(SCALE)
    done = diff(str(a), str(a), "--arch", "sm_80")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert (doc["a"], doc["b"]) == (f"{a}@sm_80", f"{a}@sm_80") and doc["same_sass"]
    # A side's own @ARCH wins over --arch.
    mixed = diff(f"{a}@sm_90a", str(a), "--arch", "sm_80")
    assert mixed.returncode == 1 and json.loads(mixed.stdout)["b"] == f"{a}@sm_80"


def test_one_kernel_each_side_under_different_names_are_paired(tmp_path: Path) -> None:
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    a.write_text(SCALE)
    b.write_text(SCALE.replace("scale(", "scale_v2("))
    done = diff(str(a), str(b), "--arch", "sm_90a", "--ptx")
    assert done.returncode == 0, done.stderr  # the same code: the rename alone is no change
    assert "comparing scale(float*, float) with scale_v2(float*, float)" in done.stderr
    doc = json.loads(done.stdout)
    assert (doc["kernel"], doc["kernel_b"]) == ("_Z5scalePff", "_Z8scale_v2Pff")
    assert doc["same_sass"] and doc["ptx_diff"] == []
