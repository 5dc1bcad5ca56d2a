"""`assert_load_width` / `assert_store_width`: every access in scope is as wide as asked.

Reads the memory analysis' `accesses` facts (width, space, direction per instruction); the near
misses are its merge-candidate annotations — several narrow accesses from one base at
consecutive offsets — quoted with their hint (alignment, `__restrict__`, `tl.multiple_of`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sassview.analyses.records_memory import MemoryFacts
from sassview.testing.failures import (
    WidthMismatch,
    compare,
    compose,
    counted,
    counted_items,
    holds,
    spec_text,
)

if TYPE_CHECKING:
    from sassview.testing.subject import Lines, LoopRef, Subject

_EXAMPLE = {
    ("global", "load"): "LDG.E.128",
    ("global", "store"): "STG.E.128",
    ("shared", "load"): "LDS.128",
    ("shared", "store"): "STS.128",
}


def wide_enough(bits: int | str, operator: str, value: int) -> bool:
    """`bits` is an int, or "bulk" (TMA / bulk copies move whole tiles: wider than any bound)."""
    if isinstance(bits, int):
        return holds(bits, operator, value)
    return operator in (">", ">=", "!=")


def check_width(
    k: Subject,
    spec: int | str,
    direction: str,
    space: str | None,
    loop: LoopRef | None,
    lines: Lines | None,
) -> None:
    __tracebackhide__ = True
    op, value = compare(spec)
    scope, where = k.scope(loop, lines)
    what = f"{space + ' ' if space else ''}{direction}s"
    everything = [
        a
        for a in k.inspection.typed_facts(MemoryFacts).accesses
        if scope is None or a["address"] in scope
    ]
    accesses = [
        a
        for a in everything
        if a["direction"] == direction and (space is None or a["space"] == space)
    ]
    if not accesses:
        others = counted(f"{a['opcode']} ({a['space']} {a['direction']})" for a in everything)
        raise WidthMismatch(
            compose(
                f"{k.describe()}: no {what} {where}",
                expected=f"{what} of {spec_text(op, value)} bits {where}",
                found=f"memory accesses {where}: {others}",
                listing=k.excerpt([a["address"] for a in everything]),
            )
        )
    bad = [a for a in accesses if not wide_enough(a["bits"], op, value)]
    if not bad:
        return
    addresses = {a["address"] for a in bad}
    example = _EXAMPLE.get((space or "", direction)) if value == 128 and "<" not in op else None
    expected = f"{spec_text(op, value)}-bit {what}" + (f" (e.g. {example})" if example else "")
    raise WidthMismatch(
        compose(
            f"{k.describe()}: {len(bad)} of {len(accesses)} {what} {where} are not "
            f"{spec_text(op, value)} bits wide",
            expected=expected,
            found=counted_items(f"{a['opcode']} ({_bits(a['bits'])})" for a in bad),
            near_miss=[
                _near_miss(k, a, direction) for a in k.findings(("merge-candidate",), addresses)
            ],
            findings=k.findings(("narrow-access",), addresses),
            listing=k.excerpt(addresses),
        )
    )


def _offsets(offsets: tuple[int, ...]) -> str:
    """`0x0, 0x4, 0x8, 0xc`; a longer run as its ends and step (`0x0, 0x4, ..., 0x3c (every
    0x4)`): sixteen offsets on one line cannot be read. The count before it is this run's (a
    line's other runs are the finding's "and 2 more such runs")."""
    if len(offsets) <= _LISTED_OFFSETS:
        return ", ".join(map(hex, offsets))
    steps = {b - a for a, b in zip(offsets, offsets[1:], strict=False)}
    if len(steps) == 1:
        return (
            f"{hex(offsets[0])}, {hex(offsets[1])}, ..., {hex(offsets[-1])} (every {hex(*steps)})"
        )
    shown = ", ".join(map(hex, offsets[: _LISTED_OFFSETS - 1]))
    return f"{shown}, ..., {hex(offsets[-1])} ({len(offsets)} offsets)"


_LISTED_OFFSETS = 6


def _bits(bits: int | str) -> str:
    return f"{bits}-bit" if isinstance(bits, int) else str(bits)


def _near_miss(k: Subject, note: Any, direction: str) -> tuple[str, str]:
    """A merge candidate in words: `4 x LDG.E at offsets 0x0, 0x4, 0x8, 0xc from one base
    desc[UR4][R2.64]: 16 contiguous bytes in 32-bit loads`, and the analysis' hint."""
    data = note.data
    first = k.kernel.instruction_at(note.addresses[0]) if note.addresses else None
    opcode = first.mnemonic if first is not None else "accesses"
    run = tuple(data.get("offsets", ()))
    text = (
        f"{len(run) or len(note.addresses)} x {opcode} at offsets {_offsets(run)} from one base "
        f"{data.get('base', '?')}: {data.get('bytes', '?')} contiguous bytes in "
        f"{data.get('bits', '?')}-bit {direction}s ({note.message})"
    )
    return text, note.hint
