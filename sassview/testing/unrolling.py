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
    from sassview.analyses.base import Annotation
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


def _check_request(factor: int | str | None, copies: int | None) -> None:
    """Refuse what no loop can be asked to be: a factor that is not a positive int, "full" or
    None; copies that are not a positive int, or given with a factor."""
    if (
        factor is not None
        and factor != "full"
        and (isinstance(factor, bool) or not isinstance(factor, int) or factor < 1)
    ):
        raise ValueError(f"factor={factor!r}: expected a positive int, 'full' or None")
    if copies is not None and (isinstance(copies, bool) or copies < 1 or factor is not None):
        raise ValueError(f"copies={copies!r}: a positive int, and not with factor=")


def _wanted(factor: int | str | None, copies: int | None) -> str:
    """The request in the words of the failure's `expected:` line."""
    if copies is not None:
        return f"fully unrolled into {copies} copies"
    if factor is None:
        return "unrolled"
    return "fully unrolled" if factor == "full" else f"unrolled by {factor}"


def _here(
    k: Subject, entries: Sequence[LoopEntry], line: int, calls: tuple[int, ...] | None
) -> list[LoopEntry]:
    """The loop statements at `line` (inlined at `calls`, when given), the main file's first,
    then the least inlined."""
    here = [
        e
        for e in entries
        if e.line == line
        and e.statement
        and (calls is None or tuple(c.line for c in e.inlined_at) == calls)
    ]
    main = k.main_file()
    return sorted(here, key=lambda e: (e.file != main, len(e.inlined_at)))


def _no_loop(k: Subject, entries: Sequence[LoopEntry], at: str, want: str) -> UnrollMismatch:
    """No loop statement at the line asked: the failure lists every loop there is."""
    others = "; ".join(f"{e.where}: {describe(e)}" for e in entries)
    return UnrollMismatch(
        compose(
            f"{k.describe()}: no loop at {at}",
            expected=f"a loop at {at}, {want}",
            found=others or "no loops (none in the source, none in the SASS)",
        )
    )


def _marked(k: Subject, entry: LoopEntry) -> list[int]:
    """The addresses the failure's listing marks: the main SASS loop's first and last, or
    where a fully unrolled loop's code begins."""
    addresses = [a for lp in entry.sass_loops[:1] for a in k.loops[lp].addresses]
    if addresses:
        return addresses[:1] + addresses[-1:]
    return [entry.first_address] if entry.first_address is not None else []


def _notes(k: Subject, line: int) -> list[Annotation]:
    """The unroll analysis' own findings on the loop at `line`."""
    return [
        a
        for a in k.inspection.annotations
        if a.kind == "unroll"
        and a.data.get("source_line", line) == line
        and (not a.source or a.source[0].line == line)
    ]


def _mismatch(k: Subject, entry: LoopEntry, want: str, line: int) -> UnrollMismatch:
    """The loop is there and not as asked: what it is, how that was decided, its findings
    and its code."""
    return UnrollMismatch(
        compose(
            f"{k.describe()}: {entry.where} is {describe(entry)}",
            expected=want,
            found=describe(entry) + f"; {entry.instructions} instructions",
            findings=_notes(k, line),
            listing=k.excerpt(_marked(k, entry)),
        )
    )


def check_unrolled(
    k: Subject,
    line: int,
    factor: int | str | None,
    copies: int | None = None,
    inlined_at: int | Sequence[int] | None = None,
) -> None:
    __tracebackhide__ = True
    _check_request(factor, copies)
    entries = k.inspection.typed_facts(UnrollFacts).entries
    calls = _calls(inlined_at)
    here = _here(k, entries, line, calls)
    want = _wanted(factor, copies)
    if not here:
        at = f"line {line}" + (f" inlined at {', '.join(map(str, calls))}" if calls else "")
        raise _no_loop(k, entries, at, want)
    wrong = [e for e in here if not satisfied(e, factor, copies)]
    if wrong:
        raise _mismatch(k, wrong[0], want, line)
