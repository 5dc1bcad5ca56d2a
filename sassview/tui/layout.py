"""How wide each pane is: balanced by what its lines need, resized by the user, remembered.

No Textual here. A pane's *want* is the width that shows its useful lines whole: the lines that
carry code (source lines that made instructions, PTX lines with a source location, every SASS
instruction), at their 90th percentile length so that one long comment or a 200-character
`.param` list does not claim the screen, capped at `MAX_CODE`. `balance` gives each pane a floor
(its gutter and a little code, more for SASS), then the rest to the panes whose lines are still
cut, in proportion to what they lack: at 200 columns 05_wgmma_tma.cu's source pane shows 57
columns of code where an even 1:1:2 split showed 39, and the SASS pane keeps what its
instructions use.

The user's own widths (`<` `>` on the focused pane, or a border dragged with the mouse) are kept
per terminal width in `tui.json` in the user's config directory: the split that suits 200
columns is rarely the one that suits 120.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

if TYPE_CHECKING:
    from sassview.tui.state import KernelView

CHROME = 3  # the two border columns and the scrollbar
MIN_PANE = 16  # narrower than this a pane shows its gutter and little else
MAX_CODE = 120  # no pane asks for more code columns than this
MIN_CODE = {"source": 20, "ptx": 20, "sass": 32}  # the SASS pane is what the window is for
STEP = 4  # columns one `<` or `>` moves
SAMPLE = 4096  # lines measured per pane (a 100k-instruction kernel is sampled)
FORMAT = 1  # the version of tui.json's layout
T = TypeVar("T")


class Want(NamedTuple):
    """What a pane asks for, in cells with its border: `full` shows its useful lines whole,
    `floor` its gutter and a little code (below it the pane is worth little)."""

    floor: int
    full: int


def want(gutter: int, lengths: Iterable[int], min_code: int) -> Want:
    """The pane's want for lines of these `lengths` after a `gutter` of cells."""
    ordered = sorted(n for n in lengths if n > 0)
    code = ordered[(len(ordered) - 1) * 9 // 10] if ordered else 0
    floor = max(MIN_PANE, gutter + min_code + CHROME)
    return Want(floor, max(floor, gutter + min(code, MAX_CODE) + CHROME))


def balance(total: int, wants: Mapping[str, Want]) -> dict[str, int]:
    """Share `total` columns out: every pane its floor, then what is left in proportion to
    what each still needs to show its lines whole; when all fit, the spare columns in
    proportion to the wants. Too narrow for the floors: in proportion to them."""
    if not wants:
        return {}
    floors = {p: w.floor for p, w in wants.items()}
    spare = total - sum(floors.values())
    if spare <= 0:
        return _shares(total, floors)
    needs = {p: w.full - w.floor for p, w in wants.items()}
    if sum(needs.values()) >= spare:
        extra = _shares(spare, needs)
        return {p: floors[p] + extra[p] for p in wants}
    return _shares(total, {p: w.full for p, w in wants.items()})


def _shares(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """`total` split in proportion to `weights`, rounded so that the parts add up to it."""
    whole = sum(weights.values())
    if whole <= 0:
        return dict.fromkeys(weights, total // max(len(weights), 1))
    exact = {p: total * w / whole for p, w in weights.items()}
    out = {p: int(x) for p, x in exact.items()}
    for p in sorted(exact, key=lambda p: out[p] - exact[p])[: total - sum(out.values())]:
        out[p] += 1
    return out


def sample(values: Sequence[T]) -> list[T]:
    """At most SAMPLE of `values`, evenly spread (a percentile does not need them all)."""
    step = max(1, len(values) // SAMPLE)
    return list(values[::step])


def wants(view: KernelView, gutters: Mapping[str, int]) -> dict[str, Want]:
    """Each pane's want for this kernel, its painter's gutter included (`gutters` by pane)."""
    main, source_lines, ptx_lines = view.main_file, view.source_lines, view.ptx_lines
    # The lines that made code, in order: from the index's keys (a source has 10^4 lines).
    made = sorted(
        line for f, line in view.sass_for_line if f == main and 0 < line <= len(source_lines)
    )
    source = [source_lines[line - 1] for line in made] or list(source_lines)
    n = len(ptx_lines)
    ptx = [ptx_lines[k - 1] for k in sample([k for k in sorted(view.ptx_home) if 0 < k <= n])]
    sass = view.sass.sample_texts(max(1, len(view.sass) // SAMPLE))  # what `sample` takes
    lines = {
        "source": (len(s.expandtabs(4)) for s in sample(source)),
        "ptx": (len(s.expandtabs(8)) for s in (ptx or sample(ptx_lines))),
        "sass": (len(s) for s in sass),
    }
    return {p: want(gutters.get(p, 0), lines[p], MIN_CODE[p]) for p in lines}


def resized(
    widths: Mapping[str, int], pane: str, delta: int, minimum: int = MIN_PANE
) -> dict[str, int]:
    """`pane` `delta` columns wider (narrower when negative); the total stays the same. The
    columns come from the widest other pane, one at a time (and go to the narrowest), so the
    others stay as even as they were; no pane goes below `minimum`."""
    others = [p for p in widths if p != pane]
    out = dict(widths)
    if not others:
        return out
    if delta > 0:
        delta = min(delta, sum(max(0, widths[p] - minimum) for p in others))
    else:
        delta = -min(-delta, max(0, widths[pane] - minimum))
    for _ in range(abs(delta)):
        if delta > 0:
            out[max(others, key=lambda p: out[p])] -= 1
        else:
            out[min(others, key=lambda p: out[p])] += 1
    out[pane] += delta
    return out


def dragged(
    widths: Mapping[str, int], left: str, right: str, left_width: int, minimum: int = MIN_PANE
) -> dict[str, int]:
    """The border between two neighbours moved: `left` is now `left_width` wide, `right` takes
    the rest of what the two had; the other panes keep theirs."""
    pair = widths[left] + widths[right]
    new_left = max(minimum, min(left_width, pair - minimum))
    out = dict(widths)
    out[left], out[right] = new_left, pair - new_left
    return out


def config_dir() -> Path:
    """Where sassview keeps what the user chose: $SASSVIEW_CONFIG_DIR, else the platform's."""
    env = os.environ.get("SASSVIEW_CONFIG_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("sassview"))


class WidthMemory:
    """The pane widths the user chose, by terminal width, in a small JSON file written through a
    temporary file and `os.replace` (two sassview windows closing at once leave one whole file).
    A file that cannot be read is as good as none: widths are a convenience, never an error."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / "tui.json"

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, terminal_width: int) -> dict[str, int] | None:
        data = self._read()
        widths = data.get("pane_widths")
        if not isinstance(widths, dict) or data.get("format") != FORMAT:
            return None
        chosen = widths.get(str(terminal_width))
        if not isinstance(chosen, dict):
            return None
        out = {k: v for k, v in chosen.items() if isinstance(v, int) and v > 0}
        return out or None

    def put(self, terminal_width: int, widths: Mapping[str, int] | None) -> bool:
        """Remember `widths` for `terminal_width` (None forgets them); False when the file
        could not be written (a read-only home): the widths then last as long as the window."""
        data = self._read()
        if data.get("format") != FORMAT:
            data = {"format": FORMAT}
        table = data.get("pane_widths")
        table = dict(table) if isinstance(table, dict) else {}
        if widths is None:
            table.pop(str(terminal_width), None)
        else:
            table[str(terminal_width)] = dict(widths)
        data["pane_widths"] = table
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tui-", suffix=".json", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(data, f, indent=1, sort_keys=True)
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return False
        return True
