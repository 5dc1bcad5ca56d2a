"""The words of the C++ loop census: each entry's line, its remainder loops', and its findings
(a request not met, a constant-trip loop left rolled, a remainder nobody asked for). Written
here once; `check`, the TUI, exports and `assert_unrolled` read them or the entry itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from sassview.analyses.base import Annotation, Severity
from sassview.analyses.loops.entry import LoopEntry, verdict
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
    where, f = entry.where, entry.factor
    text = f"{where}: {verdict(entry)}"
    notes = [Annotation("unroll", Severity.INFO, text, **common)]  # type: ignore[arg-type]
    notes += [remainder_note(r, where, f, source, entry.sass_loops) for r in rest]
    for severity, message, hint in findings(entry):
        notes.append(Annotation("unroll", severity, message, hint, **common))  # type: ignore[arg-type]
    return notes


def remainder_note(
    loop: Loop, where: str, factor: int | None, source: tuple[SourceLoc, ...], main: Sequence[int]
) -> Annotation:
    """The info on a remainder loop: which unrolled loop it finishes (C++ and tile languages)."""
    return Annotation(
        "unroll",
        Severity.INFO,
        f"remainder loop of the {where} (the iterations the unroll by {factor} leaves over)",
        addresses=loop.addresses,
        blocks=tuple(sorted(loop.blocks)),
        loops=(loop.index,),
        source=source,
        data={"remainder_of": list(main)},
    )


def findings(e: LoopEntry) -> list[tuple[Severity, str, str]]:
    """What a C++ loop entry says beyond its verdict: a request not met, a constant-trip loop
    left rolled, a remainder the request made. Worded here only."""
    out: list[tuple[Severity, str, str]] = []
    want, f, where = e.requested, e.factor, e.where
    rolled = e.kind == "rolled"
    if want == "full" and rolled:
        out.append(
            (
                Severity.WARNING,
                f"{where}: #pragma unroll asked for full unrolling; a loop"
                + (f" unrolled by {f}" if f else "")
                + " remains",
                "the trip count is not a compile-time constant (or is too large): make the "
                "bound a constant or template parameter, or ask for a factor with #pragma unroll N",
            )
        )
    elif want == 1 and ((rolled and (f or 1) > 1) or (e.kind == "full" and (e.copies or 0) > 1)):
        got = f if rolled else e.copies
        out.append(
            (
                Severity.WARNING,
                f"{where}: #pragma unroll 1 asked to keep the loop rolled, got {got} copies",
                "check that the pragma sits directly above the loop",
            )
        )
    elif isinstance(want, int) and want > 1 and f is not None and rolled and f != want:
        out.append(
            (
                Severity.WARNING,
                f"{where}: #pragma unroll {want} asked for {want}, got {f}",
                "the compiler caps unrolling for code size and registers, and unrolls bodies "
                "with calls or barriers less: try a smaller #pragma unroll N",
            )
        )
    elif isinstance(want, int) and want > 1 and e.kind == "full" and (e.copies or 0) > want:
        out.append(
            (
                Severity.WARNING,
                f"{where}: #pragma unroll {want} asked for {want}, got {e.copies} (fully unrolled)",
                "the compiler caps unrolling for code size and registers, and unrolls bodies "
                "with calls or barriers less: try a smaller #pragma unroll N",
            )
        )
    if rolled and e.trip_count and e.trip_count > 1 and want is None:
        out.append(
            (
                Severity.NOTE,
                f"{where}: {e.trip_count} iterations known at compile time, but the loop stayed "
                f"rolled" + ("" if f in (None, 1) else f" (unrolled by {f})"),
                "the compiler judged the body too big to copy: #pragma unroll asks for full "
                "unrolling, #pragma unroll 1 says rolled is meant",
            )
        )
    if rolled and e.remainder and f and (want is None or (e.trip_count or 1) % f == 0):
        # Unasked, or on a count the factor divides: a remainder nobody asked for.
        why = "without being asked" if want is None else f"though {e.trip_count} divides by {f}"
        out.append(
            (
                Severity.INFO,
                f"{where}: unrolled by {f} {why}, leaving a remainder"
                + (" loop" if e.remainder_loops else " (straight-line)"),
                f"if the count is always a multiple of {f}, say so "
                f"(`__builtin_assume(n % {f} == 0)`), or pick the factor with #pragma unroll N",
            )
        )
    return out
