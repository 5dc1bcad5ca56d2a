"""From a parsed pattern to a Python regular expression, and searching with it.

LLVM FileCheck hands `{{...}}` to POSIX extended regular expressions (with newline-sensitive
matching); sassview hands them to Python's `re`. `translate_regex` closes the gaps that matter
in practice: POSIX classes such as `[[:digit:]]` become their Python ranges, and a negated
bracket `[^...]` never matches a newline (as under REG_NEWLINE), so a pattern cannot silently
run onto the next line. What stays different: `re` picks the first alternative that matches
(`{{a|ab}}` matches `a`), where POSIX picks the longest; `\\d`, `\\s`, lookarounds and other
Python extensions are accepted.

Variables: `[[X:re]]` is a named group; `[[X]]` is the escaped value X had when the pattern is
tried, or a backreference when X is defined earlier in the same pattern (as LLVM does).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from sassview.memo import memoized
from sassview.testing.filecheck.directives import Define, Literal, Pattern, Regex, Use

_POSIX = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v",
    "blank": " \\t",
    "xdigit": "0-9A-Fa-f",
    "cntrl": "\\x00-\\x1f\\x7f",
    "punct": "!-/:-@\\[-`{-~",
    "print": " -~",
    "graph": "!-~",
    "word": "a-zA-Z0-9_",
}


def translate_regex(source: str) -> str:
    """A FileCheck (POSIX ERE) regex in Python `re` syntax; raises ValueError for an unknown
    POSIX class."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n:
            out.append(source[i : i + 2])
            i += 2
            continue
        if c != "[":
            out.append(c)
            i += 1
            continue
        j = i + 1
        negate = j < n and source[j] == "^"
        j += negate
        parts: list[str] = []
        if j < n and source[j] == "]":  # a ']' first in a bracket is literal
            parts.append("\\]")
            j += 1
        while j < n and source[j] != "]":
            if source.startswith("[:", j) and (k := source.find(":]", j + 2)) != -1:
                name = source[j + 2 : k]
                if name not in _POSIX:
                    raise ValueError(f"unknown character class [:{name}:]")
                parts.append(_POSIX[name])
                j = k + 2
            elif source[j] == "\\" and j + 1 < n:
                parts.append(source[j : j + 2])
                j += 2
            else:
                parts.append("\\[" if source[j] == "[" else source[j])
                j += 1
        if j >= n:  # unterminated: leave it for re.compile to report
            out.append(source[i:])
            break
        out.append("[" + ("^" if negate else "") + "".join(parts) + ("\\n" if negate else "") + "]")
        i = j + 1
    return "".join(out)


class UndefinedVariable(Exception):
    def __init__(self, use: Use) -> None:
        super().__init__(use.name)
        self.use = use


@dataclass(frozen=True, slots=True)
class Compiled:
    regex: re.Pattern[str]
    groups: tuple[tuple[str, str], ...]  # (variable, group name) defined by this pattern
    anchored: bool  # uses ^: must search a slice, so ^ matches where the search starts


def compile_pattern(
    pattern: Pattern, variables: Mapping[str, str], *, strict: bool, ignore_case: bool
) -> Compiled:
    """The regex for a pattern given the variables defined so far (raises UndefinedVariable)."""
    parts: list[str] = []
    groups: dict[str, str] = {}
    if pattern.full_lines:
        parts.append("^" if strict else "^ *")
    for piece in pattern.pieces:
        if isinstance(piece, Literal):
            parts.append(re.escape(piece.text))
        elif isinstance(piece, Regex):
            parts.append(f"(?:{piece.source})")
        elif isinstance(piece, Define):
            group = groups[piece.name] = f"v{len(groups)}"
            parts.append(f"(?P<{group}>{piece.source})")
        else:
            if piece.name in groups:
                parts.append(f"(?P={groups[piece.name]})")
            elif piece.name in variables:
                parts.append(re.escape(variables[piece.name]))
            else:
                raise UndefinedVariable(piece)
    if pattern.full_lines:
        parts.append("$" if strict else " *$")
    source = "".join(parts)
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    return Compiled(_compile(source, flags), tuple(groups.items()), "^" in source)


@memoized(4096)
def _compile(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


def search(
    compiled: Compiled, text: str, start: int, end: int
) -> tuple[int, int, dict[str, str]] | None:
    """(start, end, variables bound) of the first match in text[start:end], or None.

    Like LLVM, which matches against the rest of the buffer as a string of its own, `^` and
    `$` also match at the two ends of the range searched."""
    if compiled.anchored:
        m = compiled.regex.search(text[start:end])
        offset = start
    else:
        m = compiled.regex.search(text, start, end)
        offset = 0
    if m is None:
        return None
    bound = {name: m.group(group) for name, group in compiled.groups}
    return m.start() + offset, m.end() + offset, bound


def validate(source: str) -> str | None:
    """Why a translated regex does not compile, or None."""
    try:
        re.compile(source, re.MULTILINE)
    except re.error as exc:
        return str(exc)
    return None
