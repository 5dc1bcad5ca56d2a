"""Check file text -> directives, with LLVM FileCheck's rules and error messages.

A directive is a check prefix at the start of a word (`CHECK`, not `XCHECK` or `MY-CHECK`),
then a suffix (`:`, `-NEXT:`, `-SAME:`, `-NOT:`, `-DAG:`, `-LABEL:`, `-EMPTY:`, `-COUNT-n:`,
optionally `{LITERAL}` before the colon), then the pattern: the rest of the line, blanks at both
ends dropped. `COM:` and `RUN:` start comments. A prefix followed by anything else is not a
directive and the line is searched on. CHECK-DAG and CHECK-NOT lines are attached to the next
positive directive; any left at the end are attached to an implicit EOF check.

Patterns: literal text, `{{regex}}`, `[[VAR:regex]]` (define), `[[VAR]]` (use), `[[$VAR...]]`
(global under --enable-var-scope), `[[@LINE]]`, `[[@LINE+n]]`, `[[@LINE-n]]`. Numeric blocks
(`[[#...]]`) are not supported and are reported as such.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sassview.testing.filecheck.directives import (
    Check,
    CheckFile,
    Define,
    Directive,
    Kind,
    Literal,
    Location,
    Options,
    Pattern,
    Piece,
    Regex,
    Use,
)
from sassview.testing.filecheck.pattern import translate_regex, validate
from sassview.testing.filecheck.report import CheckFileError, Diagnostic

_SUFFIXES = (
    ("NEXT", Kind.NEXT),
    ("SAME", Kind.SAME),
    ("NOT", Kind.NOT),
    ("DAG", Kind.DAG),
    ("LABEL", Kind.LABEL),
    ("EMPTY", Kind.EMPTY),
)
_BAD_NOT = (
    "DAG-NOT:",
    "NOT-DAG:",
    "NEXT-NOT:",
    "NOT-NEXT:",
    "SAME-NOT:",
    "NOT-SAME:",
    "EMPTY-NOT:",
    "NOT-EMPTY:",
)
_PREFIX_OK = re.compile(r"^[a-zA-Z0-9_-]+$")
_NAME_CHAR = re.compile(r"[A-Za-z0-9_]*")
_At = Callable[[int], int]  # index in the pattern text -> index in the line
_LINE_EXPR = re.compile(r"^@LINE[ \t]*(?:([+-])[ \t]*([0-9]+))?[ \t]*$")


def _word(c: str) -> bool:
    return c.isalnum() or c in "-_"


class _Line:
    """One line of the check file being parsed: where things are, for messages."""

    def __init__(self, name: str, number: int, text: str, column_offset: int) -> None:
        self.name, self.number, self.text, self.offset = name, number, text, column_offset

    def at(self, index: int) -> Location:
        return Location(self.name, self.number, index + 1 + self.offset, self.text)

    def fail(self, index: int, message: str) -> CheckFileError:
        return CheckFileError([Diagnostic("error", message, self.at(index))])


def parse_checks(
    text: str,
    *,
    name: str = "<checks>",
    options: Options = Options(),  # noqa: B008 - frozen, so sharing the default is safe
    first_line: int = 1,
    column_offset: int = 0,
) -> CheckFile:
    """Parse a check file; raises CheckFileError with LLVM's message for what it rejects.

    `first_line` / `column_offset` place the text inside a bigger file (checks written as a
    string in a test), so messages point at the line the user wrote."""
    _validate_prefixes(options)
    implicit = [_implicit_not(p, options) for p in options.implicit_check_not]
    pending: list[Directive] = list(implicit)
    checks: list[Check] = []
    unused = set(options.prefixes)
    number = first_line - 1
    for number, raw in enumerate(text.split("\n"), start=first_line):  # noqa: B007
        line = _Line(name, number, raw, column_offset)
        found = _find_directive(line, options)
        if found is None:
            continue
        kind, prefix, count, literal, start, at = found
        if kind is None:  # a comment
            continue
        unused.discard(prefix)
        directive = _directive(line, kind, prefix, count, literal, start, options)
        if kind is Kind.LABEL and directive.pattern.has_variables:
            raise line.fail(at, f"found '{prefix}-LABEL:' with variable definition or use")
        if kind in (Kind.NEXT, Kind.SAME, Kind.EMPTY) and not checks:
            raise line.fail(at, f"found '{prefix}{kind.value}' without previous '{prefix}: line")
        if kind in (Kind.DAG, Kind.NOT):
            pending.append(directive)
            continue
        checks.append(Check(directive, tuple(pending)))
        pending = list(implicit)
    if unused and (not implicit or options.prefixes != ("CHECK",)):
        missing = ", ".join(f"'{p}:'" for p in options.prefixes if p in unused)
        plural = "es" if len(unused) > 1 else ""
        raise CheckFileError(
            [Diagnostic("error", f"no check strings found with prefix{plural} {missing}")]
        )
    if pending:
        eof = Location(name, number + 1, 1, "")
        end = Directive(Kind.EOF, options.prefixes[0], Pattern((), ""), eof)
        checks.append(Check(end, tuple(pending)))
    return CheckFile(name, tuple(checks))


def _validate_prefixes(options: Options) -> None:
    seen: set[str] = set()
    for kind, group in (("check", options.prefixes), ("comment", options.comment_prefixes)):
        for prefix in group:
            if not prefix:
                message = f"supplied {kind} prefix must not be the empty string"
            elif not _PREFIX_OK.match(prefix):
                message = (
                    f"supplied {kind} prefix must start with a letter and contain only "
                    f"alphanumeric characters, hyphens, and underscores: '{prefix}'"
                )
            elif prefix in seen:
                message = f"supplied {kind} prefix must be unique among check and comment prefixes: '{prefix}'"  # noqa: E501
            else:
                seen.add(prefix)
                continue
            raise CheckFileError([Diagnostic("error", message)])


def _implicit_not(text: str, options: Options) -> Directive:
    shown = f"-implicit-check-not='{text}'"
    line = _Line("command line", 1, shown, 0)
    pattern = _pattern(
        line, len("-implicit-check-not='"), text, Kind.NOT, "IMPLICIT-CHECK", False, options
    )
    return Directive(Kind.NOT, "IMPLICIT-CHECK", pattern, line.at(len("-implicit-check-not='")))


def _find_directive(
    line: _Line, options: Options
) -> tuple[Kind | None, str, int, bool, int, int] | None:
    """(kind or None for a comment, prefix, count, literal, pattern start, prefix index)."""
    text = line.text
    prefixes = sorted((*options.prefixes, *options.comment_prefixes), key=len, reverse=True)
    pos = 0
    while True:
        best: tuple[int, str] | None = None
        for p in prefixes:
            k = text.find(p, pos)
            if k != -1 and (best is None or k < best[0]):
                best = (k, p)
        if best is None:
            return None
        k, prefix = best
        if k == 0 or not _word(text[k - 1]):
            found = _suffix(line, k, prefix, options)
            if found is not None:
                kind, count, literal, rest = found
                return kind, prefix, count, literal, rest, k
        pos = k + len(prefix)
        while pos < len(text) and _word(text[pos]):
            pos += 1


def _suffix(
    line: _Line, k: int, prefix: str, options: Options
) -> tuple[Kind | None, int, bool, int] | None:
    """What follows a prefix: (kind, count, literal, index after the colon), or None when it
    is no directive. Raises for the malformed ones LLVM rejects."""
    text = line.text
    rest = k + len(prefix)
    if rest >= len(text):
        return None
    if prefix in options.comment_prefixes:
        return (None, 1, False, rest + 1) if text[rest] == ":" else None
    kind, count, misspelled = Kind.PLAIN, 1, False
    if text[rest] not in ":{":
        if text[rest] == "_":
            misspelled = True
        elif text[rest] != "-":
            return None
        rest += 1
        tail = text[rest:]
        if tail.startswith("COUNT-"):
            digits = re.match(r"[0-9]+", tail[6:])
            rest += 6 + (len(digits.group()) if digits else 0)
            value = int(digits.group()) if digits else 0
            if not digits or not 0 < value <= 2**31 - 1 or text[rest : rest + 1] not in (":", "{"):
                raise line.fail(rest, f"invalid count in -COUNT specification on prefix '{prefix}'")
            count = value
        elif tail.startswith(_BAD_NOT):
            raise line.fail(rest, f"unsupported -NOT combo on prefix '{prefix}'")
        else:
            for word, candidate in _SUFFIXES:
                if tail.startswith(word):
                    kind, rest = candidate, rest + len(word)
                    break
            else:
                return None
    literal, rest = _modifiers(text, rest)
    if rest < 0:
        return None
    if misspelled:
        raise line.fail(k, f"misspelled directive '{text[k:rest]}'")
    return kind, count, literal, rest


def _modifiers(text: str, rest: int) -> tuple[bool, int]:
    """`:` or `{LITERAL}:` -> (literal, index after the colon); index -1 when neither."""
    if text[rest : rest + 1] == ":":
        return False, rest + 1
    if text[rest : rest + 1] != "{":
        return False, -1
    m = re.match(r"\{\s*LITERAL\s*(?:,\s*LITERAL\s*)*\}:", text[rest:])
    return (True, rest + m.end()) if m else (False, -1)


def _directive(
    line: _Line, kind: Kind, prefix: str, count: int, literal: bool, start: int, options: Options
) -> Directive:
    text = line.text
    if not (options.strict_whitespace and options.match_full_lines):
        while start < len(text) and text[start] in " \t":
            start += 1
    end = text.find("\r", start)  # LLVM ends a pattern at CR as well as LF
    end = len(text) if end == -1 else end
    pattern = _pattern(line, start, text[start:end], kind, prefix, literal, options)
    return Directive(kind, prefix, pattern, line.at(start), count)


def _pattern(
    line: _Line, start: int, raw: str, kind: Kind, prefix: str, literal: bool, options: Options
) -> Pattern:
    full = options.match_full_lines and kind is not Kind.NOT
    if not (options.strict_whitespace and options.match_full_lines):
        raw = raw.rstrip(" \t")
    text, columns = raw, list(range(len(raw) + 1))
    if not options.strict_whitespace:  # canonical blanks; remember where each char came from
        chars: list[str] = []
        columns = []
        for i, c in enumerate(raw):
            if c in " \t" and chars and chars[-1] == " " and i and raw[i - 1] in " \t":
                continue
            chars.append(" " if c in " \t" else c)
            columns.append(i)
        columns.append(len(raw))
        text = "".join(chars)
    if not text and kind is not Kind.EMPTY:
        raise line.fail(start, f"found empty check string with prefix '{prefix}:'")
    if text and kind is Kind.EMPTY:
        raise line.fail(
            start, f"found non-empty check string for empty check with prefix '{prefix}:'"
        )
    if kind is Kind.EMPTY:
        return Pattern((), "")
    if literal:
        return Pattern((Literal(text),), text)
    if not full and (len(text) < 2 or ("{{" not in text and "[[" not in text)):
        return Pattern((Literal(text),), text, full)
    return Pattern(tuple(_pieces(line, start, text, columns)), text, full)


def _pieces(line: _Line, start: int, text: str, columns: list[int]) -> Iterator[Piece]:
    def at(i: int) -> int:
        return start + columns[min(i, len(columns) - 1)]

    i = 0
    while i < len(text):
        if text.startswith("{{", i):
            end = text.find("}}", i)
            if end == -1:
                raise line.fail(at(i), "found start of regex string with no end '}}'")
            yield Regex(_regex(line, at(i + 2), text[i + 2 : end]), line.at(at(i + 2)))
            i = end + 2
        elif text.startswith("[[", i) and not text.startswith("[[[", i):
            end = _block_end(line, text, i + 2, at)
            yield _block(line, text[i + 2 : end], i + 2, at, line.number)
            i = end + 2
        else:
            nexts = [k for k in (text.find("{{", i + 1), text.find("[[", i + 1)) if k != -1]
            stop = min(nexts) if nexts else len(text)
            yield Literal(text[i:stop])
            i = stop


def _regex(line: _Line, column: int, source: str) -> str:
    try:
        translated = translate_regex(source)
    except ValueError as exc:
        raise line.fail(column, f"invalid regex: {exc}") from None
    problem = validate(translated)
    if problem is not None:
        raise line.fail(column, f"invalid regex: {problem}")
    return translated


def _block_end(line: _Line, text: str, i: int, at: _At) -> int:
    """Index of the `]]` closing a substitution block (LLVM's FindRegexVarEnd)."""
    depth = 0
    while i < len(text):
        if text.startswith("]]", i) and depth == 0:
            return i
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            if depth == 0:
                raise line.fail(at(i), 'missing closing "]" for regex variable')
            depth -= 1
        i += 1
    raise line.fail(at(i - 2), "Invalid substitution block, no ]] found")


def _block(line: _Line, body: str, i: int, at: _At, number: int) -> Piece:
    where = line.at(at(i))
    if body.startswith("#"):
        raise line.fail(
            at(i),
            "numeric substitution blocks ([[#...]]) are not supported by "
            "sassview's FileCheck; match the digits with [[VAR:[0-9]+]]",
        )
    colon = body.find(":")
    head = body if colon == -1 else body[:colon]
    blank = next((k for k, c in enumerate(head) if c in " \t"), -1)
    if blank != -1:
        raise line.fail(at(i + blank), "unexpected whitespace")
    pseudo = body.startswith("@")
    k = 1 if body[:1] in ("$", "@") else 0
    if not body[k:]:
        what = (
            "empty variable name"
            if k == 0
            else f"empty {'pseudo' if pseudo else 'global'} variable name"
        )  # noqa: E501
        raise line.fail(at(i + k), what)
    if not (body[k] == "_" or body[k].isalpha()):
        raise line.fail(at(i), "invalid variable name")
    m = _NAME_CHAR.match(body, k)
    name_end = m.end() if m else k
    name, rest = body[:name_end], body[name_end:]
    if colon != -1:
        if pseudo or not rest.startswith(":"):
            raise line.fail(at(i), "invalid name in string variable definition")
        source = _regex(line, at(i + name_end + 1), rest[1:])
        return Define(name, source, where)
    if pseudo:
        expr = _LINE_EXPR.match(body)
        if name != "@LINE":
            raise line.fail(at(i), f"invalid pseudo numeric variable '{name}'")
        if expr is None:
            raise line.fail(at(i), f"unexpected characters at end of expression '{rest}'")
        sign, amount = expr.groups()
        value = number + (int(amount) if sign == "+" else -int(amount) if sign else 0)
        return Literal(str(value))
    if rest:
        raise line.fail(at(i), "invalid name in string variable use")
    return Use(name, where)
