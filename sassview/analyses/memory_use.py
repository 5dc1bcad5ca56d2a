"""The memory-use line: the coalescing and bank-conflict analyses' counts in one sentence,
worded once for `check`, the JSON's `memory_use.text`, the export and the TUI."""

from __future__ import annotations

from sassview.analyses.records import BankFacts, CoalescingFacts


def memory_use_text(coalescing: CoalescingFacts, banks: BankFacts) -> str:
    """The one-line summary of both analyses' facts: 'global: 12 of 14 accesses coalesced;
    shared: 1 4-way conflict' (what `check` prints, and the JSON's `memory_use.text`)."""
    total = len(coalescing.accesses)
    text = "global: none" if not total else f"global: {coalescing.coalesced} of {total}"
    if total:
        text += f" access{'es' if total != 1 else ''} coalesced"
        if coalescing.unknown:
            text += f" ({coalescing.unknown} unknown)"
    shared = banks.accesses
    if not shared:
        return text + "; shared: none"
    ways: dict[int, int] = {}
    for a in shared:
        w = a["ways"]
        if w is not None and w > 1:
            ways[w] = ways.get(w, 0) + 1
    if ways:
        parts = [
            f"{n} {w}-way conflict{'s' if n != 1 else ''}"
            for w, n in sorted(ways.items(), reverse=True)
        ]
        text += "; shared: " + ", ".join(parts)
    else:
        known = len(shared) - banks.unknown
        of = f"{known} of " if banks.unknown else ""
        accesses = f"{len(shared)} access{'es' if len(shared) != 1 else ''}"
        if not known:  # "no conflicts in 2 accesses (2 unknown)" would claim what is unknown
            return text + f"; shared: {accesses}, all unknown"
        text += f"; shared: no conflicts in {of}{accesses}"
    if banks.unknown:
        text += f" ({banks.unknown} unknown)"
    return text
