"""The words of the C++ loop census: each entry's line, its remainder loops', and its findings
(a request not met, a constant-trip loop left rolled, a remainder nobody asked for). Written
here once; `check`, the TUI, exports and `assert_unrolled` read them or the entry itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from sassview.analyses.base import Annotation, Severity
from sassview.analyses.loops.entry import LoopEntry, decided_verdict
from sassview.graph.loops import Loop
from sassview.ir import SourceLoc


def describe(entry: LoopEntry, code: tuple[int, ...], rest: list[Loop]) -> list[Annotation]:
    """The entry's INFO line, one per remainder loop, and its findings. `code`: the addresses
    the notes point at (the main SASS loop's, or a full loop's code)."""
    source = (SourceLoc(entry.file, entry.line),) if entry.line and entry.file else ()
    common = {
        "addresses": code,
        "source": source,
        "blocks": entry.blocks,
        "loops": entry.sass_loops[:1],
        "data": entry.to_json(),
    }
    # An unroll nobody asked for is said in the verdict's finding, with its advice: one
    # cause, one finding (the verdict and an "unrolled by 4 without being asked" beside it
    # read as the loop said twice).
    clause, hint = unasked_remainder(entry, judged_factor(entry)) or ("", "")
    text = f"{entry.where}: {decided_verdict(entry, clause)}"
    notes = [Annotation("unroll", Severity.INFO, text, hint, **common)]  # type: ignore[arg-type]
    notes += [remainder_note(r, entry, source) for r in rest]
    for severity, message, hint in findings(entry):
        notes.append(Annotation("unroll", severity, message, hint, **common))  # type: ignore[arg-type]
    return notes


def remainder_note(loop: Loop, entry: LoopEntry, source: tuple[SourceLoc, ...]) -> Annotation:
    """The info on a remainder loop: which unrolled loop it finishes, the loop named as every
    view names it (`loop at line 9 (remainder loop 1 of 2)`: two remainder loops of one
    statement are two notes, never the same words twice)."""
    place = entry.place_of(loop.index) or f"{entry.place} (remainder loop)"
    where = place if entry.line is None else f"loop at {place}"
    return Annotation(
        "unroll",
        Severity.INFO,
        f"{where}: the iterations the unroll by {entry.factor or '?'} leaves over",
        addresses=loop.addresses,
        blocks=tuple(sorted(loop.blocks)),
        loops=(loop.index,),
        source=source,
        data={"remainder_of": list(entry.sass_loops)},
    )


@dataclass(frozen=True, slots=True)
class _Words:
    """How one way of asking is written in the findings: full, rolled, N, and the hints."""

    full: str
    rolled: str
    factor: str  # with {n}
    full_hint: str
    rolled_hint: str
    knob: str  # what asks for a factor, in the hints
    stayed_hint: str


_CAPPED = (
    "the compiler caps unrolling for code size and registers, and unrolls bodies with calls "
    "or barriers less: try a smaller {knob}"
)
_PRAGMA = _Words(
    "#pragma unroll",
    "#pragma unroll 1",
    "#pragma unroll {n}",
    "the trip count is not a compile-time constant (or is too large): make the bound a "
    "constant or template parameter, or ask for a factor with #pragma unroll N",
    "check that the pragma sits directly above the loop",
    "#pragma unroll N",
    "the compiler judged the body too big to copy: #pragma unroll asks for full unrolling, "
    "#pragma unroll 1 says rolled is meant",
)
_RANGE = _Words(
    "unroll_full=True",
    "unroll=1",
    "unroll={n}",
    "the trip count is not known when the DSL compiles: make the bounds constants (Python "
    "ints or cutlass.Constexpr), or ask for a factor with unroll=N",
    "check that the request is on this loop",
    "unroll=N",
    "the compiler judged the body too big to copy: cutlass.range(..., unroll_full=True) or "
    "range_constexpr unrolls it, unroll=1 says rolled is meant",
)
_TRITON = _Words(
    "tl.static_range",
    "loop_unroll_factor=1",
    "loop_unroll_factor={n}",
    "",
    "check that the request is on this loop",
    "loop_unroll_factor=N",
    "the compiler judged the body too big to copy: tl.static_range unrolls it while tracing, "
    "tl.range(..., loop_unroll_factor=N) by a factor",
)
_PTX = _Words(
    "",
    '.pragma "nounroll"',
    "",
    "",
    "ptxas should leave nounroll loops rolled: check the pragma precedes the loop",
    "",
    "",
)
_WORDS = {"range": _RANGE, "range_constexpr": _RANGE, "loop_unroll_factor": _TRITON}
_WORDS.update(static_range=_TRITON, ptx=_PTX)


def words(e: LoopEntry) -> _Words:
    """The words of the entry's way of asking (a C++ pragma unless a Python range call)."""
    if e.requested_by in _WORDS:
        return _WORDS[e.requested_by]
    return (
        _TRITON
        if e.unroller == "Triton"
        else _RANGE
        if e.file and e.file.endswith(".py")
        else _PRAGMA
    )


