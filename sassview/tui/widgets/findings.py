"""Every finding of the kernel with its message and hint; choosing one jumps to it."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from sassview.analyses import Severity
from sassview.report.words import finding_counts
from sassview.tui.messages import FindingChosen
from sassview.tui.state import FindingView

_TAG = {Severity.WARNING: ("warn", "bold red"), Severity.NOTE: ("note", "yellow"),
        Severity.INFO: ("info", "cyan")}  # fmt: skip


def finding_prompt(f: FindingView) -> Text:
    tag, style = _TAG[f.severity]
    text = Text(no_wrap=False)
    text.append(f"{tag:<4} ", style=style)
    text.append(f"{f.annotation.kind}: ", style="bold")
    text.append(f.annotation.message)
    if f.annotation.hint:
        text.append(f"\n     hint: {f.annotation.hint}", style="dim")
    return text


class FindingsPanel(OptionList):
    """An OptionList: the list is short (tens of findings), unlike the listings."""

    def show(self, findings: tuple[FindingView, ...]) -> None:
        self.clear_options()
        self.set_class(not findings, "-empty")  # one line, no border (sassview.tcss)
        if not findings:
            self.add_option(Option(Text("no findings", style="dim"), disabled=True))
            self.border_title = Content("findings")  # not the previous kernel's count
            return
        self.add_options([Option(finding_prompt(f), id=str(i)) for i, f in enumerate(findings)])
        counts = finding_counts(f.severity.name.lower() for f in findings)
        self.border_title = Content(f"findings ({counts})")

    def select(self, index: int) -> None:
        """Follow `]`/`[` from the app without posting FindingChosen back."""
        with self.prevent(OptionList.OptionHighlighted):
            self.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(FindingChosen(int(event.option.id)))
