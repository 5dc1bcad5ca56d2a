"""sassview's terminal UI (Textual): `sassview PATH` or `sassview tui PATH`.

Importing this package is light; `run` imports Textual. The headless parts — what to load and
watch (`loader`), the view-model (`state`), which rows go together (`sync`), the opcode notes
(`opcode_help`) — import no Textual and are tested on their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sassview.gcpause import without_gc

if TYPE_CHECKING:
    from sassview.tui.app import SassviewApp
    from sassview.tui.loader import Target


def run(target: Target) -> None:
    """Open the app on `target` and return when the user quits."""
    open_app(target).run()


def open_app(target: Target, *, watch: bool = True) -> SassviewApp:
    """The app on `target`, whose load has begun before Textual is imported (loader.Opening:
    the cache's reads and digests run beside the import)."""
    from sassview.tui.loader import Opening

    opening = Opening(target)
    return app_class()(target, watch=watch, opening=opening)


# Textual's modules make ~75k objects as they are imported, which the collector would rescan
# in young and middle collections as they come (12-15 ms of the ~200 ms import, measured), and
# then again as they age. Paused, then aged at once (gcpause.without_gc).
@without_gc
def app_class() -> type[SassviewApp]:
    """The app's class, imported with the collector paused."""
    from sassview.tui.app import SassviewApp

    return SassviewApp


__all__ = ["app_class", "open_app", "run"]
