"""`t`: one of Triton's intermediate stages (TTIR, TTGIR, LLIR) as a full-screen listing."""

from __future__ import annotations

from pygments.lexer import Lexer
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from sassview.tui.paint import TextPainter
from sassview.tui.widgets.listing import Listing


def stage_lexer(name: str) -> Lexer | None:
    """LLVM IR has a Pygments lexer; MLIR (TTIR, TTGIR) has none, so it stays plain."""
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


class StageScreen(Screen[None]):
    """A stage opens at the code of the source line the cursor was on (its debug locations,
    `views.stage_lines`): those lines are marked and the cursor is on the first."""

    BINDINGS = [Binding("escape,q,t,D", "dismiss", "Back")]

    def __init__(self, name: str, text: str, file: str | None = None, line: int | None = None):
        super().__init__()
        self.stage = name
        self.text = text
        self.file, self.line = file, line

    def compose(self) -> ComposeResult:
        listing = Listing(self.stage, id="stage")
        listing.border_title = self.stage.upper()
        yield listing
        yield Footer()

    def on_mount(self) -> None:
        listing = self.query_one(Listing)
        listing.set_painter(TextPainter(self.text.splitlines(), stage_lexer(self.stage)))
        rows = self.rows_of_line()
        if rows:
            listing.set_marks(rows, show=False)
            listing.move_cursor(rows[0], center=True)
            listing.border_subtitle = f"line {self.line}: {len(rows)} of {self.stage.upper()}"
        listing.focus()

    def rows_of_line(self) -> list[int]:
        if self.file is None or self.line is None:
            return []
        from sassview.views.stage_lines import rows_by_line

        return list(rows_by_line(self.text, self.file).get(self.line, ()))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
