"""Two loops at one line never read as one: every view names a SASS loop as the loop census
does (`LoopEntry.place_of`: "line 18 (main loop)", "line 30 (remainder loop 1 of 2)", "line 28
(asm/compiler loop)"), and says how each loop claim was decided (`entry.decided`).

The kernels are tests/data/loops/named.cu, recorded by tests/data/loops/record.py (named.*),
labelled by hand in its comments: horner's loop at line 18 is a main loop and a remainder loop,
strided_sum's at line 30 a main loop and two remainder loops; each kernel has an exposed-load
note on two of them. Before the census named them, both notes read "line 18: a trip waits ...".
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import sassview
from sassview import export
from sassview.analyses.loops.entry import decided, decided_claim, decided_verdict
from sassview.tui.state import build
from sassview.tui.widgets.header import header_text
from sassview.views.cli import cli

DATA = Path(__file__).parent / "data" / "loops"
ARCHS = ("sm_80", "sm_90a")
# kernel -> the names of its SASS loops in address order (named.cu's labels)
NAMES = {
    "horner": ["line 18 (main loop)", "line 18 (remainder loop)"],
    "strided_sum": [
        "line 30 (main loop)",
        "line 30 (remainder loop 1 of 2)",
        "line 30 (remainder loop 2 of 2)",
    ],
}
EXPOSED = {
    "horner": ["line 18 (main loop)", "line 18 (remainder loop)"],
    "strided_sum": ["line 30 (main loop)", "line 30 (remainder loop 2 of 2)"],
}


def _check(*args: str) -> str:
    done = CliRunner().invoke(cli, ["check", *args])
    assert done.exit_code == 0, done.output
    return done.output


def _blocks(text: str) -> dict[str, list[str]]:
    """Each kernel's lines of `check` text, by the kernel's bare name."""
    out: dict[str, list[str]] = {}
    name = ""
    for line in text.splitlines():
        if line and not line.startswith((" ", "==")):
            name = line.split("(", 1)[0]
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def _rows(lines: list[str], head: str) -> list[str]:
    """The loop names of the rows (`schedule`) or notes (`note     exposed-load:`) whose line
    begins with `head`, after the indent."""
    found = [line.strip()[len(head) :].strip() for line in lines if line.strip().startswith(head)]
    return [re.split(r": (?=\d|a trip)", f, maxsplit=1)[0] for f in found]


@pytest.mark.parametrize("arch", ARCHS)
def test_check_names_main_and_remainder_loops_of_one_line_apart(arch: str) -> None:
    """`check` of the recorded cubin: each schedule row and each exposed-load note names its
    loop as main or remainder, so no two read alike."""
    blocks = _blocks(_check(str(DATA / f"named.{arch}.cubin")))
    assert set(blocks) == set(NAMES)
    for kernel, names in NAMES.items():
        assert _rows(blocks[kernel], "schedule") == names, blocks[kernel]
        assert _rows(blocks[kernel], "note     exposed-load:") == EXPOSED[kernel], blocks[kernel]


@pytest.mark.parametrize("arch", ARCHS)
def test_json_findings_and_schedule_name_each_loop_once(arch: str) -> None:
    """`check --json`: per kernel, no two findings on SASS loops say the same words, and the
    schedule's rows name the loops as the census does."""
    doc = json.loads(_check(str(DATA / f"named.{arch}.cubin"), "--json"))
    for k in doc["programs"][0]["kernels"]:
        kernel = k["display_name"].split("(", 1)[0]
        texts = [s["text"].split(":", 1)[0] for s in k["analysis"]["schedule"]]
        assert texts == NAMES[kernel]
        said = Counter(a["message"] for a in k["annotations"] if a["loops"])
        assert [m for m, n in said.items() if n > 1] == []


@pytest.mark.parametrize("arch", ARCHS)
def test_tui_and_exports_name_a_sass_loop_as_check_does(arch: str) -> None:
    """The TUI's loop label (`l`), the Markdown listing's loop labels, the DOT graph's loop
    titles and the JSON export's `name` all read `Inspection.loop_name`."""
    for insp in sassview.inspect(DATA / f"named.{arch}.cubin"):
        names = NAMES[insp.kernel.display_name.split("(", 1)[0]]
        assert [insp.loop_name(lp.index) for lp in insp.loops] == names
        labels = [lp.label for lp in build(insp, read_file=False).loops]
        assert [label.split(", depth", 1)[0] for label in labels] == [
            f"loop {i}: {n}" for i, n in enumerate(names)
        ]
        graph = json.loads(export.render(insp, "json"))
        assert [lp["name"] for lp in graph["loops"]] == names
        md, dot = export.render(insp, "md"), export.render(insp, "dot")
        for i, n in enumerate(names):
            assert f"loop {i}, depth 1, {n}" in md
            assert f"loop {i}: {n} (depth 1)" in dot


@pytest.mark.compile
def test_the_census_names_each_remainder_loop_in_its_own_finding() -> None:
    """Compiled from named.cu (the C++ census): the info on each remainder loop says which it
    is (two read "remainder loop of the loop at line 30" before), and the exposed-load notes
    name the loops as the schedule rows do."""
    doc = json.loads(_check(str(DATA / "named.cu"), "--arch", "sm_90a", "--json"))
    by_name = {k["display_name"].split("(", 1)[0]: k for k in doc["programs"][0]["kernels"]}
    rest = [
        a["message"] for a in by_name["strided_sum"]["annotations"] if "leaves over" in a["message"]
    ]
    assert rest == [
        "loop at line 30 (remainder loop 1 of 2): the iterations the unroll by 16 leaves over",
        "loop at line 30 (remainder loop 2 of 2): the iterations the unroll by 16 leaves over",
    ]
    for kernel, names in NAMES.items():
        k = by_name[kernel]
        assert [s["text"].split(":", 1)[0] for s in k["analysis"]["schedule"]] == names
        notes = [a["message"] for a in k["annotations"] if a["kind"] == "exposed-load"]
        assert [m.split(":", 1)[0] for m in notes] == EXPOSED[kernel]
        (loop,) = k["analysis"]["loops"]
        assert loop["summary"].endswith("[counted in the SASS]"), loop["summary"]


def test_how_a_claim_was_decided_reads_alike_in_every_view() -> None:
    """`decided`'s words beside each claim: check's loops row (the JSON's `summary`), the TUI
    header's tag and loop label, the exports' loop tables and a failing assert_unrolled."""
    from sassview.testing.failures import UnrollMismatch
    from sassview.testing.matchers import KernelUnderTest

    for insp in sassview.inspect(DATA / "named.sm_90a.cubin"):
        (e,) = insp.facts("unroll")["entries"]
        how = decided(e)
        assert how == "counted in the SASS"
        assert e.summary().endswith(f"[{how}]") and decided_claim(e).endswith(f"[{how}]")
        assert e.tag().endswith(f"[{decided(e, short=True)}]")
        header = str(header_text(build(insp, read_file=False)))
        assert e.tag() in header
        view = build(insp, read_file=False)
        assert all(lp.label.endswith(decided_claim(e)) for lp in view.loops)
        md, html = export.render(insp, "md"), export.render(insp, "html")
        said = decided_verdict(e)  # the loop tables' "unrolling" cell
        assert said.endswith(f"[{how}]") and f"| {said} |" in md and f"<td>{said}</td>" in html
        with pytest.raises(UnrollMismatch) as failed:
            KernelUnderTest(insp).assert_unrolled(line=e.line or 0, factor=3)
        assert f"[{how}]" in str(failed.value)
