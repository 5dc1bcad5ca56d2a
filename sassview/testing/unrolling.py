"""`assert_unrolled`: read the loop census' entry for one source loop, and explain it.

Kept apart from matchers.py because the explanation (what was asked, what was made, the
remainder, the analysis' own warning) is most of the work. The words come from the analysis
(`sassview.analyses.loops.entry`): the test failure says what `check` says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sassview.analyses.loops.entry import LoopEntry, UnrollFacts, decided_claim
from sassview.testing.failures import UnrollMismatch, compose

if TYPE_CHECKING:
    from sassview.testing.subject import Subject


def describe(entry: LoopEntry) -> str:
    """What the compiler made of one source loop, in words, and how the number was decided
    (`decided_claim`: `unrolled by 4, with a remainder loop [counted in the SASS]`)."""
    return decided_claim(entry)


def satisfied(entry: LoopEntry, factor: int | str | None, copies: int | None) -> bool:
    if copies is not None:
        return entry.kind == "full" and entry.copies == copies
    if factor is None:
        return entry.kind == "full" or (entry.factor or 1) > 1
    if factor == "full":
        return entry.kind == "full"
    # A loop with no SASS loop left ran `copies` copies: schema 1 called that its factor.
    return bool((entry.factor if entry.kind == "rolled" else entry.copies) == factor)


def _calls(inlined_at: int | Sequence[int] | None) -> tuple[int, ...] | None:
    if inlined_at is None:
        return None
    return (inlined_at,) if isinstance(inlined_at, int) else tuple(inlined_at)


def check_unrolled(
    k: Subject,
    line: int,
    factor: int | str | None,
    copies: int | None = None,
    inlined_at: int | Sequence[int] | None = None,
) -> None:
    __tracebackhide__ = True
    if (
        factor is not None
        and factor != "full"
        and (isinstance(factor, bool) or not isinstance(factor, int) or factor < 1)
    ):
        raise ValueError(f"factor={factor!r}: expected a positive int, 'full' or None")
    if copies is not None and (isinstance(copies, bool) or copies < 1 or factor is not None):
        raise ValueError(f"copies={copies!r}: a positive int, and not with factor=")
    entries = k.inspection.typed_facts(UnrollFacts).entries
    calls = _calls(inlined_at)
    here = [
        e
        for e in entries
        if e.line == line
        and e.statement
        and (calls is None or tuple(c.line for c in e.inlined_at) == calls)
    ]
    main = k.main_file()
    here.sort(key=lambda e: (e.file != main, len(e.inlined_at)))
    want = (
        f"fully unrolled into {copies} copies"
        if copies is not None
        else "unrolled"
        if factor is None
        else "fully unrolled"
        if factor == "full"
        else f"unrolled by {factor}"
    )
    at = f"line {line}" + (f" inlined at {', '.join(map(str, calls))}" if calls else "")
    if not here:
        others = "; ".join(f"{e.where}: {describe(e)}" for e in entries)
        raise UnrollMismatch(
            compose(
                f"{k.describe()}: no loop at {at}",
                expected=f"a loop at {at}, {want}",
                found=others or "no loops (none in the source, none in the SASS)",
            )
        )
    wrong = [e for e in here if not satisfied(e, factor, copies)]
    if not wrong:
        return
    entry = wrong[0]
    addresses = [a for lp in entry.sass_loops[:1] for a in k.loops[lp].addresses]
    marked = (
        addresses[:1] + addresses[-1:]
        if addresses
        else ([entry.first_address] if entry.first_address is not None else [])
    )
    notes = [
        a
        for a in k.inspection.annotations
        if a.kind == "unroll"
        and a.data.get("source_line", line) == line
        and (not a.source or a.source[0].line == line)
    ]
    raise UnrollMismatch(
        compose(
            f"{k.describe()}: {entry.where} is {describe(entry)}",
            expected=want,
            found=describe(entry) + f"; {entry.instructions} instructions",
            findings=notes,
            listing=k.excerpt(marked),
        )
    )
