"""The views count findings alike: `check`, the TUI's header and its findings panel each say
how many of each severity they count ("2 notes, 3 info"), so none seems to disagree."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from html import escape
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CORPUS

import sassview
from sassview import export
from sassview.analyses.loops.entry import FACTOR_UNKNOWN, decided_verdict
from sassview.tui.app import SassviewApp
from sassview.tui.loader import Loaded, Target
from sassview.tui.state import build
from sassview.tui.widgets.findings import FindingsPanel
from sassview.tui.widgets.header import KernelHeader, header_text
from sassview.views.cli import cli

TILED = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"  # 5 info (its narrow loads coalesce)
WGMMA = CORPUS / "wgmma" / "sm_90a" / "kernel.cubin"  # 3 notes and 1 info
VECADD = CORPUS / "vecadd" / "sm_90a" / "kernel.cubin"  # add_scalar 1 info, add_f4 none


def _counts(path: object) -> Counter[str]:
    (insp,) = sassview.inspect(path)  # type: ignore[arg-type]
    return Counter(a.severity.name.lower() for a in insp.annotations)


def test_check_counts_what_it_lists_and_names_the_info_it_does_not() -> None:
    n = _counts(WGMMA)
    assert n["note"] > 1 and n["info"] >= 1 and not n["warning"]
    done = CliRunner().invoke(cli, ["check", str(WGMMA)])
    assert done.exit_code == 0, done.output
    want = f"findings ({n['note']} notes; {n['info']} info in the lines above)"
    assert want in done.output


def test_a_kernel_whose_findings_are_all_info_still_gets_its_count() -> None:
    """add_scalar's one finding is an info: before, check printed no findings line at all,
    where the TUI's header says "findings 1 info"."""
    (insp,) = [i for i in sassview.inspect(VECADD) if i.kernel.name == "add_scalar"]
    assert [a.severity.name for a in insp.annotations] == ["INFO"]
    done = CliRunner().invoke(cli, ["check", str(VECADD), "--kernel", insp.kernel.name])
    assert done.exit_code == 0, done.output
    assert "  findings (1 info in the lines above)\n" in done.output


def test_an_info_finding_is_listed_only_where_its_hint_names_a_knob() -> None:
    """examples/triton's `scale` declares every pointer and n divisible: its one finding (an
    info narrow-access) has no knob left to try, so check counts it and claims no trial. The
    gather of tests/data/frontends/triton_standing.py declares none: its info narrow-access
    (line 19) names divisibility=, and check lists it with that knob's standing, untried."""
    pytest.importorskip("triton")
    path = Path(__file__).parents[1] / "examples" / "triton" / "kernel.py"
    done = CliRunner().invoke(cli, ["check", str(path), "--kernel", "scale", "--arch", "sm_90a"])
    assert done.exit_code == 0, done.output
    blocks = [b for b in done.output.split("\n== ") if "  findings (" in b]
    assert blocks and all("  findings (1 info in the lines above)\n" in b for b in blocks)
    assert "sassview try" not in done.output
    gather = Path(__file__).parent / "data" / "frontends" / "triton_standing.py"
    done = CliRunner().invoke(cli, ["check", str(gather)])
    assert done.exit_code == 0, done.output
    assert "info     narrow-access: line 19:" in done.output
    assert done.output.count("[untried: `sassview try` (or `check --try`) compiles") == 2


def test_tui_header_and_panel_count_by_severity_and_follow_the_kernel() -> None:
    n = _counts(WGMMA)
    app = SassviewApp(Target(WGMMA), loaded=Loaded(tuple(sassview.inspect(WGMMA)), ()), watch=False)
    two = tuple(sassview.inspect(VECADD))
    names = [i.kernel.name for i in two]

    async def go() -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            words = f"{n['note']} notes, {n['info']} info"
            panel = app.query_one(FindingsPanel)
            assert panel.border_title == f"findings ({words})"
            header = app.query_one(KernelHeader)
            assert f"findings {words}" in str(header.render())
        other = SassviewApp(Target(VECADD), loaded=Loaded(two, ()), watch=False)
        async with other.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            panel = other.query_one(FindingsPanel)
            other.show_kernel(names.index("add_scalar"))
            await pilot.pause()
            assert panel.border_title == "findings (1 info)"
            other.show_kernel(names.index("add_f4"))  # no findings: no count left behind
            await pilot.pause()
            assert panel.border_title == "findings"

    asyncio.run(go())


# -- small TUI things a first try meets --------------------------------------------------------


def _app(path: object) -> SassviewApp:
    found = tuple(sassview.inspect(path))  # type: ignore[arg-type]
    return SassviewApp(Target(path), loaded=Loaded(found, ()), watch=False)  # type: ignore[arg-type]


def test_next_loop_is_the_one_after_the_cursor_not_the_first() -> None:
    app = _app(TILED)  # loops start at SASS rows 29 and 52

    async def go() -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            assert app.view is not None
            first, second = (lp.rows[0] for lp in app.view.loops)
            sass = app.pane("sass")
            sass.move_cursor(first + 1, notify=True)
            await pilot.press("l")
            assert sass.cursor == second
            await pilot.press("l")  # and on, wrapping around
            assert sass.cursor == first
            sass.move_cursor(second + 1, notify=True)
            await pilot.press("L")
            assert sass.cursor == second

    asyncio.run(go())


