"""A hint with a knob is tried before it is printed as a fix, or printed as untried; one tried
and failed is never printed as a fix (issue #33 item 4, sassview/steer/standing.py). Each case
is a kernel of our own, labelled from its SASS in its file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sassview.analyses import HintStanding

DATA = Path(__file__).parent / "data"
PAD_VEC = DATA / "try" / "transpose_pad_vec.cu"
PAD = DATA / "try" / "transpose_pad.cu"
GATHER = DATA / "frontends" / "triton_standing.py"
TRITON_HINTS = DATA / "frontends" / "triton_hints.py"


def check_json(*args: str | Path) -> list[dict[str, Any]]:
    """Every kernel's annotations of `sassview check --json ARGS`."""
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "check", *map(str, args), "--json"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema_version"] == 4
    return [a for p in doc["programs"] for k in p["kernels"] for a in k["annotations"]]


def test_a_knob_tried_and_failed_is_worded_as_no_fix() -> None:
    advice = "pad the row by one 32-bit word"
    failed = HintStanding("failed", "PAD=1", "static assertion failed")
    assert failed.hint_text(advice) == (
        "not a fix: tried PAD=1, it failed to compile (static assertion failed)"
    )
    stays = HintStanding("stays", "num_stages=2", "the finding stays; nothing changed")
    assert advice not in stays.hint_text(advice) and not stays.is_fix
    assert stays.hint_text(advice).startswith("not a fix: tried num_stages=2")
    helped = HintStanding("helped", "PAD=1", "the finding goes")
    assert helped.hint_text(advice) == f"{advice} [tried PAD=1: the finding goes]"
    untried = HintStanding("untried", "PAD=1")
    assert untried.is_fix and "untried" in untried.hint_text(advice)


@pytest.mark.compile
def test_a_padding_knob_that_breaks_the_compile_is_not_printed_as_a_fix() -> None:
    """PAD=1 makes the float4 rows 33 floats long: the static_assert fails (transpose_pad_vec)."""
    (conflict,) = [a for a in check_json(PAD_VEC, "--try") if a["kind"] == "bank-conflict"]
    assert conflict["standing"]["state"] == "failed" and conflict["standing"]["fix"] is False
    assert conflict["standing"]["knob"].startswith("PAD=1")
    assert "static assertion failed" in conflict["standing"]["outcome"]
    assert conflict["hint"].startswith("not a fix: tried PAD=1")
    assert "pad the row" not in conflict["hint"]
    # without --try the same knob is said untried, never offered as tried
    (untried,) = [a for a in check_json(PAD_VEC) if a["kind"] == "bank-conflict"]
    assert untried["standing"]["state"] == "untried" and "[untried: " in untried["hint"]


@pytest.mark.compile
def test_a_padding_knob_that_helps_says_what_changed() -> None:
    """The control: the plain transpose's PAD=1 removes the conflict (tests/data/try)."""
    (conflict,) = [a for a in check_json(PAD, "--try") if a["kind"] == "bank-conflict"]
    assert conflict["standing"]["state"] == "helped" and conflict["standing"]["fix"] is True
    assert "shared_bytes +128" in conflict["standing"]["outcome"]
    assert conflict["hint"].startswith("pad the row") and "[tried PAD=1" in conflict["hint"]


@pytest.mark.compile
def test_divisibility_that_cannot_widen_a_gather_is_not_a_fix() -> None:
    """gather_add's x loads stay LDG.E with divisibility= (triton_standing.py's label)."""
    pytest.importorskip("triton")
    found = [a for a in check_json(GATHER, "--try") if a["kind"] == "narrow-access"]
    gather = next(a for a in found if a["source"][0].endswith(":20"))
    assert gather["standing"]["state"] == "stays" and gather["standing"]["fix"] is False
    assert gather["standing"]["knob"].startswith("divisibility=")
    assert gather["hint"].startswith("not a fix: tried divisibility=")
    assert "Triton widens" not in gather["hint"]


@pytest.mark.compile
def test_one_stage_fewer_that_leaves_the_spills_is_not_a_fix() -> None:
    """capped_dot (triton_hints.py) spills under maxnreg=96 at the default num_stages=3; at
    num_stages=2 it still spills on every line: the spill hint is not offered."""
    pytest.importorskip("triton")
    spills = [a for a in check_json(TRITON_HINTS, "--try", "-k", "capped_dot")
              if a["kind"] == "spill"]  # fmt: skip
    assert spills
    for a in spills:
        assert a["standing"]["knob"] == "num_stages=2" and a["standing"]["state"] == "stays"
        assert a["hint"].startswith("not a fix: tried num_stages=2")


@pytest.mark.compile
def test_the_tui_and_the_exports_read_the_same_standing(tmp_path: Path) -> None:
    """Every view reads one standing: the TUI's loader and `export` say untried as check does."""
    from sassview.tui.loader import Target, load

    loaded = load(Target(PAD_VEC))
    (conflict,) = [a for i in loaded.inspections for a in i.annotations
                   if a.kind == "bank-conflict"]  # fmt: skip
    assert conflict.standing is not None and conflict.standing.state == "untried"
    (checked,) = [a for a in check_json(PAD_VEC) if a["kind"] == "bank-conflict"]
    assert conflict.hint == checked["hint"]
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "export", str(PAD_VEC), "-o", str(tmp_path),
         "-f", "json"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = "".join(p.read_text() for p in tmp_path.glob("*.json"))
    assert "[untried: `sassview try`" in text
