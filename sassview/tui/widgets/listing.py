"""A read-only listing of any length: a ScrollView on the Line API, as Toolong draws its logs.

`render_line(y)` paints one row from the painter; painted rows are kept in an LRU of strips
keyed by (row, how the row is marked), so scrolling back costs a lookup and moving the cursor
repaints two lines. The widget knows nothing of SASS or source files: the app sets `marks`
(rows related to another pane's cursor), `body` (a loop body) and `matches` (search hits) —
attributes down — and the widget posts `CursorMoved` when the *user* moves its cursor —
messages up. Nothing here is a TextArea: its highlighter maps the whole document up front.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sassview.tui.messages import BorderDragged, CursorMoved
from sassview.tui.paint import Painter, Palette

_CURSOR, _MARK, _REGION, _MATCH, _ERROR = 1, 2, 4, 8, 16
STRIP_CACHE_ROWS = 2048


class Listing(ScrollView, can_focus=True):
    """Rows from a Painter, a cursor, and three kinds of row marks."""

    COMPONENT_CLASSES = {
        "listing--cursor",
        "listing--cursor-blur",
        "listing--mark",
        "listing--region",
        "listing--match",
        "listing--error",
        "listing--gutter",
        "listing--dim",
    }
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False),
        Binding("pagedown,ctrl+f,space", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("left", "pan(-8)", "Left", show=False),
        Binding("right", "pan(8)", "Right", show=False),
    ]

    def __init__(self, pane: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.pane = pane
        self.painter: Painter | None = None
        self.cursor = 0
        self.marks: frozenset[int] = frozenset()
        self.body: frozenset[int] = frozenset()
        self.matches: frozenset[int] = frozenset()
        self.errors: frozenset[int] = frozenset()
        self.tints = True
        self._cache: LRUCache[tuple[int, int], Strip] = LRUCache(STRIP_CACHE_ROWS)
        self._palette: Palette | None = None
        self._strong: Palette | None = None  # the palette of highlighted rows
        self._overlays: dict[tuple[str, ...], Style] = {}
        self._painted_look: tuple[object, ...] | None = None  # what the palette was made of
        self._shows = 0  # show_rows calls, so a deferred one yields to a later one
        self._pending: tuple[int, list[int], bool, bool] | None = None
        self._height = 0  # the rows in view at the last resize
        self.first_paint: float | None = None  # perf_counter() of the first painted row
        self._dragging: str | None = None  # "left" or "right": the border the mouse holds
        self._dragged = False  # the click that ends a drag is no click on a row

    # -- what the app sets -------------------------------------------------------------------

    @property
    def code_column(self) -> int:
        """Cells before the code in each row (0 with no painter); `gutter` is Textual's."""
        return self.painter.gutter if self.painter is not None else 0

    def set_painter(self, painter: Painter | None, cursor: int = 0) -> None:
        """New rows (a new kernel, a recompile): drop every cached strip."""
        self.painter = painter
        self._cache.clear()
        self.marks = self.body = self.matches = self.errors = frozenset()
        self.virtual_size = Size(
            painter.width + 1 if painter else 0, len(painter) if painter else 0
        )
        self.cursor = self._clamp(cursor)
        self.refresh()
        if painter is not None and len(painter):  # not where the last rows were scrolled to
            self.show_rows([self.cursor])

    def set_marks(
        self,
        marks: Iterable[int] = (),
        *,
        body: Iterable[int] | None = None,
        show: bool = True,
    ) -> None:
        """Mark rows related to the cursor elsewhere; bring them into view when none shows."""
        self.marks = frozenset(marks)
        if body is not None:
            self.body = frozenset(body)
        self.refresh()
        if show and self.marks:
            self.show_rows(sorted(self.marks))

    def set_matches(self, rows: Iterable[int]) -> None:
        self.matches = frozenset(rows)
        self.refresh()

    def set_errors(self, rows: Iterable[int]) -> None:
        self.errors = frozenset(rows)
        self.refresh()

    def move_cursor(self, row: int, *, notify: bool = False, center: bool = False) -> None:
        """Put the cursor on `row` and scroll to it; `notify` tells the app (a user's move)."""
        if self.painter is None or not len(self.painter):
            return
        old, self.cursor = self.cursor, self._clamp(row)
        self._refresh_row(old)
        self._refresh_row(self.cursor)
        self.show_rows([self.cursor], center=center)
        if notify:
            self.post_message(CursorMoved(self, self.pane, self.cursor))

    def show_rows(self, rows: list[int], *, center: bool = False, at_top: bool = False) -> None:
        """Scroll so the first of `rows` is visible (and as many of the rest as fit). `at_top`
        puts the first at the top, or shows the last when they do not all fit: a kernel's
        code from its start, and the cursor in it."""
        if not rows:
            return
        self._shows += 1
        if not self.scrollable_content_region.height:  # hidden, or not laid out yet
            self._pending = (self._shows, rows, center, at_top)  # done on the next resize
            return
        top, height = round(self.scroll_offset.y), max(self.scrollable_content_region.height, 1)
        first, last = rows[0], rows[-1]
        if at_top:
            self._scroll_y(first if last - first < height else last - height // 3)
            return
        if not center and top <= first and last < top + height:
            return
        if not center and top <= first < top + height:
            return
        if last - first < height and not center:
            y = first - max(0, (height - (last - first + 1)) // 2)
        else:
            y = first - height // 3
        self._scroll_y(y)

    def _scroll_y(self, y: int) -> None:
        """Scroll now, even before a layout has seen new rows: `force`, because the scrollbar
        Textual decides scrolling by is laid out after `virtual_size` changes (a kernel that
        loads in a worker would open scrolled to the top). The offset is still clamped."""
        self.scroll_to(y=max(0, y), animate=False, immediate=True, force=True)

    def on_resize(self) -> None:
        """Shown or laid out at last: scroll to what was asked while it had no height. A pane
        that shrank (an error panel above it, a smaller terminal) keeps a cursor that was in
        view in view."""
        pending, self._pending = self._pending, None
        height = self.scrollable_content_region.height
        was, self._height = self._height, height
        if pending is not None and pending[0] == self._shows and height:
            self.show_rows(pending[1], center=pending[2], at_top=pending[3])
        elif height and self.painter is not None and len(self.painter):
            top = round(self.scroll_offset.y)
            if top <= self.cursor < top + was and not top <= self.cursor < top + height:
                self.show_rows([self.cursor])

    def clear_cache(self) -> None:
        self._cache.clear()
        self._palette = None
        self._overlays = {}
        self.refresh()

    # -- actions ----------------------------------------------------------------------------

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta, notify=True)

    def action_page(self, direction: int) -> None:
        height = max(self.scrollable_content_region.height - 1, 1)
        self.scroll_to(
            y=max(0, self.scroll_offset.y + direction * height), animate=False, immediate=True
        )
        self.move_cursor(self.cursor + direction * height, notify=True)

    def action_pan(self, columns: int) -> None:
        self.scroll_to(x=max(0, self.scroll_offset.x + columns), animate=False, immediate=True)

    def action_jump(self, row: int) -> None:
        if self.painter is not None:
            self.move_cursor(row if row >= 0 else len(self.painter) - 1, notify=True)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A press on the left or right border column starts dragging it (messages up: the
        app moves the border); anywhere else it is a click."""
        edge = "left" if event.x == 0 else "right" if event.x == self.outer_size.width - 1 else None
        if edge is not None and event.button == 1:
            self._dragging, self._dragged = edge, True
            self.capture_mouse()
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging is not None:
            self.post_message(BorderDragged(self.pane, self._dragging, event.screen_x))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging is not None:
            edge, self._dragging = self._dragging, None
            self.release_mouse()
            self.post_message(BorderDragged(self.pane, edge, event.screen_x, done=True))

    def on_click(self, event: events.Click) -> None:
        if self._dragged:
            self._dragged = False
            return
        inside = event.get_content_offset(self)  # event.y counts the border row
        if inside is None:
            return
        row = round(self.scroll_offset.y) + inside.y
        if self.painter is not None and 0 <= row < len(self.painter):
            self.move_cursor(row, notify=True)

    def on_focus(self) -> None:
        self._refresh_row(self.cursor)

    def on_blur(self) -> None:
        self._refresh_row(self.cursor)

    def notify_style_update(self) -> None:
        """The theme or CSS changed: cached strips with stale colours go. A change that
        leaves every colour a row is painted with as it was keeps them: focus moving changes
        only the border, and Tab repainted every row of both panes."""
        super().notify_style_update()
        if self._palette is not None and len(self._cache):
            look = self._look()
            if look is not None and look == self._painted_look:
                return
        self._cache.clear()
        self._palette = None
        self._overlays = {}
        self._painted_look = None

    def _look(self) -> tuple[object, ...] | None:
        """What the rows' colours are made of: the palette's and the overlays' sources (None
        before the stylesheet has styled the components)."""
        dark = self.app.current_theme.dark if self.is_attached else True
        parts = sorted(self.COMPONENT_CLASSES)
        try:
            self.get_component_styles(*parts)
        except KeyError:
            return None
        return (
            dark,
            self.rich_style,
            self.background_colors,
            *(self.get_component_rich_style(name) for name in parts),
            *(self.get_component_styles(name).background for name in parts),
            *(str(self.get_component_styles(name).text_style) for name in parts),
        )

    # -- painting ---------------------------------------------------------------------------

    def _clamp(self, row: int) -> int:
        n = len(self.painter) if self.painter is not None else 0
        return max(0, min(row, n - 1)) if n else 0

    def _refresh_row(self, row: int) -> None:
        self.refresh(Region(0, row - round(self.scroll_offset.y), self.size.width, 1))

    def palette(self, strong: bool = False) -> Palette:
        """The theme's styles; `strong` for a highlighted row, where the muted gutter (line
        numbers, addresses) would fade into the highlight: it takes the text's colour there,
        and the dim columns the gutter's. The colours are the components' full styles, not
        partial ones: a partial `auto 60%` has no background to contrast with and comes out
        white, which on the light theme's background could not be read at all."""
        if self._palette is None:
            dark = self.app.current_theme.dark if self.is_attached else True
            base = self.rich_style
            gutter = self.get_component_rich_style("listing--gutter")
            dim = self.get_component_rich_style("listing--dim")
            self._palette = Palette(dark=dark, base=base, gutter=gutter, dim=dim, tints=self.tints)
            self._strong = Palette(dark=dark, base=base, gutter=base, dim=gutter, tints=self.tints)
            self._painted_look = self._look()  # what the strips about to be cached are made of
        return self._strong if strong and self._strong is not None else self._palette

    def _state(self, row: int) -> int:
        state = 0
        if row == self.cursor:
            state |= _CURSOR
        if row in self.marks:
            state |= _MARK
        if row in self.body:
            state |= _REGION
        if row in self.matches:
            state |= _MATCH
        if row in self.errors:
            state |= _ERROR
        return state

    def _overlay(self, state: int) -> Style | None:
        """The background a row's marks give it; the cursor wins, then errors, then marks."""
        names: list[str] = []
        if state & _REGION:
            names.append("listing--region")
        if state & _MARK:
            names.append("listing--mark")
        if state & _MATCH:
            names.append("listing--match")
        if state & _ERROR:
            names.append("listing--error")
        if state & _CURSOR:
            names.append("listing--cursor" if self.has_focus else "listing--cursor-blur")
        if not names:
            return None
        key = tuple(names)
        style = self._overlays.get(key)
        if style is None:
            # Blend each mark's (translucent) background over the widget's own, in order:
            # Rich styles have no alpha, so `$accent 20%` must be mixed here.
            _, bg = self.background_colors
            bold = False
            for name in names:
                part = self.get_component_styles(name)
                bg = bg + part.background
                bold = bold or "bold" in str(part.text_style)
            style = self._overlays[key] = Style(bgcolor=bg.rich_color, bold=bold or None)
        return style

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        palette = self.palette()
        if self.painter is None or row >= len(self.painter):
            return Strip.blank(width, palette.base)
        state = self._state(row)
        if state & _CURSOR and self.has_focus:
            state |= 32  # focused and blurred cursors are painted differently
        key = (row, state)
        strip = self._cache.get(key)
        if strip is None:
            overlay = self._overlay(state)
            segs = self.painter.segments(row, self.palette(strong=overlay is not None))
            pad = palette.base
            if overlay is not None:  # marks paint over the line's tint; the code keeps its colours
                segs = list(Segment.apply_style(segs, post_style=overlay))
                pad = pad + overlay
            # Painters emit one cell per character (code, box and bar glyphs), except the
            # source file, which may hold wide characters: measuring is the slow part here.
            cells = sum(len(s.text) for s in segs) if self.painter.narrow else None
            strip = Strip(segs, cells).extend_cell_length(self.virtual_size.width, pad)
            self._cache[key] = strip
            if self.first_paint is None:
                self.first_paint = time.perf_counter()
        return strip.crop_extend(scroll_x, scroll_x + width, palette.base)
