"""The assertion errors the matchers raise, and the shape of their messages.

Every message answers, in order, what the test asked and what the compiler made, so the user
need not open the listing: a headline, expected / found, the nearest near miss with the hint
the analysis attached to it, any other finding in scope, then the slice of SASS with its
source lines. Findings and hints are the analyses' own annotations, quoted, never re-derived.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sassview.analyses import Annotation


class SassviewAssertionError(AssertionError):
    """A claim about a compiled kernel that does not hold. The message is self-contained."""


class SpillsFound(SassviewAssertionError):
    """The kernel spills registers to local memory."""


class TooManyRegisters(SassviewAssertionError):
    """The kernel uses more registers per thread than the test allows."""


class FeatureMismatch(SassviewAssertionError):
    """A feature (wgmma, cp.async, an opcode...) is missing, or present where it must not be."""


class UnrollMismatch(SassviewAssertionError):
    """A loop is not unrolled the way the test says, or there is no loop at that line."""


class WidthMismatch(SassviewAssertionError):
    """Memory accesses in scope are not as wide as the test says (or there are none)."""


class CountMismatch(SassviewAssertionError):
    """The number of instructions matching an opcode pattern is not what the test says."""


def compose(
    headline: str,
    *,
    expected: str = "",
    found: str | Sequence[str] = "",
    hint: str = "",
    near_miss: Sequence[tuple[str, str]] = (),
    findings: Iterable[Annotation] = (),
    listing: str = "",
) -> str:
    """One failure message; `near_miss` holds (what, hint) pairs. `found` as a list: a few
    items on the line, more one a line (29 accesses on one line cannot be read), at most
    FOUND_LINES of them."""
    lines = [headline]
    if expected:
        lines.append(f"  expected: {expected}")
    lines += _found(found)
    if hint:
        lines.append(f"  hint:     {hint}")
    for what, hint in near_miss:
        lines.append(f"  near miss: {what}")
        if hint:
            lines.append(f"    hint: {hint}")
    seen = {what for what, _ in near_miss}
    for a in findings:
        if a.message in seen:
            continue
        seen.add(a.message)
        lines.append(f"  finding: {a.message}")
        if a.hint:
            lines.append(f"    hint: {a.hint}")
    if listing:
        lines += ["", listing]
    return "\n".join(lines)


FOUND_LINES = 12


def _found(found: str | Sequence[str]) -> list[str]:
    if isinstance(found, str):
        return [f"  found:    {found}"] if found else []
    items = list(found)
    if len(items) <= 3:
        return [f"  found:    {'; '.join(items) or 'none'}"]
    shown = [f"    {item}" for item in items[:FOUND_LINES]]
    more = len(items) - FOUND_LINES
    return [f"  found:    {len(items)} distinct", *shown] + (
        [f"    ... and {more} more"] if more > 0 else []
    )


def compare(spec: int | str) -> tuple[str, int]:
    """(operator, value) of `4`, `"4"`, `">=128"`, `"< 3"`; a bare number means ==."""
    if isinstance(spec, bool):
        raise TypeError("expected a number or a comparison such as '>=128'")
    if isinstance(spec, int):
        return "==", spec
    text = spec.replace(" ", "")
    for op in ("==", ">=", "<=", "!=", ">", "<"):
        if text.startswith(op):
            text, operator = text[len(op) :], op
            break
    else:
        operator = "=="
    if not text.isdigit():
        raise ValueError(f"{spec!r}: expected a number or a comparison such as '>=128'")
    return operator, int(text)


def holds(value: int | float, operator: str, bound: int) -> bool:
    return {
        "==": value == bound,
        ">=": value >= bound,
        "<=": value <= bound,
        "!=": value != bound,
        ">": value > bound,
        "<": value < bound,
    }[operator]


def spec_text(operator: str, value: int) -> str:
    return str(value) if operator == "==" else f"{operator}{value}"


def counted(items: Iterable[str]) -> str:
    """'LDG.E x2, LDG.E.64' — each distinct item with its count, in first-seen order."""
    return ", ".join(counted_items(items)) or "none"


def counted_items(items: Iterable[str]) -> list[str]:
    """['LDG.E x2', 'LDG.E.64']: counted(), as a list for compose(found=...)."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return [f"{k} x{n}" if n > 1 else k for k, n in counts.items()]
