"""Matching directives against input, with LLVM FileCheck's semantics (FileCheck.cpp's
checkInput, FileCheckString::Check / CheckDag / CheckNot / CheckNext, followed closely):

- The input is cut into regions at CHECK-LABEL matches (found first, by plain search); each
  region is checked on its own, so one failure does not hide the next region's.
- Each positive directive searches forward from the end of the previous match. CHECK-NEXT and
  CHECK-EMPTY then require exactly one newline between the two, CHECK-SAME none; the match is
  the first anywhere after the previous one, so a later line that matches reports "is not on
  the line after the previous match" rather than "not found".
- CHECK-COUNT-n matches n times in a row, each search starting after the previous match.
- CHECK-NOT lines must not match between the previous match and the next positive match (or
  the next CHECK-DAG group, or the end of the input).
- A run of CHECK-DAG lines matches in any order, each from the group's start, without two
  matches overlapping; CHECK-NOT lines between groups cut the groups.
- Variables are bound when their pattern matches, and seen by every later pattern.
"""

from __future__ import annotations

from sassview.testing.filecheck.directives import (
    Check,
    CheckFile,
    Define,
    Directive,
    Kind,
    Options,
    Use,
)
from sassview.testing.filecheck.pattern import UndefinedVariable, compile_pattern, search
from sassview.testing.filecheck.report import Diagnostic, InputText

Span = tuple[int, int]


