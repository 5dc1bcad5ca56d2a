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

from sassview.analyses import Annotation, HintStanding, Severity
from sassview.ir import SourceLoc
from sassview.steer.trials import moved_to, same_cause

DATA = Path(__file__).parent / "data"
PAD_VEC = DATA / "try" / "transpose_pad_vec.cu"
PAD = DATA / "try" / "transpose_pad.cu"
DIAG = DATA / "try" / "transpose_diag_pad.cu"
GATHER = DATA / "frontends" / "triton_standing.py"
TRITON_HINTS = DATA / "frontends" / "triton_hints.py"
CUTILE = DATA / "frontends" / "cutile_kernels.py"


def check_json(*args: str | Path) -> list[dict[str, Any]]:
    """Every kernel's annotations of `sassview check --json ARGS`."""
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "check", *map(str, args), "--json"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema_version"] == 6
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


def _finding(kind: str, line: int, **data: Any) -> Annotation:
    return Annotation(kind, Severity.NOTE, f"line {line}: ...", source=(SourceLoc("k.cu", line),),
                      data=data)  # fmt: skip


def test_a_finding_is_matched_by_its_cause_and_a_moved_one_says_where() -> None:
    """A trial's finding is the same one when its rule and what it is about agree: the same
    stride argument, a conflict's load or store; at another line it moved there."""
    stride = _finding("runtime-stride", 12, argument="stride_x")
    assert same_cause(stride, _finding("runtime-stride", 30, argument="stride_x"))
    assert not same_cause(stride, _finding("runtime-stride", 12, argument="stride_y"))
    load = _finding("bank-conflict", 17, direction="load")
    assert not same_cause(load, _finding("bank-conflict", 17, direction="store"))
    assert moved_to(load, _finding("bank-conflict", 18, direction="load")) == 18
    assert moved_to(load, _finding("bank-conflict", 17, direction="load")) is None
    assert moved_to(load, None) is None
    moved = HintStanding("stays", "PAD=1", "the finding moved to line 18")
    assert not moved.is_fix
    assert moved.hint_text("pad the row") == "not a fix: tried PAD=1, the finding moved to line 18"


def test_a_knob_that_cannot_be_tried_here_says_why() -> None:
    why = HintStanding("untried", "num_stages=2", "a Triton cache keeps no kernel.py")
    assert why.is_fix and why.words() == "untried: num_stages=2 (a Triton cache keeps no kernel.py)"


@pytest.mark.compile
def test_a_knob_that_moves_the_conflict_to_another_line_is_not_a_fix() -> None:
    """PAD=1 ends the column read's 32-way conflict (line 17) but makes the diagonal read
    (line 18) 2-way (transpose_diag_pad.cu, its SASS read with -DPAD=0 and 1): the conflict
    moved, it did not go."""
    (conflict,) = [a for a in check_json(DIAG, "--try") if a["kind"] == "bank-conflict"]
    assert conflict["source"][0].endswith(":17")
    assert conflict["standing"]["state"] == "stays" and conflict["standing"]["fix"] is False
    assert conflict["standing"]["outcome"] == "the finding moved to line 18"
    assert conflict["hint"] == (
        "not a fix: tried PAD=1 (pads tile's rows), the finding moved to line 18"
    )
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "try", str(DIAG), "--json"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (trial,) = json.loads(done.stdout)["trials"]
    assert trial["resolved"] is False
    (finding,) = trial["findings"]
    assert finding["moved_to"] == 18 and finding["resolved"] is False
    assert finding["now"].startswith("line 18: shared load is a 2-way bank conflict")


def _cutile_declaration(tile: int) -> Any:
    ct = pytest.importorskip("cuda.tile", reason="cuTile is not installed")
    from cuda.tile.compilation import ArrayConstraint

    from sassview.api import Declaration

    f32 = ArrayConstraint(
        ct.float32, 1, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
        may_alias_internally=False,
    )  # fmt: skip
    settings = {"parameters": (f32, f32, 7, tile), "names": ("x", "y", "n", "TILE")}
    return Declaration("cutile", "k", None, ("sm_100a",), settings=settings), f32


def test_a_cutile_narrow_access_hint_has_a_knob_to_try() -> None:
    """cuTile's `shape_divisible_by=` hint (issue #33 item 4) names a knob: every array
    promised to fit the largest power-of-two constant (the tile), 16-byte aligned, strides
    by it and the last 1; a variant's constant wins over the declaration's."""
    from sassview.api import frontend_registry

    decl, f32 = _cutile_declaration(256)
    spec = frontend_registry.spec("cutile")
    assert spec is not None
    knob = spec.width_knob(decl, {"TILE": 1024})
    assert knob is not None
    assert knob.knob == (
        "x, y: shape_divisible_by=1024, base_addr_divisible_by=16, strides by 1024 (last: 1)"
    )
    x = knob.variant["x"]
    assert (x.shape_divisible_by, x.stride_constant, x.base_addr_divisible_by) == (
        (1024,), (1,), 16,
    )  # fmt: skip
    assert spec.width_knob(decl, {"x": x, "y": x, "TILE": 1024}) is None  # promised already


@pytest.mark.compile
def test_a_cutile_width_knob_is_tried_and_judged_per_tile() -> None:
    """vector_add (cutile_kernels.py, fp32, 128 threads): with the arrays promised to fit,
    TILE=1024's 32-bit accesses go; TILE=256's become 64-bit (two elements a thread), still
    narrow, so there the knob is not a fix. Without --try it is said untried."""
    pytest.importorskip("cuda.tile", reason="cuTile is not installed")
    found = check_json(CUTILE, "--try", "-k", "vector_add", "--arch", "sm_100a")
    states = sorted(a["standing"]["state"] for a in found if a["kind"] == "narrow-access")
    assert states == ["helped", "stays"]
    for a in found:
        if a["kind"] == "narrow-access" and a["standing"]["state"] == "stays":
            assert "64 bits wide" in a["standing"]["outcome"]
            assert a["hint"].startswith("not a fix: tried a, b, c: shape_divisible_by=256")
    untried = check_json(CUTILE, "-k", "vector_add", "--arch", "sm_100a")
    assert {a["standing"]["state"] for a in untried if a["kind"] == "narrow-access"} == {"untried"}
