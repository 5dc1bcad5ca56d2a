"""What a check file says, once parsed: directives and the pieces of their patterns.

Frozen, slotted records and nothing else — the parser builds them, the matcher reads them, and
neither needs to know how the other works. Names follow LLVM FileCheck's, so its documentation
reads straight onto this code.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.Enum):
    """A directive's kind. CHECK-COUNT-n is PLAIN with a count, as in LLVM; EOF is never
    written: the parser adds it to hold CHECK-DAG / CHECK-NOT lines after the last check."""

    PLAIN = ""
    NEXT = "-NEXT"
    SAME = "-SAME"
    NOT = "-NOT"
    DAG = "-DAG"
    LABEL = "-LABEL"
    EMPTY = "-EMPTY"
    EOF = "implicit EOF"


@dataclass(frozen=True, slots=True)
class Options:
    """The FileCheck command-line options sassview supports, with LLVM's defaults."""

    prefixes: tuple[str, ...] = ("CHECK",)
    comment_prefixes: tuple[str, ...] = ("COM", "RUN")
    strict_whitespace: bool = False  # --strict-whitespace
    match_full_lines: bool = False  # --match-full-lines
    ignore_case: bool = False  # --ignore-case
    implicit_check_not: tuple[str, ...] = ()  # --implicit-check-not
    enable_var_scope: bool = False  # --enable-var-scope
    allow_empty: bool = False  # --allow-empty
    defines: tuple[tuple[str, str], ...] = ()  # -D NAME=VALUE


@dataclass(frozen=True, slots=True)
class Location:
    """A point in a named text, 1-based line and column, with the text of that line."""

    name: str
    line: int
    column: int
    line_text: str


@dataclass(frozen=True, slots=True)
class Literal:
    text: str


@dataclass(frozen=True, slots=True)
class Regex:
    """`{{...}}`: already translated to Python `re` syntax (see pattern.translate_regex)."""

    source: str
    where: Location


@dataclass(frozen=True, slots=True)
class Define:
    """`[[NAME:regex]]`: matches regex and binds what it matched to NAME."""

    name: str
    source: str
    where: Location


@dataclass(frozen=True, slots=True)
class Use:
    """`[[NAME]]`: the value NAME was bound to, matched literally."""

    name: str
    where: Location


Piece = Literal | Regex | Define | Use


@dataclass(frozen=True, slots=True)
class Pattern:
    pieces: tuple[Piece, ...]
    text: str  # as written (whitespace canonicalised), for messages and fuzzy matching
    full_lines: bool = False  # --match-full-lines

    @property
    def fixed(self) -> str | None:
        """The literal to search for when the pattern has no regex and no variables."""
        if self.full_lines or any(not isinstance(p, Literal) for p in self.pieces):
            return None
        return "".join(p.text for p in self.pieces if isinstance(p, Literal))

    @property
    def has_variables(self) -> bool:
        return any(isinstance(p, Define | Use) for p in self.pieces)


@dataclass(frozen=True, slots=True)
class Directive:
    kind: Kind
    prefix: str  # CHECK, or the --check-prefix that introduced it
    pattern: Pattern
    where: Location  # the start of the pattern (where LLVM puts its caret)
    count: int = 1  # CHECK-COUNT-n

    @property
    def name(self) -> str:
        """How messages call it: CHECK-NEXT, CHECK-COUNT, implicit EOF (as LLVM does)."""
        if self.kind is Kind.EOF:
            return "implicit EOF"
        if self.count > 1:
            return self.prefix + "-COUNT"
        return self.prefix + str(self.kind.value)


@dataclass(frozen=True, slots=True)
class Check:
    """One positive directive and the CHECK-DAG / CHECK-NOT lines written before it."""

    directive: Directive
    dag_not: tuple[Directive, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckFile:
    name: str
    checks: tuple[Check, ...]
