"""Rows to Rich segments: what each listing line looks like before the cursor is drawn on it.

A painter turns row *i* of a KernelView into segments — gutter columns, the line's source
colour, then the code coloured by the same Pygments lexers the exporters use. Lines are lexed
only when first painted (the Listing caches the result), so opening a 100k-instruction kernel
lexes one screenful. The source file, whose comments and strings span lines, is lexed as one
text, as far as it is read, and checked in the background (sassview.tui.lexing).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Protocol

from pygments.lexer import Lexer
from pygments.lexers.special import TextLexer
from pygments.styles import get_style_by_name
from pygments.token import _TokenType
from rich.color import Color
from rich.segment import Segment
from rich.style import Style

from sassview.analyses.records import BankFacts, CoalescingFacts
from sassview.lexers import NvPtxLexer, NvSassLexer
from sassview.memo import Memo, memoized
from sassview.tui.lexing import LexedLines
from sassview.tui.state import KernelView, LineKey

# Compiler Explorer-style line colours: distinct hues, stable per source line (line % len).
LINE_HUES = (
    "#e06c75", "#e5c07b", "#98c379", "#56b6c2", "#61afef", "#c678dd", "#d19a66", "#be5046",
)  # fmt: skip
_BAR = " ▏▎▍▌▋▊▉█"
BAR_CELLS = 4


class Palette:
    """Final styles for one theme and one widget: every style a painter hands out already
    includes the widget's own (colours and background), so a row that carries no cursor or
    mark becomes a strip with no style arithmetic at all. Rebuilt when the theme changes."""

    def __init__(
        self, *, dark: bool, base: Style, gutter: Style, dim: Style, tints: bool = True
    ) -> None:
        self.dark = dark
        self.base = base
        self.gutter = base + gutter
        self.dim = base + dim
        self.tints = tints  # tint each line's background with its source line's colour
        bg = base.bgcolor.get_truecolor() if base.bgcolor else ((0, 0, 0) if dark else (255,) * 3)
        self._bg = (bg[0], bg[1], bg[2])
        self._alpha = 0.12 if dark else 0.16
        self._py_style = get_style_by_name("monokai" if dark else "default")
        self._tokens: dict[tuple[_TokenType, str | None], Style] = {}
        self._plain: dict[str, Style] = {}

    def _token(self, ttype: _TokenType) -> Style:
        spec = self._py_style.style_for_token(ttype)
        return Style(
            color=f"#{spec['color']}" if spec["color"] else None,
            bold=spec["bold"] or None,
            italic=spec["italic"] or None,
        )

    def code(self, ttype: _TokenType, key: LineKey | None) -> Style:
        """A token's style on a line of source line `key` (tinted by its colour)."""
        hue = _hue(key) if key is not None and self.tints else None
        style = self._tokens.get((ttype, hue))
        if style is None:
            style = self.base + self._token(ttype)
            if hue is not None:
                style += _tint(hue, self._bg, self._alpha)
            self._tokens[(ttype, hue)] = style
        return style

    def plain(self, spec: str) -> Style:
        """A style given as text (`bold red`, `#e06c75`), on the widget's own."""
        style = self._plain.get(spec)
        if style is None:
            style = self._plain[spec] = self.base + Style.parse(spec)
        return style

    def block(self, key: LineKey | None) -> Style:
        """The gutter block in the line's colour."""
        return self.plain(_hue(key)) if key is not None else self.dim

    def lex(self, lexer: Lexer, text: str, key: LineKey | None) -> list[Segment]:
        code = self.code
        return [Segment(v, code(t, key)) for _, t, v in lexer.get_tokens_unprocessed(text) if v]


def _hue(key: LineKey) -> str:
    return LINE_HUES[key[1] % len(LINE_HUES)]


