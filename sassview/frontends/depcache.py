"""Cache entries keyed by files a compiler names only after it ran (nvcc, see nvcc.py).

The key of a result must cover every header that went in, but which headers go in is known only
from the compile. So, as ccache's direct mode does, the lookup goes in two steps:

- `base` covers what is known beforehand (the source, options, arch, compiler versions). Under it
  a small entry lists the files the last compile read;
- the result lives under hash(base, the digest of each listed file as it is now).

A header edit changes a digest, so the lookup misses and the compile runs. When a compile reads
a different list (a header gained an include), the new list is linked from the key that missed,
so the next lookup follows the link instead of missing forever: entries are never rewritten.
The chain is followed a bounded number of steps.

nvcc's list names only the files it read, not the places it looked first: a header created
later in front of a listed one on the search path (shadowing it) would not change the key. So
a list also keeps the paths `probed` (every place an include could resolve, from the scan NVRTC
uses, frontends/includes.py), each keyed as its bytes or as absent, as the NVRTC key does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sassview import cache

MAX_LINKS = 16
_DEPS_FILE = "deps.json"


@dataclass(frozen=True, slots=True)
class Lookup:
    entry: cache.Entry | None  # the result, on a hit
    deps: tuple[str, ...]  # the files that result was compiled from (on a hit)
    last_key: str  # on a miss: the result key that missed, where a new list is linked from


def result_key(base: str, deps: Sequence[str], probed: Sequence[str] = ()) -> str:
    files = {d: _digest(d) for d in (*deps, *probed)}
    return cache.make_key({"base": base, "deps": files})


def lookup(base: str, results: cache.Store, lists: cache.Store) -> Lookup:
    """Follow the recorded dependency lists from `base` until one matches the files on disk."""
    link = base
    last = ""
    for _ in range(MAX_LINKS):
        listed = lists.get(link)
        if listed is None:
            break
        try:
            deps, probed = _lists(json.loads(listed.read_text(_DEPS_FILE)))
        except (OSError, ValueError, TypeError):
            break
        key = result_key(base, deps, probed)
        entry = results.get(key)
        if entry is not None:
            return Lookup(entry, deps, key)
        last = key
        link = cache.make_key({"base": base, "after": key})
    return Lookup(None, (), last)


def record(
    base: str, missed: Lookup, deps: Sequence[str], lists: cache.Store, probed: Sequence[str] = ()
) -> str:
    """Remember the files a compile read and the places it may have looked; returns the key
    its result goes under."""
    probed = [p for p in dict.fromkeys(probed) if p not in deps]
    key = result_key(base, deps, probed)
    link = base if not missed.last_key else cache.make_key({"base": base, "after": missed.last_key})
    if key != missed.last_key:
        lists.put(link, {_DEPS_FILE: json.dumps({"read": list(deps), "probed": probed})})
    return key


def _lists(raw: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(read, probed) from a deps.json; a bare list is one written before `probed` existed."""
    if isinstance(raw, list):
        return tuple(map(str, raw)), ()
    if isinstance(raw, dict):
        return tuple(map(str, raw["read"])), tuple(map(str, raw.get("probed", ())))
    raise TypeError("not a dependency list")


def _digest(path: str) -> str:
    try:
        return cache.digest(Path(path).read_bytes())
    except OSError:
        return "absent"
