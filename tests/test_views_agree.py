"""The views count findings alike: `check`, the TUI's header and its findings panel each say
how many of each severity they count ("2 notes, 3 info"), so none seems to disagree."""

from __future__ import annotations

import asyncio
from collections import Counter

from click.testing import CliRunner
from conftest import CORPUS

import sassview
from sassview.tui.app import SassviewApp
from sassview.tui.loader import Loaded, Target
from sassview.tui.widgets.findings import FindingsPanel
from sassview.tui.widgets.header import KernelHeader
from sassview.views.cli import cli

TILED = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"  # 2 notes and 3 info
VECADD = CORPUS / "vecadd" / "sm_90a" / "kernel.cubin"  # add_scalar 1 note, add_f4 none


def _counts(path: object) -> Counter[str]:
    (insp,) = sassview.inspect(path)  # type: ignore[arg-type]
    return Counter(a.severity.name.lower() for a in insp.annotations)


def test_check_counts_what_it_lists_and_names_the_info_it_does_not() -> None:
    n = _counts(TILED)
    assert n["note"] > 1 and n["info"] > 1 and not n["warning"]
    done = CliRunner().invoke(cli, ["check", str(TILED)])
    assert done.exit_code == 0, done.output
    want = f"findings ({n['note']} notes; {n['info']} info in the lines above)"
    assert want in done.output


def test_tui_header_and_panel_count_by_severity_and_follow_the_kernel() -> None:
    n = _counts(TILED)
    app = SassviewApp(Target(TILED), loaded=Loaded(tuple(sassview.inspect(TILED)), ()), watch=False)
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
            assert panel.border_title == "findings (1 note)"
            other.show_kernel(names.index("add_f4"))  # no findings: no count left behind
            await pilot.pause()
            assert panel.border_title == "findings"

    asyncio.run(go())