_Said = list[tuple[Severity, str, str]]  # (severity, message, hint)


def judged_factor(e: LoopEntry) -> int | None:
    """The factor a request is judged by: the SASS one; a Python range call's request is met
    before the PTX, so the PTX factor where that is known; a PTX file's pragma, ptxas' own."""
    if e.requested_by == "ptx":  # ptxas alone is judged: the copies of each PTX line
        return dict(e.extra).get("ptxas_factor", e.factor)
    if e.requested_by != "pragma" and e.ptx_factor is not None:
        return e.ptx_factor
    return e.factor


def findings(e: LoopEntry) -> _Said:
    """What a loop entry says beyond its verdict: a request not met, a constant-trip loop left
    rolled. Worded here only. (A remainder nobody asked for is said in the verdict's own
    finding: `unasked_remainder`.)"""
    f = judged_factor(e)
    return _unmet(e, f) + _stayed_rolled(e, f)


def _unmet(e: LoopEntry, f: int | None) -> _Said:
    """The request not met, if one was (`f`: the factor it is judged by)."""
    out: _Said = []
    want, where, w = e.requested, e.where, words(e)
    rolled = e.kind == "rolled"
    if want == "full" and rolled:
        out.append(
            (
                Severity.WARNING,
                f"{where}: {w.full} asked for full unrolling; a loop"
                + (f" unrolled by {f}" if f else "")
                + " remains",
                w.full_hint,
            )
        )
    elif want == 1 and ((rolled and (f or 1) > 1) or (e.kind == "full" and (e.copies or 0) > 1)):
        got = f if rolled else e.copies
        message = f"{where}: {w.rolled} asked to keep the loop rolled, got {got} copies"
        if w is _PTX:
            message = f"{where}: PTX {w.rolled}, but ptxas unrolled it by {got}"
        out.append((Severity.WARNING, message, w.rolled_hint))
    elif isinstance(want, int) and want > 1 and f is not None and rolled and f != want:
        asked = w.factor.format(n=want)
        out.append(
            (
                Severity.WARNING,
                f"{where}: {asked} asked for {want}, got {f}",
                _CAPPED.format(knob=w.knob),
            )
        )
    elif isinstance(want, int) and want > 1 and e.kind == "full" and (e.copies or 0) > want:
        asked = w.factor.format(n=want)
        out.append(
            (
                Severity.WARNING,
                f"{where}: {asked} asked for {want}, got {e.copies} (fully unrolled)",
                _CAPPED.format(knob=w.knob),
            )
        )
    return out


def _stayed_rolled(e: LoopEntry, f: int | None) -> _Said:
    """What nobody asked for: a constant-trip loop left rolled."""
    want, rolled = e.requested, e.kind == "rolled"
    if not (rolled and e.trip_count and e.trip_count > 1 and want is None):
        return []
    message = (
        f"{e.where}: {e.trip_count} iterations known at compile time, but the loop stayed "
        f"rolled" + ("" if f in (None, 1) else f" (unrolled by {f})")
    )
    return [(Severity.NOTE, message, words(e).stayed_hint)]


def unasked_remainder(e: LoopEntry, f: int | None) -> tuple[str, str] | None:
    """A remainder nobody asked for (the loop unrolled unasked, or by a factor its constant
    count divides): the clause the verdict's finding says it in (`, without being asked`)
    and the advice; None where the remainder was asked for, or there is none."""
    want, w = e.requested, words(e)
    if not (e.kind == "rolled" and e.remainder and f):
        return None
    if want is not None and (e.trip_count or 1) % f:
        return None
    why = ", without being asked" if want is None else f", though {e.trip_count} divides by {f}"
    if e.factor is None:  # judged by a factor the verdict does not give: it says no remainder
        why = ", with a remainder" + why
    hint = (
        f"if the count is always a multiple of {f}, say so "
        f"(`__builtin_assume(n % {f} == 0)`), or pick the factor with #pragma unroll N"
        if w is _PRAGMA
        else f"pick the factor with {w.knob}"
    )
    return why, hint
