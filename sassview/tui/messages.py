"""Messages up: what widgets and workers tell the app. Siblings never call each other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from threading import Event

    from textual.widget import Widget

    from sassview.tui.loader import ErrorReport, Loaded, Target
    from sassview.tui.state import KernelView


class CursorMoved(Message):
    """The user moved a listing's cursor (keys or mouse), not the app syncing it."""

    def __init__(self, listing: Widget, pane: str, row: int) -> None:
        super().__init__()
        self.listing = listing
        self.pane = pane  # "source", "ptx", "sass", or a stage name
        self.row = row


class FindingChosen(Message):
    """A finding was selected in the findings panel."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class Compiled(Message):
    """A worker finished loading; `view` is the kernel to show, already indexed."""

    def __init__(
        self, loaded: Loaded, view: KernelView, index: int, reason: str, target: Target
    ) -> None:
        super().__init__()
        self.target = target  # what was loaded (an arch switch loads a new one)
        self.loaded = loaded
        self.view = view
        self.index = index  # which of loaded.inspections `view` is
        self.reason = reason  # "open", "change", "arch", "manual"


class Previewed(Message):
    """A worker opening a file has its first kernel before the rest of the load (a cached
    model: `loader.previewing`); it waits for `painted` before it loads on."""

    def __init__(self, view: KernelView, seconds: float, painted: Event) -> None:
        super().__init__()
        self.view = view  # its inspection's Program is a stand-in until Compiled replaces it
        self.seconds = seconds  # since the load began: what the header says it took
        self.painted = painted


class CompileFailed(Message):
    def __init__(self, report: ErrorReport, reason: str) -> None:
        super().__init__()
        self.report = report
        self.reason = reason


class BorderDragged(Message):
    """The mouse holds a listing's left or right border at column `screen_x` of the screen;
    `done` when the button is released (the widths are then remembered)."""

    def __init__(self, pane: str, edge: str, screen_x: int, done: bool = False) -> None:
        super().__init__()
        self.pane = pane
        self.edge = edge  # "left" or "right"
        self.screen_x = screen_x
        self.done = done
