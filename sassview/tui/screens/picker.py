"""Choose one of a few things: a kernel, an architecture, a variant, an IR stage."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


class PickerScreen(ModalScreen[str | None]):
    """Dismisses with the chosen option's id, or None on escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, options: Sequence[tuple[str, str]], current: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.options = list(options)  # (id, label)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker", classes="dialog"):
            yield Label(self.title_text)
            yield OptionList(*[Option(Text(label), id=key) for key, label in self.options])

    def on_mount(self) -> None:
        ids = [k for k, _ in self.options]
        if self.current in ids:
            self.query_one(OptionList).highlighted = ids.index(self.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
