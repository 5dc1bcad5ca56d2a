"""`assert_unrolled`: read the unroll analysis' verdict for one source loop, and explain it.

Kept apart from matchers.py because the explanation (what was asked, what was made, the
remainder, the analysis' own warning) is most of the work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sassview.testing.failures import UnrollMismatch, compose

if TYPE_CHECKING:
    from sassview.testing.matchers import KernelUnderTest


def describe(entry: dict[str, Any]) -> str:
    """What the compiler made of one source loop, in words."""
    f = entry["achieved_factor"]
    if not entry["has_back_edge"]:
        text = f"fully unrolled ({f} {'copy' if f == 1 else 'copies'}, no loop left)"
    elif f is None:
        text = "a loop whose unroll factor could not be measured"
    elif f == 1:
        text = "not unrolled"
    else:
        text = f"unrolled by {f}" + (", with a remainder" if entry["remainder"] else "")
    if entry.get("triton_remainder"):
        text = f"the remainder loop of Triton's unrolling, {text}"
    elif entry.get("triton_factor", 1) > 1:
        text += f" ({entry['triton_factor']} of them by Triton)"
    return text + asked(entry["requested_factor"], entry.get("requested_by") == "range")


def asked(requested: Any, by_range: bool = False) -> str:
    """How the source asked: a C++ pragma, or a CuTe DSL range call's keyword (`by_range`)."""
    if requested is None:
        return ""
    if by_range:
        return f" (asked: {'unroll_full=True' if requested == 'full' else f'unroll={requested}'})"
    if requested == "full":
        return " (asked: #pragma unroll)"
    return f" (asked: #pragma unroll {requested})"


def satisfied(entry: dict[str, Any], factor: int | str | None) -> bool:
    f, loop_left = entry["achieved_factor"], entry["has_back_edge"]
    if factor is None:
        return bool(not loop_left or (f or 1) > 1)
    if factor == "full":
        return not loop_left
    return bool(f == factor)


def check_unrolled(k: KernelUnderTest, line: int, factor: int | str | None) -> None:
    __tracebackhide__ = True
    if (
        factor is not None
        and factor != "full"
        and (isinstance(factor, bool) or not isinstance(factor, int) or factor < 1)
    ):
        raise ValueError(f"factor={factor!r}: expected a positive int, 'full' or None")
    loops = list(k.facts("unroll")["loops"])
    here = [e for e in loops if e["source_line"] == line]
    main = k._main_file()
    here.sort(key=lambda e: e.get("file") != main)
    want = (
        "unrolled"
        if factor is None
        else "fully unrolled"
        if factor == "full"
        else f"unrolled by {factor}"
    )
    if not here:
        others = "; ".join(f"line {e['source_line']}: {describe(e)}" for e in loops)
        raise UnrollMismatch(
            compose(
                f"{k.describe()}: no loop at line {line}",
                expected=f"a loop at line {line}, {want}",
                found=others or "no loops (none in the source, none in the SASS)",
            )
        )
    entry = here[0]
    if satisfied(entry, factor):
        return
    addresses = [a for lp in entry["sass_loops"][:1] for a in k.loops[lp].addresses]
    marked = (
        addresses[:1] + addresses[-1:]
        if addresses
        else ([entry["first_address"]] if entry["first_address"] is not None else [])
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
            f"{k.describe()}: loop at line {line} is {describe(entry)}",
            expected=want,
            found=describe(entry) + f"; {entry['instructions']} instructions",
            findings=notes,
            listing=k._slice(marked),
        )
    )
