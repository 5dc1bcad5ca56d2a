"""Which rows of the other panes go with the cursor's row: the correspondence, as pane rows.

Pure functions of a KernelView, so behaviour tests can check them without an app, and the
app's message handler stays a few lines. Rows are 0-based in every pane; source and PTX lines
are 1-based in the model.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from sassview.tui.state import KernelView, LineKey

PANES = ("source", "ptx", "sass")


@dataclass(frozen=True)
class Related:
    """Rows to mark in each pane (the pane the cursor is in gets its own row)."""

    source: tuple[int, ...] = ()
    ptx: tuple[int, ...] = ()
    sass: tuple[int, ...] = ()

    def rows(self, pane: str) -> tuple[int, ...]:
        return getattr(self, pane) if pane in PANES else ()


def _source_rows(view: KernelView, key: LineKey | None) -> tuple[int, ...]:
    if key is None or key[0] != view.main_file or not view.source_lines:
        return ()
    return (key[1] - 1,) if 0 < key[1] <= len(view.source_lines) else ()


def from_source(view: KernelView, row: int) -> Related:
    """A source line: its PTX lines and its SASS instructions, inlined copies included."""
    key = (view.main_file or "", row + 1)
    ptx = tuple(p - 1 for p in view.ptx_for_line.get(key, ()))
    return Related(source=(row,), ptx=ptx, sass=tuple(view.sass_for_line.get(key, ())))


def from_ptx(view: KernelView, row: int) -> Related:
    """A PTX line: the SASS the cubin maps to it, and its source line."""
    line = row + 1
    return Related(
        source=_source_rows(view, view.ptx_home.get(line)),
        ptx=(row,),
        sass=tuple(view.sass_for_ptx.get(line, ())),
    )


def from_sass(view: KernelView, row: int) -> Related:
    """A SASS instruction: its PTX line and its source line (the frame in the shown file)."""
    if not 0 <= row < len(view.sass):
        return Related()
    r = view.sass[row]
    return Related(
        source=_source_rows(view, r.home),
        ptx=(r.ptx_line - 1,) if r.ptx_line and r.ptx_line <= len(view.ptx_lines) else (),
        sass=(row,),
    )


FROM = {"source": from_source, "ptx": from_ptx, "sass": from_sass}


def cursors(view: KernelView, pane: str, row: int, selected: int) -> dict[str, int]:
    """Where every pane's cursor goes when `pane`'s moves to `row`, `selected` being the SASS
    row selected before: one instruction is the selection and every cursor sits on its lines.

    A source or PTX move selects the first of its instructions, unless the selection already
    is one of them (a second PTX line of the same instruction keeps it); a line without code
    keeps the selection. The panes without an entry keep their cursor where it is."""
    related = FROM[pane](view, row)
    out = {pane: row}
    if pane != "sass" and related.sass:
        out["sass"] = selected if selected in related.sass else related.sass[0]
    chosen = from_sass(view, out["sass"]) if "sass" in out else Related()
    for other in PANES:
        rows = chosen.rows(other) or related.rows(other)
        if other not in out and rows:
            out[other] = rows[0]
    return out


def source_line_of(view: KernelView, pane: str, row: int) -> int | None:
    """The 1-based line in the shown source file that a pane's row belongs to."""
    if pane == "source":
        return row + 1
    rows = FROM[pane](view, row).source if pane in FROM else ()
    return rows[0] + 1 if rows else None


def search(text_of: Callable[[int], str], count: int, pattern: str) -> list[int]:
    """Rows whose text matches the regex (case-insensitive unless it has a capital letter);
    raises re.error for a bad pattern."""
    flags = 0 if any(c.isupper() for c in pattern) else re.IGNORECASE
    rx = re.compile(pattern, flags)
    return [i for i in range(count) if rx.search(text_of(i))]


def next_index(items: list[int], current: int, step: int) -> int | None:
    """The next (step 1) or previous (step -1) item after `current` in a sorted list, wrapping."""
    if not items:
        return None
    if step > 0:
        i = bisect_right(items, current)
        return items[i % len(items)]
    i = bisect_right(items, current - 1) - 1
    return items[i]  # -1 wraps to the last


def row_for_address(view: KernelView, address: int) -> int | None:
    """The instruction at `address`, or the last one before it (an address inside a row)."""
    if not view.sass:
        return None
    if address in view.row_of:
        return view.row_of[address]
    addrs = [r.address for r in view.sass]
    i = bisect_right(addrs, address) - 1
    return max(i, 0)


def parse_address(text: str) -> int | None:
    """`0x1f0`, `1f0`, `/*01f0*/` -> 0x1f0."""
    t = text.strip().strip("/*").removeprefix("0x").removeprefix("0X")
    try:
        return int(t, 16)
    except ValueError:
        return None
