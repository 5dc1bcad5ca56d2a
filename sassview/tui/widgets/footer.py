"""Textual's footer, recomposed once for a burst of binding changes, and not for none.

Opening the app changes the screen's bindings three times within ~25 ms (the SASS pane's
focus, the screen's resume, an idle callback after the footer's own mount), and Textual's
Footer recomposes for each: it mounts its keys again, every one styled anew, during the first
paint. Here a burst makes one recompose, and one that would show the keys already shown is
skipped: the footer reads the same bindings (what each key shows) either way.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    _recompose_pending = False
    _composed: Hashable = None  # what the keys shown were made from

    def compose(self) -> ComposeResult:
        self._composed = self._shows()
        return super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_pending:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_pending = False
        if self._shows() != self._composed:
            await self.recompose()

    def _shows(self) -> Hashable:
        """Everything Footer.compose reads: the bindings shown and how."""
        if not self._bindings_ready:
            return None
        bindings = tuple(
            (key, b.key, b.action, b.description, b.show, b.group, enabled, tooltip)
            for key, (_, b, enabled, tooltip) in self.screen.active_bindings.items()
        )
        return (bindings, self.show_command_palette, self.compact)
