"""`sassview PATH`: source, PTX and SASS side by side, kept in step, recompiled on save.

The app is the parent that coordinates: widgets post messages up (a cursor moved, a finding
was chosen) and the app sets attributes down (marks, cursors, painters) on the others. It reads
only the KernelView built from an Inspection; loading runs in a worker thread, so the UI never
waits on a compiler. Navigation actions live in its base class, `navigation.py`.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer
from textual.worker import get_current_worker

from sassview.gcpause import pause as pause_gc
from sassview.inspection import Inspection
from sassview.tui import layout, lexing, loader, state, sync
from sassview.tui.loader import ErrorReport, Loaded, Target
from sassview.tui.messages import Compiled, CompileFailed, CursorMoved, FindingChosen, Previewed
from sassview.tui.navigation import NavigationApp
from sassview.tui.paint import PtxPainter, SassPainter, SourcePainter
from sassview.tui.resizing import ResizingApp
from sassview.tui.widgets.findings import FindingsPanel
from sassview.tui.widgets.footer import KeysFooter
from sassview.tui.widgets.header import KernelHeader
from sassview.tui.widgets.listing import Listing
from sassview.tui.widgets.status import ErrorPanel, InfoBar, row_info

NARROW = 120  # below this many columns the PTX pane starts hidden
SCHEDULE = 180  # below this many the schedule column does (it takes 20 of the SASS pane's)
PALETTE = 90  # below this many the footer leaves out ^p (the footer's keys fill 80 columns)
LEX_EVERY, LEX_SLICE = 0.05, 0.015  # a long source is lexed on 15 ms in every 50 (lexing.py)
PREVIEW_WAIT = 2.0  # seconds an opening load waits for its first kernel's paint, at most
# Seconds the mount waits for the opening load's first kernel, at most (_open): a cached
# model's is in then (at 65k instructions it comes up to ~0.15 s after Textual's import on a
# loaded machine), and waiting lets its read have the GIL; a compile shows "opening" this late.
FIRST_WAIT = 0.2


class _Main(Screen[None]):
    AUTO_FOCUS = "#sass"  # focused as the screen starts: the footer's keys are made for it once


class SassviewApp(NavigationApp, ResizingApp):
    CSS_PATH = "sassview.tcss"
    TITLE = "sassview"
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("right_square_bracket", "finding(1)", "Finding"),
        Binding("left_square_bracket", "finding(-1)", "Prev finding", show=False),
        Binding("l", "loop(1)", "Loop"),
        Binding("L", "loop(-1)", "Prev loop", show=False),
        Binding("slash", "search", "Search"),
        Binding("n", "match(1)", "Next match", show=False),
        Binding("N", "match(-1)", "Prev match", show=False),
        Binding("g", "goto_address", "Address"),
        Binding("colon", "goto_line", "Line", show=False),
        Binding("K", "pick_kernel", "Kernel"),
        Binding("a", "pick_arch", "Arch", show=False),
        Binding("v", "pick_variant", "Variant", show=False),
        Binding("D", "diff_variant", "Diff", show=False),
        Binding("t", "stages", "Stages", show=False),
        Binding("i", "opcode_help", "Opcode"),
        Binding("1", "toggle_pane('source')", "Source", show=False),
        Binding("2", "toggle_pane('ptx')", "PTX", show=False),
        Binding("3", "toggle_pane('sass')", "SASS", show=False),
        Binding("z", "widen", "Widen", show=False),
        Binding("f", "toggle_findings", "Findings", show=False),
        Binding("c", "toggle_columns", "Columns", show=False),
        Binding("s", "toggle_schedule", "Schedule", show=False),
        Binding("C", "toggle_tints", "Colours", show=False),
        Binding("d", "toggle_dark", "Theme", show=False),
        Binding("r", "recompile", "Recompile", show=False),
        Binding("escape", "clear", "Clear", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        target: Target,
        *,
        loaded: Loaded | None = None,
        load: Callable[[Target], Loaded] = loader.load,
        watch: bool = True,
        poll_seconds: float = 0.5,
        width_memory: layout.WidthMemory | None = None,
        opening: loader.Opening | None = None,
    ) -> None:
        """`opening`: the load of `target`, begun already (`sassview.tui.open_app`)."""
        super().__init__()
        self.width_memory = width_memory or layout.WidthMemory()
        self.target = target
        self.loaded: Loaded | None = None
        self.view: state.KernelView | None = None
        self.views: dict[int, state.KernelView] = {}
        self.index = 0
        self.error: ErrorReport | None = None
        self.compiling = False
        self.columns = True
        self.schedule = True  # the control-code column; off on a narrow screen
        self._initial = loaded
        self._opening = opening
        self._load = load
        self._watcher = loader.Watcher() if watch else None
        self._poll_seconds = poll_seconds
        self.loads = 0  # how many loads have been shown (tests wait on it)
        self.current_line: int | None = None  # the source line of the last cursor move
        self._lexer_timer: Timer | None = None
        self._painted: threading.Event | None = None  # a preview's, which its worker awaits
        self._after_load: Callable[[], None] | None = None  # a key that needs the whole load
        self._early: tuple[state.KernelView, threading.Event] | None = None  # _open's

    def compose(self) -> ComposeResult:
        yield KernelHeader(id="header")
        yield ErrorPanel(id="error")
        with Horizontal(id="panes"):
            yield Listing("source", id="source")
            yield Listing("ptx", id="ptx")
            yield Listing("sass", id="sass")
        yield FindingsPanel(id="findings")
        yield InfoBar(id="info")
        yield KeysFooter()

    def get_default_screen(self) -> Screen[None]:
        return _Main(id="_default")

    def on_mount(self) -> None:
        self.query_one(ErrorPanel).show(None)
        for pane, title in (("source", "source"), ("ptx", "PTX"), ("sass", "SASS")):
            self.pane(pane).border_title = title
        if self.size.width < NARROW:
            self.pane("ptx").display = False
        self.schedule = self.size.width >= SCHEDULE
        self.query_one(KernelHeader).show(None, f"opening {self.target.path} …")
        self.pane("sass").focus()
        if self._initial is not None:
            loaded, self._initial = self._initial, None
            self._apply(loaded, state.build(loaded.inspections[0]), 0, "open")
        else:
            self._open()
        if self._watcher is not None:
            self.set_interval(self._poll_seconds, self._poll)

    def _open(self) -> None:
        """Start the opening load's worker, and show its first kernel now when it is in (a
        cached model, read beside Textual's import) or comes within FIRST_WAIT: the first
        frame is then the kernel's. Shown from the worker's Previewed message instead, the
        screen was laid out and painted empty first, then again. 65k first paint, 9 runs
        interleaved with main, quiet machine: wall best 477 -> 413 ms, median 491 -> 436; CPU
        best 500 -> 450, median 530 -> 460 (benchmarks/bench_warm.py's pty harness)."""
        start = time.perf_counter()  # the header's seconds count from here, as a worker's do
        first = self._opening.first(FIRST_WAIT) if self._opening is not None else None
        if first is None:
            self.compile("open")
            return
        view = state.build(first)
        self._early = (view, threading.Event())  # before the worker, whose preview reads it
        self._painted = self._early[1]
        self.compile("open")
        self._show(view, 0, None, time.perf_counter() - start)
        self.call_after_refresh(self._early[1].set)

    def on_unmount(self) -> None:
        gc.unfreeze()  # hand the objects back to the collector (tests run many apps)
        if self._painted is not None:
            self._painted.set()  # a worker waiting to load on has no screen to wait for

    def on_resize(self) -> None:
        self.screen.set_class(self.size.height < 30, "-small")
        footer = self.query_one(Footer)
        if footer.show_command_palette != (self.size.width >= PALETTE):
            footer.show_command_palette = self.size.width >= PALETTE
            footer.refresh(recompose=True)
        self.apply_widths()  # the widths chosen at this terminal width, if any

    def pane(self, name: str) -> Listing:
        return self.query_one(f"#{name}", Listing)

    def action_toggle_pane(self, name: str) -> None:
        super().action_toggle_pane(name)
        self.apply_widths()  # the shown panes share the width by their wants again

    # -- loading -------------------------------------------------------------------------------

    def compile(self, reason: str, target: Target | None = None) -> None:
        """Start a load in a worker; a newer one supersedes it (exclusive)."""
        self.compiling = True
        self._status("compiling …")
        self._compile_worker(target or self.target, reason)

    @work(thread=True, exclusive=True, group="compile")
    def _compile_worker(self, target: Target, reason: str) -> None:
        worker = get_current_worker()
        # A cached model is 10^6 records loaded at once: left to the collector, its full
        # collections rescan them while the view is built (3/4 of that build at 65k
        # instructions). Paused, then frozen as _apply does: they live as long as the view.
        resume_gc = pause_gc(freeze=True)
        start = time.perf_counter()
        previewed: list[state.KernelView] = []

        def preview(insp: Inspection) -> None:
            """The first kernel, painted before the other kernels are loaded; the load goes on
            once it is on the screen (so the two do not share the CPU meanwhile)."""
            if worker.is_cancelled:
                return
            if self._early is not None and self._early[0].inspection is insp:
                previewed.append(self._early[0])  # shown as the app mounted (_open)
                self._early[1].wait(PREVIEW_WAIT)
                return
            previewed.append(state.build(insp))
            painted = threading.Event()
            self.post_message(Previewed(previewed[0], time.perf_counter() - start, painted))
            painted.wait(PREVIEW_WAIT)

        opening, self._opening = (self._opening, None) if reason == "open" else (None, None)
        try:
            if opening is not None:
                loaded = opening.take(preview)
            elif reason == "open" and target.kernel is None:  # it opens on the first kernel
                with loader.previewing(preview):
                    loaded = self._load(target)
            else:
                loaded = self._load(target)
            switched = target.arch[-1] if reason == "arch" and target.arch else None
            index = self._keep_selection(loaded, switched)
            if previewed and previewed[0].inspection.kernel is loaded.inspections[index].kernel:
                view = previewed[0]  # _apply gives it the loaded Inspection
            else:
                view = state.build(loaded.inspections[index])
        except Exception as exc:  # every failure is shown in the app, never a crash
            if not worker.is_cancelled:
                self.post_message(CompileFailed(loader.report(exc), reason))
            return
        finally:
            resume_gc()
            if opening is not None:
                opening.resume_gc()  # paused since before Textual's import
        if not worker.is_cancelled:
            self.post_message(Compiled(loaded, view, index, reason, target))

    def on_previewed(self, message: Previewed) -> None:
        """The opening load's first kernel: shown as the whole load will show it (the same
        rows, from the same objects), while nothing needs the other kernels."""
        if self.view is None and self.loaded is None:
            self._show(message.view, 0, None, message.seconds)
        self._painted = message.painted
        self.call_after_refresh(message.painted.set)

    def _keep_selection(self, loaded: Loaded, arch: str | None = None) -> int:
        """After a recompile, show the same kernel (name, arch, variant) if it is still there;
        after an arch switch the same kernel on `arch` (the others stay loaded)."""
        if self.view is None:
            return 0
        old = self.view.inspection
        want = (old.kernel.name, arch or old.arch, old.program.artifacts.label)
        for i, insp in enumerate(loaded.inspections):
            if (insp.kernel.name, insp.arch, insp.program.artifacts.label) == want:
                return i
        for i, insp in enumerate(loaded.inspections):
            if insp.kernel.name == old.kernel.name and insp.arch == want[1]:
                return i
        for i, insp in enumerate(loaded.inspections):
            if insp.kernel.name == old.kernel.name:
                return i
        return 0

    def on_compiled(self, message: Compiled) -> None:
        self.target = message.target  # an arch switch compiled a new target
        self._apply(message.loaded, message.view, message.index, message.reason)

    def on_compile_failed(self, message: CompileFailed) -> None:
        self.compiling = False
        self.error = message.report
        self.query_one(ErrorPanel).show(message.report)
        if self.view is not None and message.report.file and message.report.line:
            same = Path(message.report.file).resolve() == Path(self.view.main_file or "").resolve()
            if same:
                self.pane("source").set_errors([message.report.line - 1])
        self._status("compile failed" if self.view else "")
        self.loads += 1

    def _apply(self, loaded: Loaded, view: state.KernelView, index: int, reason: str) -> None:
        keep = self._cursor_line() if reason in ("change", "manual", "arch") else None
        self.compiling = False
        self.error = None
        self.query_one(ErrorPanel).show(None)
        gc.unfreeze()  # the previous kernel may now be collected, cycles included
        self.loaded = loaded
        if view.inspection is not loaded.inspections[index]:  # a preview's view (same kernel)
            view.inspection = loaded.inspections[index]  # now in its whole Program
        self.views = {index: view}
        self._early = None  # the worker is done with it
        if self._watcher is not None:
            self._watcher.watch(loaded.watched)
        if view is not self.view:  # else shown as the preview, as it is now
            self.show_kernel(index, keep_line=keep)
        if self._after_load is not None:  # a key pressed while the preview was shown
            self.call_later(self._after_load)
            self._after_load = None
        for note in loaded.notes:
            self.notify(note, severity="warning", timeout=8, markup=False)
        # A big kernel is millions of long-lived objects: left to the cyclic GC, each full
        # collection rescans them all (pauses of 100+ ms while scrolling 100k instructions).
        gc.freeze()
        self.loads += 1

    def show_kernel(self, index: int, keep_line: int | None = None) -> None:
        """Show inspection `index` of the current load; the panes start on `keep_line`."""
        assert self.loaded is not None
        view = self.views.get(index)
        if view is None:
            view = self.views[index] = state.build(self.loaded.inspections[index])
        self._show(view, index, keep_line, self.loaded.seconds)

    def _show(
        self, view: state.KernelView, index: int, keep_line: int | None, seconds: float
    ) -> None:
        self.view, self.index = view, index
        shown = self.pane("source").painter
        lexed = shown.shares(view) if isinstance(shown, SourcePainter) else None
        source = SourcePainter(view, lexed)  # another kernel of the file keeps its tokens
        self.pane("source").set_painter(source)
        self._lex_in_background(source)
        self.pane("ptx").set_painter(PtxPainter(view), cursor=max(view.ptx_start - 1, 0))
        painter = SassPainter(view, columns=self.columns, schedule=self.schedule)
        self.pane("sass").set_painter(painter)
        self.pane("sass").border_title = "SASS  " + " ".join(painter.header().split())
        self.balance_panes(layout.wants(view, {p: self.pane(p).code_column for p in sync.PANES}))
        self.query_one(FindingsPanel).show(view.findings)
        self._status(f"{seconds:.2f} s" if seconds else "")
        self.finding_index = self.loop_index = -1
        self.match_rows = []
        if keep_line is not None and 0 < keep_line <= len(view.source_lines):
            self.pane("source").move_cursor(keep_line - 1, center=True)
            self.sync_from("source", keep_line - 1)  # every pane's cursor follows
        else:
            self.sync_from("sass", 0)
            ptx = self.pane("ptx")  # the kernel from its .entry, not the module's header
            ptx.show_rows(sorted({max(view.ptx_start - 1, 0), ptx.cursor}), at_top=True)

    def _lex_in_background(self, painter: SourcePainter) -> None:
        """A long source is lexed on in slices between frames: the lines a read-ahead painted
        are checked (sassview.tui.lexing), and a later jump finds its lines lexed."""
        if self._lexer_timer is not None:
            self._lexer_timer.stop()
            self._lexer_timer = None
        if len(painter) <= lexing.FAR:
            return

        def step() -> None:
            if painter.lex_ahead(LEX_SLICE):
                self.pane("source").clear_cache()  # a read-ahead was wrong: paint the truth
            if not painter.lexing and self._lexer_timer is not None:
                self._lexer_timer.stop()
                self._lexer_timer = None

        self._lexer_timer = self.set_interval(LEX_EVERY, step)

    # The keys that read the whole load, pressed while a preview is shown: done when it is in.
    def action_pick_kernel(self) -> None:
        self._when_loaded(super().action_pick_kernel)

    def action_pick_arch(self) -> None:
        self._when_loaded(super().action_pick_arch)

    def action_pick_variant(self) -> None:
        self._when_loaded(super().action_pick_variant)

    def action_diff_variant(self) -> None:
        self._when_loaded(super().action_diff_variant)

    def _when_loaded(self, action: Callable[[], None]) -> None:
        if self.loaded is None and self.view is not None and self.compiling:
            self._after_load = action
        else:
            action()

    def _cursor_line(self) -> int | None:
        """The source line the user was last on, in whichever pane (kept across a recompile)."""
        return self.current_line

    def _poll(self) -> None:
        if self._watcher is not None and self._watcher.changed():
            self.compile("change")

    def _status(self, text: str) -> None:
        self.query_one(KernelHeader).show(self.view, text)

    # -- keeping the panes in step -------------------------------------------------------------

    def on_cursor_moved(self, message: CursorMoved) -> None:
        if message.pane in sync.PANES:
            self.sync_from(message.pane, message.row)

    def sync_from(self, pane: str, row: int) -> None:
        """`pane`'s cursor is on `row`: mark the rows the other panes have for it, bring them
        into view, and put their cursors on the selected instruction's lines (no message
        back: only the user's moves post one). The info bar describes the selection."""
        if self.view is None:
            return
        related = sync.FROM[pane](self.view, row)
        self.current_line = sync.source_line_of(self.view, pane, row) or self.current_line
        moves = sync.cursors(self.view, pane, row, self.pane("sass").cursor)
        for other in sync.PANES:
            if other != pane:
                listing = self.pane(other)
                listing.set_marks(related.rows(other), show=True)
                if other in moves:  # after the marks: the cursor's row is the one kept in view
                    listing.move_cursor(moves[other])
        self.pane(pane).set_marks((), show=False)
        self.query_one(InfoBar).update(row_info(self.view, self.pane("sass").cursor))

    def on_finding_chosen(self, message: FindingChosen) -> None:
        self.go_to_finding(message.index)
