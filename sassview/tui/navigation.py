"""The app's navigation actions: findings, loops, search, go-to, pickers, pane layout.

A base class of the app, so app.py stays about loading and keeping panes in step. Every action
reads the KernelView and moves cursors or marks through the same `sync_from` the panes' own
cursor messages use, so a jump and a keypress leave the panes in the same state.
"""

from __future__ import annotations

import re

from textual.app import App
from textual.widgets import OptionList

from sassview.inspection import Inspection
from sassview.tui import sync
from sassview.tui.loader import COMMON_ARCHS, Loaded, Target
from sassview.tui.paint import SassPainter
from sassview.tui.screens.help import HelpScreen
from sassview.tui.screens.opcode import OpcodeScreen
from sassview.tui.screens.picker import PickerScreen
from sassview.tui.screens.prompt import PromptScreen
from sassview.tui.screens.stage import StageScreen
from sassview.tui.state import KernelView, kernel_title
from sassview.tui.widgets.findings import FindingsPanel
from sassview.tui.widgets.listing import Listing


class NavigationApp(App[None]):
    """What the navigation needs from the app (app.py provides it), and the actions."""

    target: Target
    loaded: Loaded | None = None
    view: KernelView | None = None
    index: int = 0
    columns: bool = True
    schedule: bool = True
    finding_index: int = -1
    loop_index: int = -1
    match_rows: list[int] = []  # noqa: RUF012 - replaced, never mutated
    match_pane: str = "sass"
    search_pattern: str = ""
    current_line: int | None = None  # the source line of the last cursor move

    def pane(self, name: str) -> Listing:
        raise NotImplementedError

    def sync_from(self, pane: str, row: int) -> None:
        raise NotImplementedError

    def show_kernel(self, index: int, keep_line: int | None = None) -> None:
        raise NotImplementedError

    def compile(self, reason: str, target: Target | None = None) -> None:
        raise NotImplementedError

    def focused_pane(self) -> str:
        f = self.focused
        return f.pane if isinstance(f, Listing) and f.pane in sync.PANES else "sass"

    # -- findings and loops ----------------------------------------------------------------

    def go_to_finding(self, index: int) -> None:
        view = self.view
        if view is None or not 0 <= index < len(view.findings):
            return
        self.finding_index = index
        f = view.findings[index]
        self.query_one(FindingsPanel).select(index)
        sass = self.pane("sass")
        if f.rows:
            sass.move_cursor(f.rows[0], center=True)
            self.sync_from("sass", f.rows[0])
            sass.set_marks(f.rows, show=False)
        lines = [k[1] - 1 for k in f.lines if k[0] == view.main_file]
        if lines:
            self.pane("source").set_marks(lines, show=True)
        self.notify(f.annotation.message, title=f.annotation.kind, timeout=4, markup=False)

    def action_finding(self, step: int) -> None:
        if self.view is None or not self.view.findings:
            self.notify("no findings in this kernel", timeout=3, markup=False)
            return
        n = len(self.view.findings)
        start = self.finding_index if self.finding_index >= 0 else (-1 if step > 0 else 0)
        self.go_to_finding((start + step) % n)

    def action_loop(self, step: int) -> None:
        view = self.view
        if view is None or not view.loops:
            self.notify("no loops in this kernel", timeout=3, markup=False)
            return
        self.loop_index = self._next_loop(view, step)
        lp = view.loops[self.loop_index]
        sass = self.pane("sass")
        if lp.rows:
            sass.move_cursor(lp.rows[0], center=True)
            self.sync_from("sass", lp.rows[0])
            sass.set_marks((), body=lp.rows, show=False)
        self.notify(lp.label, timeout=3, markup=False)

    def _next_loop(self, view: KernelView, step: int) -> int:
        """The loop after (step 1) or before (-1) the SASS cursor, wrapping around; from the
        loop just jumped to, the next in order even when two start on one row."""
        n = len(view.loops)
        cursor = self.pane("sass").cursor
        if 0 <= self.loop_index < n and view.loops[self.loop_index].rows[:1] == (cursor,):
            return (self.loop_index + step) % n
        starts = sorted((lp.rows[0], i) for i, lp in enumerate(view.loops) if lp.rows)
        if not starts:
            return 0
        if step > 0:
            return next((i for row, i in starts if row > cursor), starts[0][1])
        return next((i for row, i in reversed(starts) if row < cursor), starts[-1][1])

    # -- search and go-to ------------------------------------------------------------------

    def action_search(self) -> None:
        pane = self.focused_pane()

        def done(pattern: str | None) -> None:
            if pattern:
                self.run_search(pane, pattern)

        self.push_screen(
            PromptScreen(f"search {pane} (regex)", "e.g. LDG.*128|HMMA", self.search_pattern), done
        )

    def run_search(self, pane: str, pattern: str) -> int:
        """Mark every matching row of `pane` and move to the first after the cursor."""
        listing = self.pane(pane)
        painter = listing.painter
        if painter is None:
            return 0
        try:
            rows = sync.search(painter.plain, len(painter), pattern)
        except re.error as exc:
            self.notify(f"bad regex: {exc}", severity="error", markup=False)
            return 0
        self.search_pattern, self.match_pane, self.match_rows = pattern, pane, rows
        listing.set_matches(rows)
        if not rows:
            self.notify(f"no match for {pattern!r}", severity="warning", timeout=3, markup=False)
            return 0
        self.action_match(1)
        self.notify(f"{len(rows)} matches", timeout=2, markup=False)
        return len(rows)

    def action_match(self, step: int) -> None:
        listing = self.pane(self.match_pane)
        row = sync.next_index(self.match_rows, listing.cursor, step)
        if row is not None:
            listing.move_cursor(row, center=True)
            self.sync_from(self.match_pane, row)

    def action_goto_address(self) -> None:
        def done(text: str | None) -> None:
            address = sync.parse_address(text or "")
            if address is None or self.view is None:
                return
            row = sync.row_for_address(self.view, address)
            if row is not None:
                self.pane("sass").move_cursor(row, center=True)
                self.sync_from("sass", row)

        self.push_screen(PromptScreen("go to SASS address (hex)", "e.g. 1f0"), done)

    def action_goto_line(self) -> None:
        def done(text: str | None) -> None:
            if text and text.strip().isdigit() and self.view is not None:
                self.go_to_line(int(text))

        self.push_screen(PromptScreen("go to source line", "e.g. 42"), done)

    def go_to_line(self, line: int) -> None:
        source = self.pane("source")
        source.move_cursor(line - 1, center=True)
        self.sync_from("source", source.cursor)

    # -- pickers ---------------------------------------------------------------------------

    def _choose(self, title: str, options: list[tuple[str, str]], current: str) -> None:
        def done(key: str | None) -> None:
            if key is None:
                return
            if key.startswith("arch:"):
                self._switch_arch(key.removeprefix("arch:"))
            else:
                self.show_kernel(int(key))

        self.push_screen(PickerScreen(title, options, current), done)

    def action_pick_kernel(self) -> None:
        if self.loaded is None:
            return
        options = [(str(i), insp_label(insp)) for i, insp in enumerate(self.loaded.inspections)]
        self._choose("kernel", options, str(self.index))

    def action_pick_variant(self) -> None:
        if self.loaded is None or self.view is None:
            return
        name, arch = self.view.inspection.kernel.name, self.view.inspection.arch
        options = [
            (str(i), variant_label(insp))
            for i, insp in enumerate(self.loaded.inspections)
            if insp.kernel.name == name and insp.arch == arch
        ]
        self._choose("variant", options, str(self.index))

    def action_diff_variant(self) -> None:
        """`D`: compare this kernel with another of its variants or architectures."""
        if self.loaded is None or self.view is None:
            return
        current = self.view.inspection
        others = [
            (str(i), f"{variant_label(insp)} · {insp.arch}")
            for i, insp in enumerate(self.loaded.inspections)
            if insp.kernel.name == current.kernel.name and i != self.index
        ]
        if not others:
            how = ": press a to compile it for another architecture" if self.target.compiles else ""
            self.notify(
                f"no other variant or architecture of this kernel to compare{how}",
                timeout=6,
                markup=False,
            )
            return

        def done(key: str | None) -> None:
            if key is None or self.loaded is None:
                return
            from sassview.steer.diff import compare, describe

            other = self.loaded.inspections[int(key)]
            names = (
                f"{variant_label(current)} {current.arch}",
                f"{variant_label(other)} {other.arch}",
            )
            change = compare(current, other, names=names)
            text = "\n".join([f"{names[0]}  ->  {names[1]}", *describe(change, ptx=True)])
            self.push_screen(StageScreen("diff", text))

        self.push_screen(PickerScreen("diff against", others), done)

    def action_pick_arch(self) -> None:
        if self.loaded is None or self.view is None:
            return
        name = self.view.inspection.kernel.name
        loaded = {
            insp.arch: i
            for i, insp in enumerate(self.loaded.inspections)
            if insp.kernel.name == name
        }
        options = [(str(i), f"{arch} (compiled)") for arch, i in loaded.items()]
        if self.target.compiles:
            options += [(f"arch:{a}", f"{a} (compile)") for a in COMMON_ARCHS if a not in loaded]
        self._choose("architecture", options, str(self.index))

    def _switch_arch(self, arch: str) -> None:
        self.notify(f"compiling for {arch} …", timeout=3, markup=False)
        shown = [insp.arch for insp in self.loaded.inspections] if self.loaded is not None else []
        self.compile("arch", self.target.with_arch(arch, keep=shown))

    def action_stages(self) -> None:
        view = self.view
        if view is None:
            return
        stages = {k: v for k, v in view.stages.items() if v}
        if not stages:
            self.notify(
                "no intermediate stages (Triton kernels have TTIR, TTGIR, LLIR)",
                timeout=4,
                markup=False,
            )
            return

        def done(key: str | None) -> None:
            if key:
                screen = StageScreen(
                    key, stages[key], view.main_file, self.current_line, view.source_lines
                )
                self.push_screen(screen, back_at_line)

        def back_at_line(line: int | None) -> None:
            """Leaving the stage: the panes go to the source line it was showing."""
            if line is not None and line != self.current_line:
                self.go_to_line(line)

        self.push_screen(PickerScreen("stage", [(k, k.upper()) for k in stages]), done)

    def action_opcode_help(self) -> None:
        view = self.view
        if view is None or not view.sass:
            return
        row = view.sass[self.pane("sass").cursor]
        control = view.inspection.kernel.control_at(row.address)
        self.push_screen(OpcodeScreen(row.text, row.mnemonic, control))

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    # -- layout ----------------------------------------------------------------------------

    def action_toggle_pane(self, name: str) -> None:
        listing = self.pane(name)
        shown = [p for p in sync.PANES if self.pane(p).display]
        if listing.display and len(shown) == 1:
            return  # keep one pane
        listing.display = not listing.display
        if listing.display:
            listing.focus()
        elif self.focused is listing or self.focused is None:
            self.pane([p for p in sync.PANES if self.pane(p).display][0]).focus()

    def action_widen(self) -> None:
        if self.screen.maximized is not None:
            self.screen.minimize()
        elif isinstance(self.focused, Listing):
            self.screen.maximize(self.focused, container=False)

    def action_toggle_findings(self) -> None:
        panel = self.query_one(FindingsPanel)
        panel.display = not panel.display

    def action_toggle_columns(self) -> None:
        self.columns = not self.columns
        self._repaint_sass()

    def action_toggle_schedule(self) -> None:
        self.schedule = not self.schedule
        self._repaint_sass()

    def _repaint_sass(self) -> None:
        if self.view is not None:
            sass = self.pane("sass")
            cursor = sass.cursor
            painter = SassPainter(self.view, columns=self.columns, schedule=self.schedule)
            sass.set_painter(painter, cursor=cursor)
            sass.border_title = "SASS  " + " ".join(painter.header().split())
            sass.move_cursor(cursor)
            self.sync_from("sass", cursor)

    def action_toggle_tints(self) -> None:
        for p in sync.PANES:
            listing = self.pane(p)
            listing.tints = not listing.tints
            listing.clear_cache()

    def action_toggle_dark(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def action_recompile(self) -> None:
        self.compile("manual")

    def action_clear(self) -> None:
        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        self.query_one("#error").display = False
        for p in sync.PANES:
            self.pane(p).set_marks((), body=(), show=False)
            self.pane(p).set_matches(())
        self.match_rows = []

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()


def variant_label(insp: Inspection) -> str:
    """`num_warps=8, BLOCK=64`, from the variant grid a kernel.py declared."""
    a = insp.program.artifacts
    return ", ".join(f"{k}={v}" for k, v in a.variant.items()) or a.label or "(no variant)"


def insp_label(insp: Inspection) -> str:
    return kernel_title(insp)
