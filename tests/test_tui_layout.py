"""The TUI's layout: pane widths by content, resized by keys and the mouse, remembered per
terminal width; a one-line findings panel when there is nothing to list; a footer that fits 80
columns; legible gutters on highlighted rows in both themes; coloured Triton stages.

Driven with App.run_test() and Pilot on recorded compiles and cubins (no compiler). Widths are
read off the laid-out widgets; what a pane needs is read off its own lines.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CORPUS
from helpers.tui import opened, preloaded, recorded_app, run
from pytest import MonkeyPatch
from rich.color import Color
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from sassview.tui import layout
from sassview.tui.app import SassviewApp
from sassview.tui.screens.stage import StageScreen
from sassview.tui.widgets.findings import FindingsPanel
from sassview.tui.widgets.listing import Listing

VECADD = CORPUS / "vecadd" / "sm_90a" / "kernel.cubin"  # add_f4 has no findings
STAGES = Path(__file__).parent / "data" / "stages"
TRITON_SOURCE = Path(__file__).parent / "data" / "ptx" / "src" / "triton_kernels.py"


def app_with(memory: Path) -> SassviewApp:
    app = recorded_app("tiled")
    app.width_memory = layout.WidthMemory(memory)
    return app


def code_width(app: SassviewApp, pane: str) -> int:
    """Columns of code a pane shows: its width less borders, scrollbar and gutter."""
    listing = app.pane(pane)
    return listing.outer_size.width - layout.CHROME - listing.code_column


# -- widths by content -------------------------------------------------------------------------


def test_at_200_columns_the_source_pane_shows_its_code_lines_whole(tmp_path: Path) -> None:
    async def go() -> None:
        app = app_with(tmp_path / "tui.json")
        async with opened(app, size=(200, 50)) as pilot:
            await pilot.pause()
            view = app.view
            assert view is not None
            code = [
                len(s.expandtabs(4))
                for i, s in enumerate(view.source_lines)
                if (view.main_file, i + 1) in view.sass_for_line
            ]
            shown = code_width(app, "source")
            # three in four whole (the old 1:1:2 split showed half: 40 of 200 columns of code)
            assert sum(n <= shown for n in code) >= 0.75 * len(code), (shown, sorted(code))
            # and no pane is wider than its lines need while another is cut
            sass_lines = max(len(r.text) for r in view.sass)
            assert code_width(app, "sass") <= sass_lines + layout.STEP
            assert sum(app.pane_widths().values()) == 200

    run(go)


def test_balance_gives_floors_first_then_what_each_still_needs() -> None:
    wants = {"source": layout.Want(30, 90), "ptx": layout.Want(30, 70), "sass": layout.Want(60, 80)}
    wide = layout.balance(300, wants)  # all fit: the spare in proportion to the wants
    assert sum(wide.values()) == 300 and all(wide[p] >= w.full for p, w in wants.items())
    mid = layout.balance(200, wants)  # 120 of floors, 80 left for 120 of needs
    assert sum(mid.values()) == 200 and all(mid[p] >= w.floor for p, w in wants.items())
    assert mid["sass"] - 60 < mid["source"] - 30  # the pane that needs more gets more
    narrow = layout.balance(90, wants)  # below the floors: in proportion to them
    assert narrow["sass"] == 45 and narrow["source"] + narrow["ptx"] == 45


# -- resizing and remembering ------------------------------------------------------------------


def test_greater_and_less_widen_and_narrow_the_focused_pane(tmp_path: Path) -> None:
    async def go() -> None:
        app = app_with(tmp_path / "tui.json")
        async with opened(app, size=(160, 45)) as pilot:
            before = app.pane_widths()
            app.pane("source").focus()
            await pilot.press("greater_than_sign", "greater_than_sign")
            await pilot.pause()
            wider = app.pane_widths()
            assert wider["source"] == before["source"] + 2 * layout.STEP
            assert sum(wider.values()) == sum(before.values())
            app.pane("sass").focus()
            await pilot.press("less_than_sign")
            await pilot.pause()
            after = app.pane_widths()
            assert after["sass"] == wider["sass"] - layout.STEP
            assert sum(after.values()) == sum(before.values())

    run(go)


def test_chosen_widths_are_remembered_per_terminal_width(tmp_path: Path) -> None:
    memory = tmp_path / "config" / "tui.json"

    async def choose() -> dict[str, int]:
        app = app_with(memory)
        async with opened(app, size=(160, 45)) as pilot:
            app.pane("source").focus()
            await pilot.press("greater_than_sign", "greater_than_sign", "greater_than_sign")
            await pilot.pause()
            return app.pane_widths()

    async def reopen(size: tuple[int, int]) -> dict[str, int]:
        app = app_with(memory)
        async with opened(app, size=size) as pilot:
            await pilot.pause()
            return app.pane_widths()

    async def go() -> None:
        balanced_160 = await reopen((160, 45))
        balanced_200 = await reopen((200, 50))
        chosen = await choose()
        assert chosen != balanced_160
        assert await reopen((160, 45)) == chosen  # a new window at the same width
        assert await reopen((200, 50)) == balanced_200  # another width: balanced by content
        saved = json.loads(memory.read_text())
        assert saved["pane_widths"] == {"160": chosen}
        assert not list(memory.parent.glob(".tui-*"))  # written through a temporary file

        app = app_with(memory)
        async with opened(app, size=(160, 45)) as pilot:
            await pilot.press("equals_sign")  # forget them: balanced again
            await pilot.pause()
            assert app.pane_widths() == balanced_160
        assert json.loads(memory.read_text())["pane_widths"] == {}

    run(go)


def test_dragging_a_border_with_the_mouse_moves_it(tmp_path: Path) -> None:
    memory = tmp_path / "tui.json"

    async def go() -> None:
        app = app_with(memory)
        async with opened(app, size=(160, 45)) as pilot:
            before = app.pane_widths()
            edge = before["source"] - 1  # the source pane's right border column
            cursor = app.pane("source").cursor
            await pilot.mouse_down("#source", offset=(edge, 5))
            await pilot.hover("#source", offset=(edge + 10, 5))
            await pilot.mouse_up("#source", offset=(edge + 10, 5))
            await pilot.pause()
            after = app.pane_widths()
            assert after["source"] == before["source"] + 10
            assert after["ptx"] == before["ptx"] - 10 and after["sass"] == before["sass"]
            assert app.pane("source").cursor == cursor  # the drag was no click on a row
        assert json.loads(memory.read_text())["pane_widths"]["160"] == after

    run(go)


def test_a_click_puts_the_cursor_on_the_row_clicked(tmp_path: Path) -> None:
    async def go() -> None:
        app = app_with(tmp_path / "tui.json")
        async with opened(app, size=(160, 45)) as pilot:
            sass = app.pane("sass")
            top = round(sass.scroll_offset.y)
            await pilot.click("#sass", offset=(10, 1))  # the first row under the border
            assert sass.cursor == top
            await pilot.click("#sass", offset=(10, 4))
            assert sass.cursor == top + 3

    run(go)


# -- what else fills the screen ----------------------------------------------------------------


def test_no_findings_take_one_line_at_80x24() -> None:
    async def go() -> None:
        app = preloaded(VECADD)
        async with opened(app, size=(80, 24)) as pilot:
            assert app.loaded is not None and app.view is not None
            names = [i.kernel.name for i in app.loaded.inspections]
            panel = app.query_one(FindingsPanel)
            app.show_kernel(names.index("add_scalar"))  # its findings (add_f4 opens: source order)
            await pilot.pause()
            assert app.view.findings and panel.outer_size.height > 1
            with_findings = app.pane("sass").outer_size.height
            app.show_kernel(names.index("add_f4"))
            await pilot.pause()
            assert not app.view.findings
            assert panel.outer_size.height == 1
            assert app.pane("sass").outer_size.height >= with_findings + 3

    run(go)


def test_the_footer_fits_80_columns_and_keeps_quit() -> None:
    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app, size=(80, 24)) as pilot:
            await pilot.pause()
            keys = sorted(app.query(FooterKey), key=lambda k: k.region.x)
            assert "q" in [k.key for k in keys]
            assert all(k.region.right <= 80 for k in keys)
            assert all(a.region.right <= b.region.x for a, b in zip(keys, keys[1:], strict=False))

    run(go)


def test_the_footer_makes_its_keys_once_as_the_app_opens(monkeypatch: MonkeyPatch) -> None:
    """Opening changes the bindings several times at once (the focus, the screen's resume,
    the footer's own mount): the keys are made once for them all (Textual's Footer: 4 times)."""
    made: list[str] = []
    real = Footer.compose

    def counted(self: Footer) -> ComposeResult:
        made.append("compose")
        return real(self)

    monkeypatch.setattr(Footer, "compose", counted)

    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app) as pilot:
            await pilot.pause(0.3)
            assert "q" in [k.key for k in app.query(FooterKey)]

    run(go)
    assert len(made) == 2  # mounted, before any binding is known (no keys); then the keys


def _luminance(c: Color) -> float:
    def channel(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    r, g, b = c.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: Color | None, bg: Color | None) -> float:
    """WCAG contrast ratio of text on a background (1 to 21)."""
    assert fg is not None and bg is not None
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def gutter_contrast(listing: Listing, row: int) -> float:
    """The contrast of the first gutter text (address, line number) painted on `row`."""
    strip = listing.render_line(row - round(listing.scroll_offset.y))
    seg = next(s for s in strip if s.text.strip() and s.text.strip() not in "▌▏")
    return contrast(
        seg.style.color if seg.style else None, seg.style.bgcolor if seg.style else None
    )


def test_addresses_and_line_numbers_are_legible_on_highlighted_rows() -> None:
    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app, size=(160, 45)) as pilot:
            for theme in ("textual-light", "textual-dark"):
                app.theme = theme
                await pilot.pause()
                sass, source = app.pane("sass"), app.pane("source")
                assert gutter_contrast(sass, sass.cursor) >= 4.5, theme  # the selection
                assert gutter_contrast(source, source.cursor) >= 4.5, theme  # its source line
                rows = range(sass.cursor + 1, len(sass.painter or ()))
                plain = next(r for r in rows if r not in sass.marks)
                assert gutter_contrast(sass, plain) >= 3, theme  # muted, still readable

    run(go)


# -- Triton stages -----------------------------------------------------------------------------


def test_a_ttgir_stage_is_coloured_and_shows_the_source_line_it_maps_to() -> None:
    text = (STAGES / "matmul.ttgir").read_text()
    source = tuple(TRITON_SOURCE.read_text().splitlines())
    line = next(i + 1 for i, s in enumerate(source) if "tl.dot(" in s)

    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app, size=(160, 45)) as pilot:
            screen = StageScreen("ttgir", text, "/src/triton_kernels.py", line, source)
            app.push_screen(screen)
            await pilot.pause()
            listing = screen.query_one(Listing)
            row = listing.cursor
            assert row == screen.by_line[line][0]
            strip = listing.render_line(row - round(listing.scroll_offset.y))
            colours = {s.style.color for s in strip if s.text.strip() and s.style}
            assert len(colours) >= 4, colours  # op, values, types, the location
            bar = str(screen.query_one("#stage-source").render())
            assert bar.startswith(f"triton_kernels.py:{line}  ")
            assert source[line - 1].strip() in bar
            # a row with no location says so
            plain = next(r for r in range(len(text.splitlines())) if r not in screen.lines_of_row)
            listing.move_cursor(plain, notify=True)
            await pilot.pause()
            assert "no source line" in str(screen.query_one("#stage-source").render())

    run(go)


def test_the_source_pane_lexes_only_as_far_as_it_paints() -> None:
    """A 3,000-line source: the first screen lexes its own lines, not the file (the whole
    file was most of a 65k-instruction kernel's first paint), and a comment spanning lines is
    still a comment where it is read later. (3,000 lines show it as well as 30,000: Pygments
    took ~19 s of a busy machine to reach line 20,001.)"""
    from pygments.token import Comment

    from sassview.tui.paint import _LexedLines

    text = "/* a comment\n   over two lines */\n" + "".join(
        f"__device__ int f{i}(int x) {{ return x + {i}; }}\n" for i in range(3_000)
    )
    lexed = _LexedLines("k.cu", text)
    assert any(t in Comment for t, _ in lexed.line(1))
    assert len(lexed._lines) < 10  # two lines asked for: a few lexed, not 3,002
    far = lexed.line(2_001)
    assert "".join(v for _, v in far) == "__device__ int f1999(int x) { return x + 1999; }"