class Matcher:
    """One run of a check file over one input; `run()` returns the diagnostics (none: pass)."""

    def __init__(self, checks: CheckFile, text: InputText, options: Options) -> None:
        self.checks = checks
        self.input = text
        self.text = text.text
        self.options = options
        self.variables: dict[str, str] = dict(options.defines)
        self.diagnostics: list[Diagnostic] = []

    def run(self) -> list[Diagnostic]:
        if not self.input.original and not self.options.allow_empty:
            self.diagnostics.append(Diagnostic("error", f"'{self.input.name}' is empty."))
            return self.diagnostics
        checks, n = self.checks.checks, len(self.text)
        pos = i = j = 0
        while True:
            if j == len(checks):
                region = (pos, n)
            else:
                if checks[j].directive.kind is not Kind.LABEL:
                    j += 1
                    continue
                found = self._check(checks[j], pos, n, label_scan=True)
                if found is None:
                    return self.diagnostics  # nothing else can be placed without the label
                region, pos = (pos, found[1]), found[1]
                j += 1
            if i != 0 and self.options.enable_var_scope:
                self.variables = {k: v for k, v in self.variables.items() if k.startswith("$")}
            start, end = region
            while i != j:
                found = self._check(checks[i], start, end, label_scan=False)
                if found is None:
                    i = j
                    break
                start = found[1]
                i += 1
            if j == len(checks):
                return self.diagnostics

    # -- one directive ---------------------------------------------------------------------

    def _find(self, d: Directive, start: int, end: int) -> Span | None:
        """Where the pattern next matches in [start, end); binds its variables."""
        text = self.text
        if d.kind is Kind.EOF:
            return end, end
        if d.kind is Kind.EMPTY:  # LLVM's "\n$": a newline that ends an empty line
            k = text.find("\n", start, end)
            while k != -1:
                if k + 1 == end or text[k + 1] == "\n":
                    return k + 1, k + 1
                k = text.find("\n", k + 1, end)
            return None
        fixed = d.pattern.fixed
        if fixed is not None and not self.options.ignore_case:
            k = text.find(fixed, start, end)
            return None if k == -1 else (k, k + len(fixed))
        compiled = compile_pattern(
            d.pattern,
            self.variables,
            strict=self.options.strict_whitespace,
            ignore_case=self.options.ignore_case,
        )
        found = search(compiled, text, start, end)
        if found is None:
            return None
        self.variables.update(found[2])
        return found[0], found[1]

    def _expect(self, d: Directive, start: int, end: int, nth: int = 1) -> Span | None:
        """_find, reporting LLVM's "expected string not found" when it fails."""
        try:
            found = self._find(d, start, end)
        except UndefinedVariable as exc:
            self._error(Diagnostic("error", f"undefined variable: {exc.use.name}", exc.use.where))
            return None
        if found is not None:
            return found
        message = f"{d.name}: expected string not found in input"
        if d.count > 1:
            message += f" ({nth} out of {d.count})"
        self._error(Diagnostic("error", message, d.where))
        self._note("scanning from here", start)
        self._substitutions(d, start)
        fuzzy = self._fuzzy(d, start, end)
        if fuzzy is not None:
            self._note("possible intended match here", fuzzy)
        return None

    def _check(self, c: Check, start: int, end: int, *, label_scan: bool) -> Span | None:
        """FileCheckString::Check: the DAG/NOTs before the directive, then the directive."""
        nots: list[Directive] = []
        last = start
        if not label_scan:
            dag_end = self._dag(c, start, end, nots)
            if dag_end is None:
                return None
            last = dag_end
        d = c.directive
        first, match_end = -1, last
        for nth in range(1, d.count + 1):
            found = self._expect(d, match_end, end, nth)
            if found is None:
                return None
            first = found[0] if nth == 1 else first
            match_end = found[1]
        if not label_scan:
            if not self._placed(d, last, first):
                return None
            if nots and self._excluded(nots, last, first):
                return None
        return first, match_end

    def _placed(self, d: Directive, last: int, first: int) -> bool:
        """CHECK-NEXT / -EMPTY: on the next line; CHECK-SAME: on the same line."""
        if d.kind not in (Kind.NEXT, Kind.EMPTY, Kind.SAME):
            return True
        newlines = self.text.count("\n", last, first)
        name = d.prefix + ("-SAME" if d.kind is Kind.SAME else d.kind.value)
        if d.kind is Kind.SAME:
            if newlines == 0:
                return True
            problem = f"{name}: is not on the same line as the previous match"
        elif newlines == 1:
            return True
        elif newlines == 0:
            problem = f"{name}: is on the same line as previous match"
        else:
            problem = f"{name}: is not on the line after the previous match"
        self._error(Diagnostic("error", problem, d.where))
        self._note("'next' match was here", first)
        self._note("previous match ended here", last)
        if d.kind is not Kind.SAME and newlines > 1:
            self._note(
                "non-matching line after previous match is here", self.text.index("\n", last) + 1
            )
        return False

    def _excluded(self, nots: list[Directive], start: int, end: int) -> bool:
        """CheckNot: report every CHECK-NOT that matches in [start, end); True if any did."""
        failed = False
        for d in nots:
            try:
                found = self._find(d, start, end)
            except UndefinedVariable as exc:
                self._error(
                    Diagnostic("error", f"undefined variable: {exc.use.name}", exc.use.where)
                )
                failed = True
                continue
            if found is None:
                continue
            self._error(Diagnostic("error", f"{d.name}: excluded string found in input", d.where))
            self._note("found here", found[0], found[1] - found[0])
            self._substitutions(d, found[0])
            failed = True
        return failed

    def _dag(self, c: Check, start: int, end: int, nots: list[Directive]) -> int | None:
        """CheckDag: match each CHECK-DAG group in any order; returns where the next search
        starts (the end of the last group's furthest match), or None on failure."""
        items = c.dag_not
        ranges: list[Span] = []  # this group's matches, sorted, never overlapping
        for index, d in enumerate(items):
            if d.kind is Kind.NOT:
                nots.append(d)
                continue
            pos = start
            while True:
                found = self._expect(d, pos, end)
                if found is None:
                    return None
                at = next((k for k, r in enumerate(ranges) if found[0] < r[1]), len(ranges))
                if at == len(ranges) or not ranges[at][0] < found[1]:
                    ranges.insert(at, found)
                    break
                pos = ranges[at][1]  # overlaps an earlier match: look again after it
            if index + 1 == len(items) or items[index + 1].kind is Kind.NOT:
                if nots:
                    if self._excluded(nots, start, ranges[0][0]):
                        return None
                    nots.clear()
                start = ranges[-1][1]
                ranges.clear()
        return start

    # -- reporting -------------------------------------------------------------------------

    def _error(self, d: Diagnostic) -> None:
        self.diagnostics.append(d)

    def _note(self, message: str, offset: int, span: int = 0) -> None:
        self.diagnostics.append(Diagnostic("note", message, self.input.location(offset), span))

    def _substitutions(self, d: Directive, offset: int) -> None:
        """LLVM's `with "VAR" equal to "value"` for each variable the pattern substituted."""
        defined: set[str] = set()
        for piece in d.pattern.pieces:
            if isinstance(piece, Define):
                defined.add(piece.name)
            elif isinstance(piece, Use) and piece.name not in defined:
                value = self.variables.get(piece.name)
                if value is not None:
                    shown = f'"{value}"'
                    if any(not ch.isprintable() or ch == '"' for ch in value):
                        shown = f'"{value.encode("unicode_escape").decode()}" (escaped value)'
                    self._note(f'with "{piece.name}" equal to {shown}', offset)

    def _fuzzy(self, d: Directive, start: int, end: int) -> int | None:
        """Printfuzzymatch: the nearby spot most like the pattern (edit distance, plus a
        hundredth per line skipped), tried at word starts within 4 KiB; None when nothing
        is close or the best is where the search began."""
        example = d.pattern.text
        if not example:
            return None
        text, stop = self.text, min(end, start + 4096)
        best, best_quality, lines = None, 50.0, 0
        for i in range(start, stop):
            ch = text[i]
            if ch == "\n":
                lines += 1
            if ch in " \t\n" or (i > start and text[i - 1] not in " \t\n,;[({"):
                continue
            window = text[i : i + len(example)].split("\n", 1)[0]
            quality = _distance(window, example, best_quality) + lines / 100
            if quality < best_quality:
                best, best_quality = i, quality
        return best if best is not None and best != start else None


def _distance(a: str, b: str, limit: float) -> int:
    """Levenshtein distance, giving up (returning a large number) once it must exceed limit."""
    if abs(len(a) - len(b)) >= limit:
        return 1 << 20
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        low = row[0]
        for j, cb in enumerate(b, 1):
            cur = min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
            prev, row[j] = row[j], cur
            low = min(low, cur)
        if low >= limit:
            return 1 << 20
    return row[-1]
