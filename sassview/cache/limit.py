"""The cache's size limit, $SASSVIEW_CACHE_MAX_MB, read apart from the sweep that enforces it:
every command asks for it (the CLI trims after each), and most run with no limit set, so they
need not import sweep.py and the layout survey and removals behind it.
"""

from __future__ import annotations

import math
import os

from sassview.errors import SassviewError


def parse_megabytes(text: str, what: str) -> float:
    """A size in MB as bytes: a number >= 0, or inf for no limit (1e400 is inf too)."""
    hint = "give a size in MB, e.g. 500; 0 keeps nothing, inf means no limit"
    try:
        mb = float(text)
    except ValueError:
        raise SassviewError(f"{what}={text!r} is not a number", hint) from None
    if math.isnan(mb) or mb < 0:
        raise SassviewError(f"{what}={text!r} is not a size", hint)
    return mb * 1_000_000


_held: list[bool] = []  # non-empty: this command only looks (`cache info`), it never trims


def hold() -> None:
    """This process's command must not trim the cache after it (`cache info` never deletes;
    `cache clear` and `prune` say what they remove themselves)."""
    _held.append(True)


def held() -> bool:
    return bool(_held)


def keeps_nothing() -> bool:
    """SASSVIEW_CACHE_MAX_MB=0: a cache that may keep nothing is no cache (layout.enabled),
    not one that writes each entry and deletes it after the command."""
    try:
        return float(os.environ.get("SASSVIEW_CACHE_MAX_MB", "").strip()) == 0
    except ValueError:
        return False  # not a number: size_limit says so


def size_limit() -> float | None:
    """Bytes allowed by $SASSVIEW_CACHE_MAX_MB, or None for no limit."""
    text = os.environ.get("SASSVIEW_CACHE_MAX_MB", "").strip()
    if not text:
        return None
    limit = parse_megabytes(text, "SASSVIEW_CACHE_MAX_MB")
    return None if math.isinf(limit) else limit
