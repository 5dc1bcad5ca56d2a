"""A source file's lines as Pygments tokens, lexed where they are read, checked by a full lex.

Pygments lexes a file in one pass from its first character: the lexer's state at a line (in
a comment, a string, a function body) is known only by lexing everything before it. A 65k-
instruction kernel's first screen is its first kernel, line 28,715 of a 32,815-line file, and
lexing up to it took 3.3 s of CPU. So a read far past what is lexed starts a *window*: a lex
from a statement boundary WARMUP lines before the line, in the lexer's initial state (the
state a C-like lexer returns to after each statement); the window serves its lines from GUARD
lines on. That is a guess: the head (the lex from the start of the file) is what is true. The
app drives the head forward in the background (`advance`), and where it reaches a window's
lines they are compared: equal, the window is dropped (the head serves them); different (a
window that began inside a block comment), the window is dropped and `advance` says so, and
the pane repaints those lines from the head. A file shorter than FAR lines never has a window.
"""

from __future__ import annotations

import time
from itertools import accumulate
from pathlib import Path
from typing import Any

from pygments.lexers import get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.token import _TokenType

Token = tuple[_TokenType, str]
FAR = 400  # lines: a read further than this past the head's end starts a window
# Lines a window lexes before the line it was started for: GUARD, and 20 it serves above the
# screen it was started for (a window is started for a screen's top row; lexing is ~0.12 ms a
# line, and 120 here made the 65k kernel's first screen lex 169 lines, 21 ms: 109 take 14).
WARMUP = 60
GUARD = 40  # of those, the lines it lexes but never serves (the lexer finding its state)
_BOUNDARY_SEARCH = 60  # lines searched back from the warm-up's start for a statement's end
_CHUNK = 256  # tokens between two looks at the clock in `advance`


def lexer_for(filename: str) -> Any:
    """CUDA by its suffix (asked first: Pygments' search by file name tries every lexer's
    patterns, 0.2 s), anything else as Pygments names it, plain text where it knows none."""
    if Path(filename).suffix in (".cu", ".cuh"):
        from pygments.lexers.c_like import CudaLexer

        return CudaLexer(stripnl=False)
    try:
        return get_lexer_for_filename(Path(filename).name or "x.txt", stripnl=False)
    except Exception:  # pygments raises ClassNotFound for unknown suffixes
        return TextLexer(stripnl=False)


class _Lex:
    """One lex of the text from line `start` on, split into lines as far as it has gone."""

    def __init__(self, lexer: Any, text: str, start: int, serves: int) -> None:
        self.start = start
        self.serves = serves  # the first line this lex is read for
        self.checked = serves  # lines before this one agree with the head
        self.lines: list[list[Token]] = [[]]
        self.done = False
        self._tokens = iter(lexer.get_tokens_unprocessed(text))

    @property
    def complete(self) -> int:
        """Every line before this one (a file line number, 0-based) is final."""
        return self.start + len(self.lines) - (0 if self.done else 1)

    def pull(self, count: int, until: int | None = None) -> None:
        """Lex `count` more tokens (fewer at the end of the text), or only until line `until`
        is complete."""
        lines = self.lines
        last = len(lines) + count if until is None else until - self.start + 1
        for _ in range(count):
            if len(lines) > last:
                return
            token = next(self._tokens, None)
            if token is None:
                self.done = True
                return
            _, ttype, value = token
            for i, part in enumerate(value.expandtabs(4).split("\n")):
                if i:
                    lines.append([])
                if part:
                    lines[-1].append((ttype, part))

    def line(self, row: int) -> list[Token]:
        while not self.done and self.complete <= row:  # row's line may still grow
            self.pull(_CHUNK, until=row)
        i = row - self.start
        return self.lines[i] if 0 <= i < len(self.lines) else []


class LexedLines:
    """A file's lines as (token, text): the head lex from the file's start, and the windows
    read ahead of it until the head has checked them."""

    def __init__(self, filename: str, text: str) -> None:
        self._lexer = lexer_for(filename)
        self._text = text
        self._head = _Lex(self._lexer, text, 0, 0)
        self._windows: list[_Lex] = []
        self._offsets: list[int] | None = None
        self._lines_of: list[str] | None = None

    @property
    def _lines(self) -> list[list[Token]]:
        """The head's lines (what is known to be true)."""
        return self._head.lines

    @property
    def done(self) -> bool:
        """The head has lexed the whole file (and so every window is checked)."""
        return self._head.done and not self._windows

    def line(self, row: int) -> list[Token]:
        head = self._head
        if head.done or row < head.complete or row - head.complete <= FAR:
            return head.line(row)
        window = max((w for w in self._windows if w.serves <= row), key=lambda w: w.serves,
                     default=None)  # fmt: skip
        if window is None or row - window.complete > FAR:
            window = self._window(row)
        return window.line(row)

    def _window(self, row: int) -> _Lex:
        if self._offsets is None:
            self._lines_of = self._text.split("\n")
            self._offsets = list(accumulate((len(s) + 1 for s in self._lines_of), initial=0))
        assert self._lines_of is not None
        start = min(max(0, row - WARMUP), len(self._lines_of) - 1)  # a row past the end: its last
        for i in range(start - 1, max(-1, start - _BOUNDARY_SEARCH), -1):
            if self._lines_of[i].rstrip().endswith((";", "{", "}")):
                start = i + 1  # a statement ended on the line before: a state to start in
                break
        text = self._text[self._offsets[start] :]
        window = _Lex(self._lexer, text, start, min(row, start + GUARD))
        self._windows.append(window)
        return window

    def advance(self, seconds: float) -> bool:
        """Lex the head for about `seconds` and check the windows it reached; True when a
        window disagreed with it (the lines read from it were wrong: repaint them)."""
        deadline = time.perf_counter() + seconds
        head = self._head
        while not head.done and time.perf_counter() < deadline:
            head.pull(_CHUNK)
        return self._check()

    def _check(self) -> bool:
        head, wrong, kept = self._head, False, []
        for w in self._windows:
            end = min(head.complete, w.complete)
            agree = all(  # the lines it may have served that the head has reached
                head.lines[r] == w.lines[r - w.start] for r in range(w.checked, end)
            )
            w.checked = max(w.checked, end)
            if not agree:
                wrong = True
            elif head.complete < w.complete:
                kept.append(w)  # still ahead of the head
        self._windows = kept
        return wrong
