"""`assert_stall_cycles`: a loop's issue schedule stays within a budget of cycles per trip.

Reads the schedule analysis (sassview.analyses.schedule): the stall counts ptxas encoded in
the control codes, summed over one trip of a loop (an outer loop's own code outside its inner
loops), per warp — the compiler's plan,
not a measurement. A regression in scheduling (a dependent chain where there were independent
accumulators, a load used right after it is issued) shows as more cycles per trip, or as a
smaller share of them on the math the loop exists for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sassview.analyses.records_compute import LoopFact, ScheduleFacts, placed_text
from sassview.testing.failures import SassviewAssertionError, compose

if TYPE_CHECKING:
    from sassview.testing.subject import Subject


class ScheduleMismatch(SassviewAssertionError):
    """A loop takes more issue cycles per trip (or less math) than the test allows."""


def _loop_at(k: Subject, line: int) -> LoopFact:
    """The SASS loop at `line`; where ptxas left a remainder loop beside the main one, the
    main loop: the one with the most instructions (the unrolled body)."""
    __tracebackhide__ = True
    loops = k.inspection.typed_facts(ScheduleFacts).loops
    here = [s for s in loops if s["source_line"] == line]
    if not here:
        lines = sorted({s["source_line"] for s in loops if s["source_line"] is not None})
        raise ScheduleMismatch(
            compose(
                f"{k.describe()}: no loop at line {line} has a schedule",
                expected=f"a loop at line {line}",
                found="loops at lines " + ", ".join(map(str, lines))
                if lines
                else "no loop with control codes (sm_70 and later have them)",
                hint="name the line of the loop statement (a fully unrolled loop has no trip)",
            )
        )
    return max(here, key=lambda s: s["instructions"])


def check_stall_cycles(
    k: Subject,
    *,
    line: int,
    max_cycles: int | None,
    min_math_share: float | None,
) -> None:
    __tracebackhide__ = True
    s = _loop_at(k, line)
    short = []
    if max_cycles is not None and s["issue_cycles"] > max_cycles:
        short.append(f"{s['issue_cycles']} issue cycles per trip > {max_cycles}")
    if min_math_share is not None and s["math_share"] < min_math_share:
        short.append(f"math share {s['math_share']:.0%} < {min_math_share:.0%}")
    if not short:
        return
    asked = ", ".join(
        text
        for text, bound in (
            (f"<= {max_cycles} issue cycles per trip", max_cycles),
            (
                f">= {min_math_share:.0%} on math" if min_math_share is not None else "",
                min_math_share,
            ),
        )
        if bound is not None
    )
    addresses = k.inspection.loops[s["loop"]].addresses
    name = k.inspection.loop_name(s["loop"])
    raise ScheduleMismatch(
        compose(
            f"{k.describe()}: the loop at {name}: " + "; ".join(short),
            expected=asked,
            found=placed_text(s, name),
            hint="ptxas' plan from the control codes: more independent accumulators or "
            "software pipelining shorten the dependent chains a trip waits on",
            listing=k.excerpt(list(addresses)),
        )
    )
