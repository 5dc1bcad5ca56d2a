"""One selection, every cursor on it: the TUI's panes move together, whichever one the user moves.

The selection is a SASS instruction; the source and PTX cursors sit on its lines. Driven with
App.run_test() and Pilot on recorded compiles (no compiler); every expected row is read from the
view-model's own correspondence, so the tests pin the behaviour, not one kernel's numbers.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers.tui import SOURCES, opened, recorded, recorded_app, run, visible

from sassview.tui.app import SassviewApp
from sassview.tui.loader import Loaded, Target
from sassview.tui.state import KernelView


def info(app: SassviewApp) -> str:
    return str(app.query_one("#info").render())


def assert_on_selection(app: SassviewApp, view: KernelView) -> None:
    """The source and PTX cursors are on the selected instruction's lines; the info bar says
    which instruction it is."""
    row = view.sass[app.pane("sass").cursor]
    assert row.home is not None and row.home[0] == view.main_file
    assert app.pane("source").cursor == row.home[1] - 1
    assert row.ptx_line and app.pane("ptx").cursor == row.ptx_line - 1
    assert f"/*{row.address:04x}*/" in info(app)


def loaded_in_a_worker(case: str) -> SassviewApp:
    """As a compile opens: the kernel arrives after the panes are laid out, not before."""
    found = Loaded(recorded(case), ())
    return SassviewApp(Target(SOURCES / f"{case}.cu"), load=lambda _: found, watch=False)


@pytest.mark.parametrize("size", [(200, 50), (120, 24)])
@pytest.mark.parametrize("make", [recorded_app, loaded_in_a_worker])
def test_at_open_every_cursor_is_on_the_selected_instruction(
    make: Callable[[str], SassviewApp], size: tuple[int, int]
) -> None:
    async def go() -> None:
        app = make("tiled")
        async with opened(app, size=size) as pilot:
            await pilot.pause()
            view = app.view
            assert view is not None
            assert_on_selection(app, view)
            ptx = app.pane("ptx")
            entry = view.ptx_start - 1  # the kernel's code shows from its .entry, not the header
            assert ptx.cursor >= entry
            if ptx.cursor - entry < ptx.scrollable_content_region.height:
                assert round(ptx.scroll_offset.y) == entry
            for name in ("source", "ptx", "sass"):
                assert visible(app.pane(name), app.pane(name).cursor), name

    run(go)


def test_after_a_jump_j_and_k_in_the_source_pane_move_the_selection() -> None:
    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app) as pilot:
            view = app.view
            assert view is not None and view.loops
            start = view.sass[view.loops[0].rows[-1]]  # deep in the kernel, far from row 0
            await pilot.press("g", *f"{start.address:x}", "enter")
            await pilot.pause()
            assert_on_selection(app, view)
            await pilot.press("shift+tab", "shift+tab")
            source, sass = app.pane("source"), app.pane("sass")
            assert app.focused is source
            assert start.home is not None
            line = start.home[1]
            for key, step in (("j", 1), ("j", 1), ("k", -1), ("k", -1), ("k", -1)):
                before = sass.cursor
                await pilot.press(key)
                await pilot.pause()
                line += step
                assert source.cursor == line - 1
                code = view.sass_for_line.get((view.main_file or "", line), [])
                if code:  # a line with code selects one of its instructions
                    assert sass.cursor in code
                    assert_on_selection(app, view)
                else:  # a blank line keeps the selection, and says what it is
                    assert sass.cursor == before
                    assert f"/*{view.sass[before].address:04x}*/" in info(app)

    run(go)


def test_j_in_the_ptx_pane_moves_the_selection_and_the_source_cursor() -> None:
    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app) as pilot:
            view = app.view
            assert view is not None
            start = view.sass[len(view.sass) // 2]
            await pilot.press("g", *f"{start.address:x}", "enter", "shift+tab")
            await pilot.pause()
            ptx, sass, source = app.pane("ptx"), app.pane("sass"), app.pane("source")
            assert app.focused is ptx
            moved = 0
            for _ in range(12):
                before = sass.cursor
                await pilot.press("j")
                await pilot.pause()
                code = view.sass_for_ptx.get(ptx.cursor + 1, [])
                if code:
                    assert sass.cursor in code
                    home = view.sass[sass.cursor].home
                    assert home is not None and source.cursor == home[1] - 1
                    moved += sass.cursor != before
                else:
                    assert sass.cursor == before
                assert f"/*{view.sass[sass.cursor].address:04x}*/" in info(app)
            assert moved  # the walk crossed instructions, not only directives

    run(go)