def test_hiding_the_columns_retitles_the_sass_pane() -> None:
    app = _app(TILED)

    async def go() -> None:
        async with app.run_test(size=(200, 48)) as pilot:
            await pilot.pause()
            sass = app.pane("sass")
            full = "SASS  addr mem TABS d live use schedule instruction"  # from 180 columns
            assert sass.border_title == full
            await pilot.press("c")
            assert sass.border_title == "SASS  addr instruction"
            await pilot.press("c")
            assert sass.border_title == full

    asyncio.run(go())


def test_diff_with_nothing_to_compare_says_how_to_get_something() -> None:
    from helpers.tui import recorded_app  # a .cu target: it can compile another architecture

    app = recorded_app("tiled")

    async def go() -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            await pilot.press("D")
            await pilot.pause()
            said = [n.message for n in app._notifications]
            assert any("press a to compile it for another architecture" in m for m in said), said

    asyncio.run(go())


# --- one vocabulary for loops and access widths -----------------------------------------------

CENSUS = Path(__file__).parent / "data" / "loops" / "census.sm_90a.cubin"
# A remainder loop (two_accums), factors not measured (softmax_rows), a helper's loop inlined
# at two call sites and fully unrolled at each (two_sites), remainders of two compilers (exits).
LOOP_KERNELS = ("two_accums", "softmax_rows", "two_sites", "exits")


def _check_text(path: Path) -> str:
    done = CliRunner().invoke(cli, ["check", str(path)])
    assert done.exit_code == 0, done.output
    return done.output


def _kernel_block(text: str, name: str) -> str:
    """The lines `check` prints for one kernel (its name line up to the next kernel's)."""
    lines = text.splitlines()
    start = lines.index(name)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), None)
    return "\n".join(lines[start:end])


def test_a_loop_reads_alike_in_check_export_and_the_tui() -> None:
    text = _check_text(CENSUS)
    by_name = {i.kernel.name: i for i in sassview.inspect(CENSUS)}
    unknown = 0
    for name in LOOP_KERNELS:
        insp = by_name[name]
        block = _kernel_block(text, name)
        md, html = export.render(insp, "md"), export.render(insp, "html")
        graph = json.loads(export.render(insp, "json"))
        header = str(header_text(build(insp, read_file=False)))
        entries = insp.facts("unroll")["entries"]
        assert entries
        for e in entries:
            said = decided_verdict(e)
            assert e.summary() in block  # check's "loops" row
            assert e.summary() in [d["summary"] for d in graph["kernel"]["analysis"]["loops"]]
            assert f"| {said} |" in md and f"<td>{escape(said)}</td>" in html  # loop tables
            assert e.tag() in header
            if e.kind == "rolled" and e.factor is None:  # the same words where a number is not
                unknown += 1
                assert FACTOR_UNKNOWN in said and FACTOR_UNKNOWN in e.tag()
        # each SASS loop's schedule row says which loop it is (main, remainder 1 of 2, or one
        # of a helper's two call sites the cubin's line table gives one line): none alike
        rows = [line for line in block.splitlines() if line.lstrip().startswith("schedule")]
        places = [r.split(":", 1)[0] for r in rows]
        assert len(set(places)) == len(places), rows
    assert unknown  # the kernels hold loops whose factor is not measured


def test_two_accums_names_its_remainder_loops_schedule() -> None:
    (e,) = next(i for i in sassview.inspect(CENSUS) if i.kernel.name == "two_accums").facts(
        "unroll"
    )["entries"]
    assert e.remainder_loops
    block = _kernel_block(_check_text(CENSUS), "two_accums")
    assert f"schedule       {e.place} (main loop): " in block
    assert f"schedule       {e.place} (remainder loop): " in block


def _widths(text: str) -> list[str]:
    return re.findall(r"(?:ld|load|st|store) ([^ ,;·]+)", text)


def test_widest_access_reads_alike_in_check_and_the_tui_header() -> None:
    for path in (TILED, WGMMA, VECADD):
        text = _check_text(path)
        for insp in sassview.inspect(path):
            row = _kernel_block(text, insp.kernel.display_name).split("widest access", 1)[1]
            row = row.splitlines()[0]
            header = str(header_text(build(insp, read_file=False)))
            widest = header.split("widest ", 1)[1].split("  ", 1)[0]
            assert widest.startswith("global ld ") and " · shared ld " in widest
            assert [w.removesuffix("-bit") for w in _widths(row)] == _widths(widest)


@pytest.mark.compile
def test_bulk_copies_are_named_in_check_and_the_tui_header() -> None:
    """TMA loads have no per-thread width: `check` said "bulk copies" where the header said
    `G ld -`, as if the kernel loaded nothing from global memory."""
    path = Path(__file__).parents[1] / "examples" / "matmul" / "05_wgmma_tma.cu"
    done = CliRunner().invoke(cli, ["check", str(path), "--arch", "sm_90a"])
    assert done.exit_code == 0, done.output
    assert "widest access  global load bulk copies," in done.output
    (insp,) = sassview.inspect(path, arch="sm_90a")
    assert "widest global ld bulk st " in str(header_text(build(insp, read_file=False)))
