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
    BINDINGS = [Binding("escape,q,t,D", "dismiss", "Back")]

    def __init__(self, name: str, text: str) -> None:
        super().__init__()
        self.stage = name
        self.text = text

    def compose(self) -> ComposeResult:
        listing = Listing(self.stage, id="stage")
        listing.border_title = self.stage.upper()
        yield listing
        yield Footer()

    def on_mount(self) -> None:
        listing = self.query_one(Listing)
        listing.set_painter(TextPainter(self.text.splitlines(), stage_lexer(self.stage)))
        listing.focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
