"""`t`: one of Triton's intermediate stages (TTIR, TTGIR, LLIR) as a full-screen listing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from pygments.lexer import Lexer
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from sassview.parse.stage_lines import rows_by_line
from sassview.tui.messages import CursorMoved
from sassview.tui.paint import TextPainter
from sassview.tui.widgets.listing import Listing


def stage_lexer(name: str) -> Lexer | None:
    """LLVM IR has a Pygments lexer; MLIR (TTIR, TTGIR) has sassview's (Pygments has none)."""
    if name in ("ttir", "ttgir", "mlir"):
        from sassview.lexers import MlirLexer

        return MlirLexer(stripnl=False, ensurenl=False)
    if name in ("llir", "ll"):
        from pygments.lexers import LlvmLexer

        return LlvmLexer(stripnl=False, ensurenl=False)
    if name == "diff":
        from pygments.lexers import DiffLexer

        return DiffLexer(stripnl=False, ensurenl=False)
    if name in ("ptx",):
        from sassview.lexers import NvPtxLexer

        return NvPtxLexer(stripnl=False, ensurenl=False)
    return None


def source_line(name: str, line: int | None, source: Sequence[str]) -> Text:
    """`kernel.py:11  tl.store(out_ptr + offsets, ...)`: the source line the cursor's stage
    code comes from, or why there is none."""
    if line is None:
        return Text("no source line: this stage line carries no location", style="dim")
    text = Text(f"{name}:{line}", style="bold cyan", no_wrap=True, overflow="ellipsis")
    if 0 < line <= len(source):
        text.append("  " + source[line - 1].strip())
    return text


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


class StageScreen(Screen[int | None]):
    """A stage opens at the code of the source line the cursor was on (its debug locations,
    `parse.stage_lines`): those lines are marked and the cursor is on the first. Moving the
    cursor marks the code of the line under it and names that line in the border; leaving
    the screen hands that line back (the app moves its panes to it)."""

    BINDINGS = [Binding("escape,q,t,D", "dismiss", "Back")]

    def __init__(
        self,
        name: str,
        text: str,
        file: str | None = None,
        line: int | None = None,
        source: Sequence[str] = (),
    ):
        super().__init__()
        self.stage = name
        self.text = text
        self.file, self.line = file, line
        self.source = source  # the file's lines: the bar above names the line and shows it
        self.by_line: dict[int, list[int]] = {}  # source line -> stage rows
        self.lines_of_row: dict[int, list[int]] = {}  # stage row -> source lines
        self.shown_line: int | None = None  # the source line named now

    def compose(self) -> ComposeResult:
        listing = Listing(self.stage, id="stage")
        listing.border_title = self.stage.upper()
        yield Static(id="stage-source")
        yield listing
        yield Footer()

    def on_mount(self) -> None:
        listing = self.query_one(Listing)
        listing.set_painter(TextPainter(self.text.splitlines(), stage_lexer(self.stage)))
        if self.file is not None:
            self.by_line = dict(rows_by_line(self.text, self.file))
            for line, rows in sorted(self.by_line.items()):
                for row in rows:
                    self.lines_of_row.setdefault(row, []).append(line)
        rows = self.by_line.get(self.line, []) if self.line is not None else []
        if rows:
            listing.move_cursor(rows[0], center=True)
        self.mark_line(self.line if rows else None)
        listing.focus()

    def mark_line(self, line: int | None) -> None:
        """Mark the code of source line `line`, name it in the border, show it above."""
        listing = self.query_one(Listing)
        rows = self.by_line.get(line, []) if line is not None else []
        self.shown_line = line if rows else None
        listing.set_marks(rows, show=False)
        name = PurePath(self.file).name if self.file else ""
        # Content, not a string: a string is markup, and a file may be named `[red]k.py`.
        listing.border_subtitle = Content(f"{name}:{line}: {_lines(len(rows))}" if rows else "")
        bar = self.query_one("#stage-source", Static)
        bar.display = self.file is not None
        bar.update(source_line(name, line, self.source))

    def on_cursor_moved(self, message: CursorMoved) -> None:
        if message.pane == self.stage:
            lines = self.lines_of_row.get(message.row)
            self.mark_line(lines[0] if lines else None)

    async def action_dismiss(self, result: int | None = None) -> None:
        self.dismiss(self.shown_line if self.file is not None else None)
