"""`KernelUnderTest.filecheck`: run FileCheck over a kernel's listing, and say where the checks
were written.

Check text passed as a string is usually a literal in the test file; finding it there (by its
lines, indentation aside) lets every message point at `test_kernels.py:42:16` rather than at
line 3 of an anonymous string.
"""

from __future__ import annotations

import linecache
import os
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from sassview.report import listing as _listing

if TYPE_CHECKING:
    from sassview.testing.subject import Subject

_TUPLES = ("prefixes", "comment_prefixes", "implicit_check_not")


def check_listing(
    k: Subject,
    checks: str | os.PathLike[str],
    on: str,
    options: dict[str, Any],
    caller: FrameType,
) -> None:
    __tracebackhide__ = True
    from sassview.testing.filecheck import FileCheckFailure, Options, run_filecheck

    if isinstance(checks, os.PathLike):
        path = Path(checks)
        text, name, first, column = path.read_text(encoding="utf-8"), str(path), 1, 0
    else:
        text = checks
        name, first, column = origin(text, caller)
    if on == "ptx":
        listing, start = _listing.ptx_listing(k.program, k.kernel)
    elif on == "sass":
        listing, start = k.sass_text(), 1
    else:
        raise ValueError(f"on={on!r}: expected 'sass' or 'ptx'")
    opts = {key: (v,) if key in _TUPLES and isinstance(v, str) else v for key, v in options.items()}
    result = run_filecheck(
        text,
        listing,
        options=Options(**opts),  # type: ignore[arg-type]
        checks_name=name,
        checks_first_line=first,
        checks_column_offset=column,
        input_name=f"{k.name}.{k.arch}.{on}",
        input_first_line=start,
    )
    if not result.ok:
        raise FileCheckFailure(
            f"FileCheck failed on {k.describe()} {on.upper()}:\n" + result.report(),
            list(result.diagnostics),
        )


def origin(text: str, frame: FrameType) -> tuple[str, int, int]:
    """(file, first line, column offset) of check text written as a literal in the caller's
    file, so FileCheck's messages point at the test's own lines; else a made-up name."""
    filename = frame.f_code.co_filename
    wanted = [(n, line) for n, line in enumerate(text.split("\n")) if line.strip()]
    source = linecache.getlines(filename)
    if wanted and source:
        stripped = [s.strip() for s in source]
        first_n, first_line = wanted[0]
        for at, s in enumerate(stripped):
            if s != first_line.strip():
                continue
            base = at - first_n
            if all(
                0 <= base + n < len(stripped) and stripped[base + n] == line.strip()
                for n, line in wanted
            ):
                indent = len(source[at]) - len(source[at].lstrip())
                return (
                    _short(filename),
                    base + 1,
                    indent - (len(first_line) - len(first_line.lstrip())),
                )
    return f"<checks at {Path(filename).name}:{frame.f_lineno}>", 1, 0


def _short(filename: str) -> str:
    """A path relative to the working directory when it is under it, as pytest shows paths."""
    try:
        return str(Path(filename).relative_to(Path.cwd()))
    except ValueError:
        return filename