@memoized(256)
def _tint(hue: str, bg: tuple[int, int, int], alpha: float) -> Style:
    c = Color.parse(hue).get_truecolor()
    mix = tuple(round(b + (h - b) * alpha) for h, b in zip(c, bg, strict=True))
    return Style(bgcolor=Color.from_rgb(*mix))


class Painter(Protocol):
    """What a Listing needs from its rows."""

    def __len__(self) -> int: ...

    @property
    def width(self) -> int: ...

    @property
    def gutter(self) -> int:
        """Cells before the code: line numbers, bars, columns."""
        ...

    def segments(self, row: int, palette: Palette) -> list[Segment]: ...

    def plain(self, row: int) -> str: ...

    @property
    def narrow(self) -> bool:
        """True when every character is one cell wide (no CJK, no emoji)."""
        ...


class TextPainter:
    """Plain numbered lines with one lexer: Triton's TTIR/TTGIR/LLIR, or any text."""

    narrow = False

    def __init__(self, lines: Sequence[str], lexer: Lexer | None = None) -> None:
        self.lines = lines
        self.lexer = lexer or TextLexer()
        self.digits = len(str(len(lines)))
        self.gutter = self.digits + 2
        self.width = self.gutter + max((len(s) for s in lines), default=0)

    def __len__(self) -> int:
        return len(self.lines)

    def plain(self, row: int) -> str:
        return self.lines[row]

    def segments(self, row: int, palette: Palette) -> list[Segment]:
        head = Segment(f"{row + 1:>{self.digits}}  ", palette.gutter)
        # Lexed with its newline: line-based lexers (DiffLexer: `^-.*\n` is a deletion) make
        # every character an Error token without it, all one colour.
        body = palette.lex(self.lexer, self.lines[row].expandtabs(8) + "\n", None)
        if body and body[-1].text.endswith("\n"):
            body[-1] = Segment(body[-1].text[:-1], body[-1].style)
        return [head, *(s for s in body if s.text)]


class SourcePainter:
    """The source file: line number, how many SASS instructions the line made, the code."""

    narrow = False

    def __init__(self, view: KernelView, lexed: LexedLines | None = None) -> None:
        """`lexed`: the tokens of another view of the same file and text (another kernel)."""
        self.view = view
        self.file = view.main_file or ""
        self.lines = view.source_lines or ((view.source_note,) if view.source_note else ())
        self.digits = max(2, len(str(len(self.lines))))
        self.gutter = self.digits + 5  # number, bar, instruction count
        self.width = self.gutter + max((len(s.expandtabs(4)) for s in self.lines), default=0)
        self._tokens: LexedLines | None = lexed

    def __len__(self) -> int:
        return len(self.lines)

    def key(self, row: int) -> LineKey | None:
        return (self.file, row + 1) if self.view.source_lines else None

    def plain(self, row: int) -> str:
        return self.lines[row]

    def count(self, row: int) -> int:
        key = self.key(row)
        return len(self.view.sass_for_line.get(key, ())) if key else 0

    def _lexed(self) -> LexedLines:
        if self._tokens is None:
            self._tokens = LexedLines(self.file, "\n".join(self.lines))
        return self._tokens

    @property
    def lexing(self) -> bool:
        """Whether lines are left to lex (and lines read ahead to check): `lex_ahead`."""
        return bool(self.view.source_lines) and not self._lexed().done

    def shares(self, view: KernelView) -> LexedLines | None:
        """This painter's tokens, when `view` shows the same file with the same text."""
        same = view.main_file == self.view.main_file and view.source_lines == self.view.source_lines
        return self._tokens if same and view.source_lines else None

    def lex_ahead(self, seconds: float) -> bool:
        """Lex on in the background for about `seconds`; True when lines painted from a
        read-ahead were wrong (the pane repaints them): sassview.tui.lexing."""
        return self._lexed().advance(seconds)

    def segments(self, row: int, palette: Palette) -> list[Segment]:
        key = self.key(row)
        n = self.count(row)
        has_code = n > 0
        gutter = [
            Segment(f"{row + 1:>{self.digits}}", palette.gutter),
            Segment("▌" if has_code else " ", palette.block(key) if has_code else palette.dim),
            Segment(f"{n:>3} " if has_code else "    ", palette.dim),
        ]
        if not self.view.source_lines:
            return [*gutter, Segment(self.lines[row], palette.dim)]
        tint = key if has_code else None
        code = palette.code
        return gutter + [Segment(v, code(t, tint)) for t, v in self._lexed().line(row)]


