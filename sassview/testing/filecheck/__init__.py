"""LLVM FileCheck, in Python: check text (a SASS or PTX listing, or anything) against a check
file, with LLVM's directives, semantics and messages.

    from sassview.testing.filecheck import filecheck
    filecheck("CHECK: LDG.E.128\\nCHECK-NOT: STL", listing)     # raises FileCheckFailure

Split by phase, as in AntonLydike/filecheck: `parser` turns check text into `directives`,
`pattern` turns a pattern into a regex, `matcher` runs LLVM's algorithm, `report` says where
and why. Supported: CHECK, -NEXT, -SAME, -NOT, -DAG, -LABEL, -EMPTY, -COUNT-n, {LITERAL},
COM:/RUN: comments, `{{regex}}`, `[[VAR:regex]]`, `[[VAR]]`, `[[$VAR]]`, `[[@LINE±n]]`, and the
options in `Options`. Not supported: numeric substitution blocks (`[[#...]]`). Regexes are
Python `re` syntax (see `pattern`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sassview.testing.filecheck.directives import CheckFile, Options
from sassview.testing.filecheck.matcher import Matcher
from sassview.testing.filecheck.parser import parse_checks
from sassview.testing.filecheck.report import (
    CheckFileError,
    Diagnostic,
    FileCheckFailure,
    InputText,
    render,
)


@dataclass(frozen=True, slots=True)
class FileCheckResult:
    diagnostics: tuple[Diagnostic, ...]
    input: InputText

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)

    def report(self) -> str:
        """LLVM-style messages, then the lines of the input they point at."""
        return render(list(self.diagnostics), self.input)


def run_filecheck(
    checks: str | CheckFile,
    text: str,
    *,
    options: Options = Options(),  # noqa: B008 - frozen
    checks_name: str = "<checks>",
    checks_first_line: int = 1,
    checks_column_offset: int = 0,
    input_name: str = "<input>",
    input_first_line: int = 1,
) -> FileCheckResult:
    """Check `text`; raises CheckFileError when the checks themselves are malformed."""
    parsed = (
        checks
        if isinstance(checks, CheckFile)
        else parse_checks(
            checks,
            name=checks_name,
            options=options,
            first_line=checks_first_line,
            column_offset=checks_column_offset,
        )
    )
    source = InputText(
        text, input_name, first_line=input_first_line, canonical=not options.strict_whitespace
    )
    diagnostics = Matcher(parsed, source, options).run()
    return FileCheckResult(tuple(diagnostics), source)


def filecheck(checks: str | CheckFile, text: str, **kwargs: object) -> None:
    """run_filecheck, raising FileCheckFailure (an AssertionError) with the report on failure."""
    __tracebackhide__ = True
    result = run_filecheck(checks, text, **kwargs)  # type: ignore[arg-type]
    if not result.ok:
        raise FileCheckFailure(result.report(), list(result.diagnostics))


__all__ = [
    "CheckFile",
    "CheckFileError",
    "Diagnostic",
    "FileCheckFailure",
    "FileCheckResult",
    "InputText",
    "Options",
    "filecheck",
    "parse_checks",
    "run_filecheck",
]
