"""One finding per cause, each loop named (issue 30, item 16): a loop unrolled unasked is one
finding that says both what was made and that nobody asked, in every view; loops of inline
asm at one source place are numbered as main and remainder loops are; a warp partition names
its loops as the loops row does. Kernels in tests/data/percause, compiled live (NVRTC)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_sassview
from helpers.loop_marks import source_marks

import sassview
from sassview import export
from sassview.tui import state

pytestmark = pytest.mark.compile
DATA = Path(__file__).parent / "data" / "percause"
MARKS = source_marks(DATA, ("unasked.cu", "three_waits.cu"))


def checked(name: str) -> dict[str, Any]:
    """The one kernel of `name`, as `check --json` gives it."""
    done = run_sassview("check", DATA / name, "--arch", "sm_90a", "--json")
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    (kernel,) = program["kernels"]
    found: dict[str, Any] = kernel
    return found


def at_line(annotations: list[dict[str, Any]], line: int) -> list[dict[str, Any]]:
    """The unroll findings on the loop statement at `line` (not its remainder loops')."""
    head = f"loop at line {line}:"
    return [a for a in annotations if a["kind"] == "unroll" and a["message"].startswith(head)]


def test_a_loop_unrolled_unasked_is_one_finding_that_says_both() -> None:
    line = MARKS["unasked"][1]
    kernel = checked("unasked.cu")
    (note,) = at_line(kernel["annotations"], line)  # was two: the verdict, then "unasked"
    assert note["severity"] == "info"
    assert note["message"].startswith(f"loop at line {line}: unrolled by ")
    assert "with a remainder loop, without being asked [counted in the SASS]" in note["message"]
    assert "pick the factor with #pragma unroll N" in note["hint"]  # the unasked one's advice
    # The loops row still says the loop once; no other note repeats it.
    assert sum("without being asked" in a["message"] for a in kernel["annotations"]) == 1


def test_the_tui_and_the_export_list_the_one_finding() -> None:
    line = MARKS["unasked"][1]
    (insp,) = sassview.inspect(DATA / "unasked.cu", arch="sm_90a")
    shown = [f.annotation.message for f in state.build(insp).findings]
    assert len([m for m in shown if m.startswith(f"loop at line {line}:")]) == 1
    written = json.loads(export.render(insp, "json"))["findings"]
    assert len([f for f in written if f["message"].startswith(f"loop at line {line}:")]) == 1
    # The Markdown lists each finding twice (its list and its listing's marks): each time one.
    said = [t for t in export.render(insp, "md").splitlines() if f"loop at line {line}: " in t]
    assert said and all("remainder loop, without being asked" in t for t in said), said


def test_the_unroll_matcher_shows_the_one_finding() -> None:
    """A failing assert_unrolled lists the loop's findings: the verdict once, with the unasked
    clause, not a second finding beside it."""
    from sassview.testing import KernelUnderTest, UnrollMismatch

    line = MARKS["unasked"][1]
    (insp,) = sassview.inspect(DATA / "unasked.cu", arch="sm_90a")
    with pytest.raises(UnrollMismatch) as failed:
        KernelUnderTest(insp).assert_unrolled(line=line, factor=2)
    assert str(failed.value).count(f"loop at line {line}: unrolled by") == 1
    assert "without being asked" in str(failed.value)


def test_inline_asm_loops_at_one_place_are_numbered_in_every_view() -> None:
    """Three retry loops of one asm statement (inlined at one call in a loop unrolled 3 times)
    read `mbarrier wait loop 1 of 3` .. `3 of 3` (what they wait on: analyses/spins.py), in
    address order, in the findings, the TUI's loop labels and the export; check's rows still
    fold them as alike."""
    wait, call = MARKS["wait"][1], MARKS["call"][1]
    place = f"line {wait} (three_waits.cu, inlined at line {call}, mbarrier wait loop"
    kernel = checked("three_waits.cu")
    notes = [a for a in kernel["annotations"] if a["kind"] == "unroll" and place in a["message"]]
    names = [a["message"].split(": ")[0] for a in sorted(notes, key=lambda a: a["loops"])]
    assert names == [f"loop at {place} {n} of 3)" for n in (1, 2, 3)]
    (insp,) = sassview.inspect(DATA / "three_waits.cu", arch="sm_90a")
    labels = [lp.label for lp in state.build(insp).loops]
    assert [sum(f"loop {n} of 3)" in t for t in labels) for n in (1, 2, 3)] == [1, 1, 1]
    written = json.loads(export.render(insp, "json"))["loops"]
    assert sorted(lp["name"] for lp in written) == [f"{place} {n} of 3)" for n in (1, 2, 3)]
    text = run_sassview("check", DATA / "three_waits.cu", "--arch", "sm_90a").stdout
    schedule = [r for r in text.splitlines() if r.startswith("  schedule")]
    assert len(schedule) == 1 and schedule[0].endswith("(x3 loops alike)"), schedule
    (loops_row,) = [r for r in text.splitlines() if r.startswith("  loops")]
    assert loops_row.count("mbarrier wait loop") == 1 and "(x3 loops alike)" in loops_row


WS_FILE = """\
import sys
sys.path.insert(0, {data!r})
import sassview as sv
from ws_kernels import ws_gemm

a = sv.tensor("fp16", shape=(4096, 4096))
tile = sv.tensor_descriptor(a, block_shape=[128, 64])
out = sv.tensor_descriptor(a, block_shape=[128, 128])
sv.triton(ws_gemm, args=dict(a_desc=tile, b_desc=tile, c_desc=out, K=4096, BLOCK_M=128,
          BLOCK_N=128, BLOCK_K=64), arch="sm_100a", num_warps=4)
"""


def test_warp_partitions_name_their_loops_as_the_loops_row_does(tmp_path: Path) -> None:
    """A partition's loops and waits are named by the Triton source's statement, with the
    call they are inlined at, as the loops row and the schedule rows name them: the mma and
    load partitions' waits are the helper's (its `tl.dot` and its first load), called in the
    K loop; a bare helper line read as if it were the kernel's own."""
    pytest.importorskip("triton")
    marks = {
        t.rsplit("# @", 1)[1]: n
        for n, t in enumerate((DATA / "ws_kernels.py").read_text().splitlines(), 1)
        if "# @" in t
    }
    k_loop, step, dot, load = marks["k_loop"], marks["step"], marks["dot"], marks["load_a"]
    path = tmp_path / "kernel.py"
    path.write_text(WS_FILE.format(data=str(DATA)))
    done = run_sassview("check", path, "--json")
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    (kernel,) = program["kernels"]
    analysis = kernel["analysis"]
    assert [e["summary"].split(":")[0] for e in analysis["loops"]] == [f"line {k_loop}"]
    parts = {text.split(" partition")[0]: text for text in analysis["partitions"]}
    inlined = f"(ws_kernels.py, inlined at line {step})"
    assert f"1 loop at line {k_loop};" in parts["mma"]
    assert f"2 mbarrier waits at line {dot} {inlined}" in parts["mma"], parts["mma"]
    assert f"1 mbarrier wait at line {load} {inlined}" in parts["load"], parts["load"]
    # The same words in the findings the TUI and the exports list.
    said = [a["message"] for a in kernel["annotations"] if a["kind"] == "warp-partition"]
    assert said == analysis["partitions"]
    schedule = " ".join(s["text"] for s in analysis["schedule"])
    assert f"line {dot} {inlined[:-1]}, mbarrier wait loop" in schedule
