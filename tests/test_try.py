"""`sassview try`: the hint's knob applied, the variant compiled, the finding checked again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS

pytestmark = pytest.mark.compile

TRITON_ADD = """\
import sassview as sv
import triton
import triton.language as tl

@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)

sv.triton(add, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
          constexprs={"BLOCK": 1024}, arch="sm_90a")
"""


def run_try(*args: str | Path) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "try", *map(str, args), "--json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["trials"]


def test_divisibility_turns_triton_scalar_loads_into_128_bit_ones(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    path = tmp_path / "kernel.py"
    path.write_text(TRITON_ADD)
    (trial,) = run_try(path)
    assert trial["kind"] == "narrow-access"
    assert trial["knob"] == "divisibility=['x_ptr', 'y_ptr', 'out_ptr', 'n']"
    assert trial["resolved"] is True and trial["remaining"] == []


def test_removing_maxrregcount_makes_the_spill_go_away(tmp_path: Path) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(
        "import sassview as sv\n"
        f"sv.cuda_file({str(CORPUS / 'sources' / 'spill.cu')!r}, arch='sm_80',"
        " variants={'-maxrregcount': [32]})\n"
    )
    trials = [t for t in run_try(path, "--kernel", "spill") if t["kind"] == "spill"]
    assert trials and all(t["knob"] == "without -maxrregcount" for t in trials)
    assert all(t["resolved"] for t in trials)
    assert trials[0]["delta"]["spill_bytes"] < 0 and trials[0]["delta"]["registers"] > 0


def test_findings_that_need_a_source_edit_are_not_tried() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "try", str(CORPUS / "sources" / "vecadd.cu"),
         "--arch", "sm_80"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "no finding here has a knob sassview can try" in done.stdout


def test_every_spill_one_knob_removes_is_reported(tmp_path: Path) -> None:
    """-maxrregcount=32 makes four spill findings (lines 15, 16, 18, 22 of the knobs example);
    removing it answers all four, and `try` names each, not only the first."""
    example = Path(__file__).resolve().parents[1] / "examples" / "knobs" / "kernel.py"
    args = ["try", str(example), "--kernel", "accumulate"]
    text = subprocess.run(
        [sys.executable, "-m", "sassview", *args], capture_output=True, text=True, timeout=600
    )
    assert text.returncode == 0, text.stderr
    assert "tried    without -maxrregcount  ->  GONE (4 of 4 findings gone)" in text.stdout
    gone = [line for line in text.stdout.splitlines() if line.startswith("  gone     spill: ")]
    assert [line.split(":")[1].strip() for line in gone] == [
        "line 15", "line 16", "line 18", "line 22",
    ]  # fmt: skip
    (trial,) = [t for t in run_try(*args[1:]) if t["kind"] == "spill"]
    assert trial["resolved"] is True and len(trial["findings"]) == 4
    assert all(f["resolved"] and f["now"] is None for f in trial["findings"])
