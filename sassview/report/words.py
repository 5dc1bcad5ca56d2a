"""The words a kernel's facts are said in wherever a view shows them: `check`'s rows, the TUI's
header and findings panel (so `check` and the TUI cannot seem to disagree). An analysis' own
rows are worded by its facts record (sassview/analyses/facts.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def finding_counts(severities: Iterable[str]) -> str:
    """`1 warning, 2 notes, 10 info`: findings by severity, worst first. Every view that counts
    findings says it this way, so `check` and the TUI cannot seem to disagree."""
    counts = Counter(severities)
    words = {"warning": "warnings", "note": "notes", "info": "info"}
    return ", ".join(
        f"{counts[s]} {s if counts[s] == 1 else plural}" for s, plural in words.items() if counts[s]
    )


def spills_row(stored: int | None, loaded: int | None, marked: int) -> str:
    """The spills row, one truth with the spill findings: without a ptxas report the bytes are
    unknown, but the instructions nvdisasm marks as spills are not ("unknown" above a warning
    that counts them said two things)."""
    if stored is None:
        if marked:
            return f"{marked} spill instructions (bytes unknown: no ptxas report)"
        return "unknown (no ptxas report)"
    if stored or loaded:
        return f"{stored} B stored, {loaded} B loaded"
    return "none"
