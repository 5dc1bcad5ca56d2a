"""The padding knob of `sassview try`: a bank conflict on a shared array whose row length is a
macro (`__shared__ float tile[TILE][TILE + PAD]`) is tried again with that macro one larger
(`-DPAD=1`): the rows one element longer, the column walk spread over every bank.

A macro can be turned only when the compile can set it: not defined in the source, or defined
under `#ifndef` (a `-D` then wins), or a variant or define of the declaration. Which array: the
one a bank-conflict finding's source line indexes. Anything else (a literal `[32][32]`, a size
from a template parameter) gets no trial: its hint stays advice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sassview.analyses import Annotation

# __shared__ float tile[TILE][TILE + PAD];  (alignment attributes and qualifiers allowed)
_SHARED = re.compile(
    r"__shared__\s+(?:[\w:<>,\s*()]+?)\s+(\w+)\s*((?:\[[^\];]+\]\s*)+);", re.MULTILINE
)
_NAME = re.compile(r"[A-Za-z_]\w*")


def padding_knob(
    finding: Annotation, variant: Mapping[str, Any], defines: tuple[str, ...] = ()
) -> tuple[str, str, int] | None:
    """(the macro, the array, the value to try) for a bank-conflict finding, or None."""
    if finding.kind != "bank-conflict" or not finding.source:
        return None
    where = finding.source[0]
    text = _read(where.file)
    if text is None:
        return None
    lines = text.splitlines()
    line = lines[where.line - 1] if 0 < where.line <= len(lines) else ""
    for m in _SHARED.finditer(text):
        name, dims = m.group(1), re.findall(r"\[([^\]]+)\]", m.group(2))
        if len(dims) < 2 or not re.search(rf"\b{re.escape(name)}\s*\[", line):
            continue
        for macro in _NAME.findall(dims[-1]):  # the row length: the last dimension
            value = _current(macro, text, variant, defines)
            if value is not None:
                return macro, name, value + 1
    return None


def _current(
    macro: str, text: str, variant: Mapping[str, Any], defines: tuple[str, ...]
) -> int | None:
    """The macro's value as this compile sets it, when a `-D` can change it; else None."""
    if macro in variant:
        return _int(variant[macro])
    for d in defines:
        key, _, value = d.partition("=")
        if key == macro:
            return _int(value or "1")
    defined = re.search(rf"^\s*#\s*define\s+{macro}\b[ \t]*(.*)$", text, re.MULTILINE)
    if defined is None:
        return None  # defined nowhere the compile sets: not a knob (or an enum, a constant)
    guarded = re.search(rf"^\s*#\s*ifndef\s+{macro}\b", text[: defined.start()], re.MULTILINE)
    return _int(defined.group(1)) if guarded else None


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip(), 0)
    except ValueError:
        return None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
