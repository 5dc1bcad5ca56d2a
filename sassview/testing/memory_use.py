"""`assert_coalesced`, `assert_sectors`, `assert_no_bank_conflicts`: how well each access in
scope uses memory, as the coalescing and bank-conflict analyses count it for one warp.

Reads those analyses' `accesses` facts. An access whose address the warp model could not
follow fails an assertion that needs its count, with the reason (a gather, a run-time stride):
a test that asks "is it coalesced" gets no silent pass on an unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sassview.analyses.records import BankFacts, CoalescingFacts
from sassview.testing.failures import SassviewAssertionError, compose, counted_items

if TYPE_CHECKING:
    from sassview.testing.subject import Lines, LoopRef, Subject


class CoalescingMismatch(SassviewAssertionError):
    """Global accesses touch more 32-byte sectors per warp than the test allows."""


class BankConflictFound(SassviewAssertionError):
    """Shared accesses need more wavefronts per warp than their width does."""


def _in_scope(
    k: Subject, analysis: str, what: str, loop: LoopRef | None, lines: Lines | None
) -> tuple[list[Any], str]:
    __tracebackhide__ = True
    scope, where = k.scope(loop, lines)
    accesses: list[Any] = list(
        k.typed_facts(BankFacts).accesses
        if analysis == "bank_conflicts"
        else k.typed_facts(CoalescingFacts).accesses
    )
    found = [a for a in accesses if scope is None or a["address"] in scope]
    if not found:
        raise (BankConflictFound if analysis == "bank_conflicts" else CoalescingMismatch)(
            compose(f"{k.describe()}: no {what} {where}", expected=f"{what} {where}")
        )
    return found, where


def _unknown(k: Subject, a: Any) -> str:
    return f"/*{a['address']:04x}*/ {a['opcode']}: unknown ({a['unknown']})"


def check_coalesced(
    k: Subject, direction: str | None, loop: LoopRef | None, lines: Lines | None
) -> None:
    __tracebackhide__ = True
    found, where = _in_scope(k, "coalescing", "global accesses", loop, lines)
    found = [a for a in found if direction is None or a["direction"] == direction]
    bad = [a for a in found if a["coalesced"] is not True]
    if not bad:
        return
    addresses = {a["address"] for a in bad}
    raise CoalescingMismatch(
        compose(
            f"{k.describe()}: {len(bad)} of {len(found)} global accesses {where} are not "
            f"proven coalesced ({k.typed_facts(CoalescingFacts).block})",
            expected="each access touching the fewest 32-byte sectors its width allows",
            found=[
                _unknown(k, a)
                if a["sectors"] is None
                else f"/*{a['address']:04x}*/ {a['opcode']}: {a['sectors']} sectors, "
                f"min {a['min_sectors']} ({a['pattern']})"
                for a in bad
            ],
            findings=k.findings(("uncoalesced",), addresses),
            listing=k.excerpt(addresses),
        )
    )


def check_sectors(k: Subject, line: int, most: int) -> None:
    __tracebackhide__ = True
    found, where = _in_scope(k, "coalescing", "global accesses", None, line)
    bad = [a for a in found if a["sectors"] is None or a["sectors"] > most]
    if not bad:
        return
    addresses = {a["address"] for a in bad}
    raise CoalescingMismatch(
        compose(
            f"{k.describe()}: {len(bad)} global accesses {where} touch more than {most} "
            "sectors per warp, or an unknown number",
            expected=f"at most {most} sectors per warp-wide access",
            found=counted_items(
                _unknown(k, a) if a["sectors"] is None else f"{a['opcode']}: {a['sectors']}"
                for a in bad
            ),
            findings=k.findings(("uncoalesced",), addresses),
            listing=k.excerpt(addresses),
        )
    )


def check_no_bank_conflicts(k: Subject, loop: LoopRef | None, lines: Lines | None) -> None:
    __tracebackhide__ = True
    found, where = _in_scope(k, "bank_conflicts", "shared accesses", loop, lines)
    bad = [a for a in found if a["ways"] is None or a["ways"] > 1]
    if not bad:
        return
    addresses = {a["address"] for a in bad}
    raise BankConflictFound(
        compose(
            f"{k.describe()}: {len(bad)} of {len(found)} shared accesses {where} conflict on "
            f"banks or are unknown ({k.typed_facts(BankFacts).block})",
            expected="no bank conflict: the fewest wavefronts per warp the width allows",
            found=[
                _unknown(k, a)
                if a["ways"] is None
                else f"/*{a['address']:04x}*/ {a['opcode']}: {a['ways']}-way, "
                f"{a['wavefronts']} wavefronts where {a['ideal']} would do ({a['pattern']})"
                for a in bad
            ],
            findings=k.findings(("bank-conflict",), addresses),
            listing=k.excerpt(addresses),
        )
    )
