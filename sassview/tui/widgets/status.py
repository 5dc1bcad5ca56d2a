"""The line under the panes (what the cursor is on, inline frames included) and the error box."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from sassview.tui.loader import ErrorReport
from sassview.tui.state import KernelView


def _short(path: str) -> str:
    return Path(path).name


def row_info(view: KernelView, row: int) -> Text:
    """Address, instruction, every source frame (innermost first), PTX line, live, loop."""
    if not 0 <= row < len(view.sass):
        return Text("")
    r = view.sass[row]
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"/*{r.address:04x}*/ ", style="dim")
    out.append(r.mnemonic, style="bold")
    frames = view.frames(row)
    if frames:
        out.append("  ")
        for i, f in enumerate(frames):
            if i:
                out.append(" ← inlined at ", style="dim")
            out.append(f"{_short(f.file)}:{f.line}", style="cyan" if i == 0 else "")
    if r.ptx_line:
        out.append(f"  ptx {r.ptx_line}", style="dim")
    out.append(f"  live {r.live}/{view.live_scale}", style="dim")
    if r.depth:
        out.append(f"  loop depth {r.depth}", style="dim")
    return out


class InfoBar(Static):
    """One line; the app updates it after every cursor sync."""


class ErrorPanel(Static):
    """A compile error with its location; the last good listing stays below it."""

    def show(self, report: ErrorReport | None) -> None:
        if report is None:
            self.display = False
            return
        text = Text()
        if report.location:
            text.append(f"{report.location}: ", style="bold")
        text.append("error: ", style="bold red")
        text.append(report.message)
        if report.hint:
            text.append(f"\nhint: {report.hint}", style="dim")
        detail = [s for s in report.detail.splitlines() if s.strip()][:6]
        if detail:
            text.append("\n" + "\n".join(detail), style="dim")
        text.append(
            "\n(esc hides this; the listing below is the last one that compiled)",
            style="italic dim",
        )
        self.update(text)
        self.display = True
