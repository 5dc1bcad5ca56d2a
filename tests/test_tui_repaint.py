"""What a keypress repaints: moving the focus keeps the listings' painted rows (only the
border changes colour), a theme switch repaints them."""

from __future__ import annotations

from helpers.tui import opened, recorded_app, run
from textual.strip import Strip

from sassview.tui.app import SassviewApp


def _strips(app: SassviewApp, pane: str) -> dict[tuple[int, int], Strip]:
    cache = app.pane(pane)._cache  # a textual LRUCache: keys() and get(), no iteration
    rows = list(cache.keys())
    return {k: s for k in rows if (s := cache.get(k)) is not None}


def test_moving_the_focus_keeps_the_painted_rows_and_a_theme_switch_repaints() -> None:
    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app) as pilot:
            await pilot.pause()
            before = {p: _strips(app, p) for p in ("source", "sass")}
            assert all(before.values())
            await pilot.press("tab")  # the SASS pane's focus moves on
            await pilot.pause()
            for pane, strips in before.items():
                now = _strips(app, pane)
                kept = [k for k, s in strips.items() if now.get(k) is s]
                assert len(kept) >= len(strips) - 2, pane  # the cursor rows aside, the same
            dark = app.pane("sass").palette().dark
            await pilot.press("d")  # the theme: every colour changes
            await pilot.pause()
            assert app.pane("sass").palette().dark != dark
            now = _strips(app, "sass")
            assert now and not any(now.get(k) is s for k, s in before["sass"].items())

    run(go)
