"""`?`: every key, what the columns and flags mean, and where the colours come from."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

# (keys, what they do). The app's bindings are checked against this table by the tests, and
# docs/tui.md shows the same list.
KEYS: tuple[tuple[str, str], ...] = (
    ("tab / shift+tab", "next / previous pane"),
    ("↑ ↓ j k, pgup pgdn, home end", "move the cursor; the other panes follow"),
    ("← →", "scroll a pane sideways (long lines)"),
    ("mouse click / wheel", "put the cursor on a line / scroll"),
    ("] [", "next / previous finding"),
    ("l L", "next / previous loop (its body is highlighted)"),
    ("/", "search by regex in the focused pane (SASS: opcodes and operands)"),
    ("n N", "next / previous search match"),
    ("g", "go to a SASS address (hex)"),
    (":", "go to a source line"),
    ("K", "choose the kernel"),
    ("a", "choose the architecture (recompiles a source for a new one)"),
    ("v", "choose the variant (kernel.py variants)"),
    ("D", "diff against another variant or architecture of this kernel"),
    ("t", "show a Triton stage: TTIR, TTGIR, LLIR (esc: back, on the line it showed)"),
    ("i", "what the instruction under the cursor does"),
    ("1 2 3", "show / hide the source, PTX, SASS pane"),
    ("z", "widen the focused pane to the whole screen (z again, or esc, to restore)"),
    ("< >", "narrow / widen the focused pane (or drag a border with the mouse); remembered"),
    ("=", "size the panes by their lines again (forget the widths chosen)"),
    ("f", "show / hide the findings panel"),
    ("c", "show / hide the SASS columns"),
    ("s", "show / hide the schedule column (control codes; starts hidden below 180 columns)"),
    ("C", "line colours by source line on / off"),
    ("d", "dark / light theme"),
    ("r", "recompile now (saving the file does it too)"),
    ("esc", "clear highlights, hide the error"),
    ("?", "this help"),
    ("q", "quit"),
)

COLUMNS: tuple[tuple[str, str], ...] = (
    ("addr", "byte offset of the instruction in the kernel (nvdisasm's /*0040*/)"),
    (
        "mem",
        "memory access: G global, S shared, L local, M generic; bits per thread "
        "(G128 is a 16-byte vector access); blk for TMA / bulk copies",
    ),
    ("T", "tensor-core op (HMMA, HGMMA, UTC*MMA, WARPGROUP ...)"),
    ("A", "asynchronous copy (cp.async, TMA, bulk copy) or its wait"),
    ("B", "barrier (__syncthreads, mbarrier, warp sync, memory barrier)"),
    ("S", "register spill or refill (nvdisasm's SpillRefill mark)"),
    ("d", "loop nesting depth"),
    ("live", "registers occupied here (nvdisasm's count), and as a bar of the kernel's total"),
    (
        "schedule",
        "the control code ptxas encoded (sm_70+): B scoreboards waited on, R / W scoreboard "
        "set on read / write, Y may yield, S stall cycles (`i` explains one)",
    ),
)


def help_table() -> Table:
    keys = Table.grid(padding=(0, 2))
    keys.add_column(style="bold cyan", no_wrap=True)
    keys.add_column()
    for k, what in KEYS:
        keys.add_row(k, what)
    return keys


def columns_table() -> Table:
    cols = Table.grid(padding=(0, 2))
    cols.add_column(style="bold", no_wrap=True)
    cols.add_column()
    for k, what in COLUMNS:
        cols.add_row(k, what)
    return cols


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help", classes="dialog"):
            yield Static(Text("sassview — keys", style="bold"))
            yield Static(help_table())
            yield Static(Text("\nSASS columns", style="bold"))
            yield Static(columns_table())
            yield Static(
                Text(
                    "\nLines are coloured by the source line they come from, in every pane. "
                    "Moving in one pane highlights the matching lines in the others; code inlined "
                    "from a call shows under the call's line too, and the bar at the bottom lists "
                    "every inline frame of the instruction under the cursor.",
                    style="dim",
                )
            )

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
