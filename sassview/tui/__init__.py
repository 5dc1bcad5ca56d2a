"""sassview's terminal UI (Textual): `sassview PATH` or `sassview tui PATH`.

Importing this package is light; `run` imports Textual. The headless parts — what to load and
watch (`loader`), the view-model (`state`), which rows go together (`sync`), the opcode notes
(`opcode_help`) — import no Textual and are tested on their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sassview.tui.loader import Target


def run(target: Target) -> None:
    """Open the app on `target` and return when the user quits."""
    from sassview.tui.app import SassviewApp

    SassviewApp(target).run()


__all__ = ["run"]
