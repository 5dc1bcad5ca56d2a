"""Where things are, and how a failure is told: LLVM FileCheck's message format.

    checks.txt:3:13: error: CHECK-NEXT: expected string not found in input
    CHECK-NEXT: LDG.E.128
                ^
    add_f4.sm_90a.sass:12:40: note: scanning from here
      /*00d0*/ LDG.E.128.CONSTANT R12, desc[UR4][R2.64] ;
                                             ^

Input text is matched in its canonical form (runs of blanks made one space, CRLF made LF, as
LLVM does), but every location is reported in the text the user wrote: `InputText` maps an
offset in the canonical text back to the original line and column.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from sassview.errors import ParseError
from sassview.testing.filecheck.directives import Location

_BLANKS = re.compile(r"\r\n|[ \t]{2,}|\t")


class InputText:
    """The text checked: original, canonical, and the way back from one to the other."""

    def __init__(
        self, text: str, name: str = "<input>", *, first_line: int = 1, canonical: bool = True
    ) -> None:
        self.name = name
        self.original = text
        self.first_line = first_line
        self._canonical = canonical
        if canonical:
            self.text = _BLANKS.sub(lambda m: "\n" if m.group() == "\r\n" else " ", text)
        else:
            self.text = text.replace("\r\n", "\n")
        self._same = self.text == text
        self._points: tuple[list[int], list[int]] | None = None
        self._starts: list[int] | None = None

    def original_offset(self, offset: int) -> int:
        """The offset in the original text of this offset in the canonical one."""
        if self._same:
            return offset
        if self._points is None:
            canon, orig = [0], [0]
            shrink = 0  # characters the canonical text lost so far
            pattern = _BLANKS if self._canonical else re.compile(r"\r\n")
            for m in pattern.finditer(self.original):
                shrink += len(m.group()) - 1
                canon.append(m.end() - shrink)
                orig.append(m.end())
            self._points = (canon, orig)
        canon, orig = self._points
        k = bisect.bisect_right(canon, offset) - 1
        return orig[k] + (offset - canon[k])

    def location(self, offset: int) -> Location:
        """Line and column (1-based) of a canonical offset, in the original text."""
        original = self.original_offset(offset)
        if self._starts is None:
            self._starts = [m.end() for m in re.finditer("\n", self.original)]
        index = bisect.bisect_right(self._starts, original)
        start = self._starts[index - 1] if index else 0
        end = self.original.find("\n", start)
        line_text = self.original[start : end if end != -1 else len(self.original)]
        return Location(
            self.name, self.first_line + index, original - start + 1, line_text.rstrip("\r")
        )

    def lines(self) -> list[str]:
        lines = self.original.split("\n")
        return lines[:-1] if len(lines) > 1 and not lines[-1] else lines


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: str  # error | note
    message: str
    where: Location | None = None
    span: int = 0  # characters to underline after the caret (LLVM's ~~~)


def render_diagnostic(d: Diagnostic) -> str:
    if d.where is None:
        return f"{d.severity}: {d.message}"
    w = d.where
    head = f"{w.name}:{w.line}:{w.column}: {d.severity}: {d.message}"
    # Keep tabs so the caret lines up under a line that has them.
    lead = "".join(c if c == "\t" else " " for c in w.line_text[: w.column - 1])
    under = "^" + "~" * max(0, min(d.span, len(w.line_text) - w.column + 1) - 1)
    return f"{head}\n{w.line_text}\n{lead}{under}"


# How the excerpt marks the lines notes point at: where the search started or the previous
# match ended (>), what matched where it must not or in the wrong place (!), a near miss (?).
_MARK = {
    "scanning from here": ">",
    "previous match ended here": ">",
    "found here": "!",
    "'next' match was here": "!",
    "possible intended match here": "?",
}


def input_excerpt(diagnostics: list[Diagnostic], text: InputText, context: int = 3) -> str:
    """The lines of the input around what the diagnostics point at, numbered and marked (see
    _MARK): what LLVM's --dump-input shows, cut to the part that matters."""
    marks: dict[int, str] = {}
    for d in diagnostics:
        if d.where is not None and d.where.name == text.name and d.message in _MARK:
            marks.setdefault(d.where.line, _MARK[d.message])
    if not marks:
        return ""
    lines = text.lines()
    shown: set[int] = set()
    for line in marks:
        shown.update(range(line - context, line + context + 1))
    numbers = sorted(n for n in shown if 0 <= n - text.first_line < len(lines))
    width = len(str(numbers[-1])) if numbers else 1
    out = [f"Input was ({text.name}):"]
    previous = None
    for n in numbers:
        if previous is not None and n != previous + 1:
            out.append("  " + " " * width + "   ...")
        out.append(f"  {marks.get(n, ' ')} {n:>{width}}: {lines[n - text.first_line]}")
        previous = n
    return "\n".join(out)


def render(diagnostics: list[Diagnostic], text: InputText | None = None) -> str:
    """Every diagnostic, LLVM style, then the excerpt of the input they point into."""
    body = "\n".join(render_diagnostic(d) for d in diagnostics)
    excerpt = input_excerpt(diagnostics, text) if text is not None else ""
    return body + ("\n\n" + excerpt if excerpt else "")


class CheckFileError(ParseError):
    """The check file itself is wrong (a bad directive, regex or variable): bad input, not a
    failed check. Carries LLVM-style diagnostics pointing into the check file. A ParseError, so
    like every reader of outside input it fails with sassview's own error type."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__(render(diagnostics), hint="fix the check file")

    def __str__(self) -> str:
        return self.message


class FileCheckFailure(AssertionError):
    """The input does not satisfy the checks. `str()` is the full LLVM-style report."""

    def __init__(self, report: str, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__(report)