class PtxPainter:
    """The PTX module: line number, source colour, the line lexed on first paint."""

    lexer = NvPtxLexer(stripnl=False, ensurenl=False)
    narrow = True  # compilers write PTX in ASCII

    def __init__(self, view: KernelView) -> None:
        self.view = view
        self.lines = view.ptx_lines or ("(no PTX: this file was read as a cubin)",)
        self.digits = max(3, len(str(len(self.lines))))
        self.gutter = self.digits + 3  # number, bar
        self.width = self.gutter + widest(self.lines, 8)

    def __len__(self) -> int:
        return len(self.lines)

    def key(self, row: int) -> LineKey | None:
        return self.view.ptx_home.get(row + 1)

    def plain(self, row: int) -> str:
        return self.lines[row]

    def segments(self, row: int, palette: Palette) -> list[Segment]:
        key = self.key(row)
        head = [
            Segment(f"{row + 1:>{self.digits}} ", palette.gutter),
            Segment("▌ " if key else "  ", palette.block(key)),
        ]
        if not self.view.ptx_lines:
            return [*head, Segment(self.lines[row], palette.dim)]
        return head + palette.lex(self.lexer, self.lines[row].expandtabs(8), key)


_WIDEST: Memo[tuple[int, int], tuple[Sequence[str], int]] = Memo("tui.paint.widest", 2)


def widest(lines: Sequence[str], tabsize: int) -> int:
    """The longest of `lines` in cells, tabs expanded; measured once for one sequence (by
    identity: the kernels of a file share their PTX lines, state.text_lines). C-level maps:
    the 65k kernel's 131k PTX lines take 14 ms, a generator over them 15."""
    found = _WIDEST.get((id(lines), tabsize))
    if found is None or found[0] is not lines:
        longest = max(map(len, map(str.expandtabs, lines, repeat(tabsize))), default=0)
        found = _WIDEST[(id(lines), tabsize)] = (lines, longest)
    return found[1]


CONTROL_CELLS = len("B------:R-:W-:Y:S00")
USE_CELLS = len("32/16")  # the memory-use column: sectors/fewest, or ways ("32w")


def memory_use_cells(view: KernelView) -> dict[int, tuple[str, str]]:
    """Address -> (cell text, style) for each global access (`4/4`: sectors per warp and the
    fewest; red above the fewest) and shared access (`32w`: a 32-way conflict; `1w` none),
    `?` where the analysis says unknown: what `check`'s memory-use row counts, per row."""
    insp = view.inspection
    cells: dict[int, tuple[str, str]] = {}
    for g in insp.typed_facts(CoalescingFacts).accesses:
        if g["sectors"] is None:
            cells[g["address"]] = ("?", "yellow")
        else:
            bad = g["sectors"] > g["min_sectors"]
            cells[g["address"]] = (f"{g['sectors']}/{g['min_sectors']}", "red" if bad else "green")
    for b in insp.typed_facts(BankFacts).accesses:
        if b["ways"] is None:
            cells[b["address"]] = ("?", "yellow")
        else:
            cells[b["address"]] = (f"{b['ways']}w", "red" if b["ways"] > 1 else "green")
    return cells


