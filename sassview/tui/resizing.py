"""The app's pane widths: balanced by content at each new kernel, `<` `>` `=` and the mouse on a
border to change them, and the user's choice remembered per terminal width (`layout`).

A base class of the app, like `navigation.py`. Widths are set as `fr` weights equal to the
panes' widths in cells: Textual then shares out exactly those cells, shares a hidden pane's
columns among the others in the same proportions, and rescales when the terminal is resized.
"""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding
from textual.css.scalar import Scalar, Unit

from sassview.tui import layout, sync
from sassview.tui.messages import BorderDragged
from sassview.tui.widgets.listing import Listing


class ResizingApp(App[None]):
    """What resizing needs from the app (app.py provides it), and the actions."""

    BINDINGS = [
        Binding("less_than_sign", "resize(-1)", "Narrower", show=False),
        Binding("greater_than_sign", "resize(1)", "Wider", show=False),
        Binding("equals_sign", "balance", "Balance", show=False),
    ]
    width_memory: layout.WidthMemory
    wants: dict[str, layout.Want] = {}  # noqa: RUF012 - replaced, never mutated

    def pane(self, name: str) -> Listing:
        raise NotImplementedError

    def focused_pane(self) -> str:
        raise NotImplementedError

    def shown_panes(self) -> list[str]:
        return [p for p in sync.PANES if self.pane(p).display]

    def pane_widths(self) -> dict[str, int]:
        """The shown panes' widths in cells, as laid out now."""
        return {p: self.pane(p).outer_size.width for p in self.shown_panes()}

    def balance_panes(self, wants: dict[str, layout.Want]) -> None:
        """A new kernel: its panes' wants, unless the user chose widths at this terminal width."""
        self.wants = wants
        self.apply_widths()

    def apply_widths(self) -> None:
        """The widths the user chose at this terminal width, else balanced by the wants."""
        shown = self.shown_panes()
        chosen = self.width_memory.get(self.size.width) or {}
        if shown and all(p in chosen for p in shown):
            self._set_weights({p: chosen[p] for p in shown})
        else:
            wants = {p: self.wants[p] for p in shown if p in self.wants}
            self._set_weights(layout.balance(self.size.width, wants))

    def _set_weights(self, weights: dict[str, int]) -> None:
        for p, weight in weights.items():
            self.pane(p).styles.width = Scalar(float(weight), Unit.FRACTION, Unit.WIDTH)

    def _choose_widths(self, widths: dict[str, int], *, save: bool = True) -> None:
        """The user's widths: set now, remembered for this terminal width when `save` (with
        those of the panes hidden now, as they were chosen)."""
        self._set_weights(widths)
        chosen = {**(self.width_memory.get(self.size.width) or {}), **widths}
        if save and not self.width_memory.put(self.size.width, chosen):
            self.notify(
                f"pane widths not remembered: cannot write {self.width_memory.path}",
                severity="warning",
                timeout=4,
                markup=False,
            )

    def action_resize(self, direction: int) -> None:
        """`>` widens the focused pane by a few columns, `<` narrows it; the others make room."""
        widths = self.pane_widths()
        pane = self.focused_pane()
        if len(widths) < 2 or pane not in widths or self.screen.maximized is not None:
            self.notify("one pane on screen: nothing to resize", timeout=3, markup=False)
            return
        self._choose_widths(layout.resized(widths, pane, direction * layout.STEP))

    def action_balance(self) -> None:
        """`=`: forget the widths chosen at this terminal width; balance by content again."""
        self.width_memory.put(self.size.width, None)
        self.apply_widths()
        self.notify("panes sized by their lines", timeout=2, markup=False)

    def on_border_dragged(self, message: BorderDragged) -> None:
        """The mouse moved a pane's border: the two panes either side of it change."""
        shown = self.shown_panes()
        if message.pane not in shown or self.screen.maximized is not None:
            return
        i = shown.index(message.pane) + (0 if message.edge == "right" else -1)
        if not 0 <= i < len(shown) - 1:
            return  # the screen's own edge
        left, right = shown[i], shown[i + 1]
        x0 = self.pane(left).region.x
        # The grabbed column follows the mouse: the left pane's last or the right pane's first.
        width = message.screen_x - x0 + (1 if message.edge == "right" else 0)
        widths = layout.dragged(self.pane_widths(), left, right, width)
        self._choose_widths(widths, save=message.done)