class SassPainter:
    """SASS rows: address, width, flags, loop depth, live registers (number and bar), the
    memory use of a memory instruction (sectors or bank ways per warp: `memory_use_cells`), the
    control code ptxas encoded (wait mask, scoreboards, yield, stall), code. The
    memory-use column comes and goes with the schedule column (from 180 columns, `s`) unless
    `memory` says otherwise."""

    lexer = NvSassLexer(stripnl=False, ensurenl=False)
    narrow = True  # nvdisasm writes ASCII; our gutter glyphs are one cell each
    flag_styles: dict[str, str] = {"T": "bold magenta", "A": "bold cyan", "B": "bold yellow",
                                   "S": "bold red"}  # fmt: skip

    def __init__(
        self,
        view: KernelView,
        *,
        columns: bool = True,
        schedule: bool = False,
        memory: bool | None = None,
    ) -> None:
        self.view = view
        self.rows = view.sass
        last = self.rows.instructions[-1].address if len(self.rows) else 0
        self.addr_digits = max(4, len(f"{last:x}"))
        self.columns = columns
        self.control = columns and schedule and bool(view.inspection.kernel.control)
        shown = schedule if memory is None else memory
        self.use = memory_use_cells(view) if columns and shown else None
        extra = 1 + 4 + 1 + 4 + 1 + 1 + 1 + 3 + BAR_CELLS if columns else 0
        extra += 1 + CONTROL_CELLS if self.control else 0
        extra += 1 + USE_CELLS if self.use is not None else 0
        self.prefix = 2 + self.addr_digits + extra
        self.gutter = self.prefix + 1  # everything before the instruction
        self.width = self.gutter + self.rows.max_text()

    def __len__(self) -> int:
        return len(self.rows)

    def key(self, row: int) -> LineKey | None:
        return self.rows.home[row]

    def plain(self, row: int) -> str:
        return self.rows.texts()[row]

    def header(self) -> str:
        """Column titles, in the order of the row's columns (the pane's border title)."""
        if not self.columns:
            return "addr instruction"
        return (
            "addr mem TABS d live "
            + ("use " if self.use is not None else "")
            + ("schedule " if self.control else "")
            + "instruction"
        )

    def segments(self, row: int, palette: Palette) -> list[Segment]:
        r = self.rows[row]
        out = [
            Segment("▌ ", palette.block(r.home)),
            Segment(f"{r.address:0{self.addr_digits}x}", palette.gutter),
        ]
        if self.columns:
            scale = self.view.live_scale
            out += [
                Segment(f" {r.width:<4} ", palette.plain(_width_style(r.width))),
                *(Segment(ch, palette.plain(self.flag_styles[ch]) if ch in self.flag_styles
                          else palette.dim) for ch in r.flags),
                Segment(f" {r.depth or ' '} {r.live:>3}", palette.dim),
                Segment(live_bar(r.live, scale), palette.plain(_bar_style(r.live, scale))),
            ]  # fmt: skip
            if self.use is not None:
                text, style = self.use.get(r.address, ("", "default"))
                out.append(Segment(f" {text:>{USE_CELLS}}", palette.plain(style)))
            if self.control:
                out.append(Segment(f" {r.control:<{CONTROL_CELLS}}", palette.dim))
        out.append(Segment(" ", palette.base))
        return out + palette.lex(self.lexer, r.text, r.home)


def live_bar(live: int, scale: int, cells: int = BAR_CELLS) -> str:
    """`live` out of `scale` as a horizontal bar of `cells` cells, in eighths."""
    eighths = round(max(0, min(live, scale)) * cells * 8 / max(scale, 1))
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BAR[part] if part else "")).ljust(cells)[:cells]


def _width_style(width: str) -> str:
    bits = width[1:]
    if not width:
        return "default"
    if bits in ("128", "256", "blk"):
        return "bold green"
    if bits == "64":
        return "green"
    return "red" if width[0] == "L" else "yellow"


def _bar_style(live: int, scale: int) -> str:
    frac = live / max(scale, 1)
    return "red" if frac > 0.9 else "yellow" if frac > 0.7 else "green"


_LexedLines = LexedLines  # the name tests/test_tui_layout.py reads
