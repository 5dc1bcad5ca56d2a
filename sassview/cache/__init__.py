"""A content-addressed store of compile artifacts and disassembly.

Location: $SASSVIEW_CACHE_DIR, else the platform's user cache directory. SASSVIEW_NO_CACHE=1
turns it off. $SASSVIEW_CACHE_MAX_MB caps the entries' size: `enforce_limit()` (which the CLI
calls after each command) removes the least recently used entries until they fit; a read marks
an entry used.

- store.py: entries written atomically, read whole and verified by their digests;
- layout.py: where things live, and the proof that something is sassview's to delete;
- sweep.py: info, clear and prune, which touch only what that proof covers;
- limit.py: the size limit, read without the sweep (most commands run with none);
- removal.py: removing one directory, renamed aside first, and saying what really happened;
- scratch.py: the tools' long-lived working directories;
- locks.py: one build per key across processes (pytest-xdist workers wait, then read).
- get_or_build.py: the lookup, the timed and logged build, the put, once for the compile caches
  (its halves, `lookup` and `keep`, for nvdisasm and nvcc, whose builds are not one call);
- remote.py: a shared store at $SASSVIEW_CACHE_URL (fsspec), read through and written back.

Each module loads when a name of it is first used (`__getattr__` below, sassview/lazy.py), as
`import sassview` loads its API: a warm run reads entries and needs store.py alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sassview.cache.limit import parse_megabytes, size_limit
from sassview.errors import SassviewError
from sassview.lazy import lazy_exports

if TYPE_CHECKING:
    from sassview.cache.layout import FORMAT_VERSION, MARKER, cache_root, enabled, state
    from sassview.cache.locks import release as release_claim
    from sassview.cache.scratch import move_aside as move_scratch_aside
    from sassview.cache.scratch import scratch_dir
    from sassview.cache.store import STATS, Entry, Store, digest, make_key
    from sassview.cache.sweep import CacheInfo, Cleanup, clear, info, prune

# Each name -> (module, its name there), imported on first use: a warm run reads entries
# (store.py) and never surveys or sweeps, `--help` reads none. Importing every module here cost
# `sassview --help` 12 of its 76 ms of CPU (min of 15 runs, as benchmarks/bench_warm.py counts).
_WHERE: dict[str, str | tuple[str, str]] = {
    **{n: ("layout", n) for n in ("FORMAT_VERSION", "MARKER", "cache_root", "enabled", "state")},
    "release_claim": ("locks", "release"),
    "scratch_dir": ("scratch", "scratch_dir"),
    "move_scratch_aside": ("scratch", "move_aside"),
    **{n: ("store", n) for n in ("STATS", "Entry", "Store", "digest", "make_key")},
    **{n: ("sweep", n) for n in ("CacheInfo", "Cleanup", "clear", "info", "prune")},
}


def enforce_limit() -> Cleanup | None:
    """Remove the least recently used entries until they fit in $SASSVIEW_CACHE_MAX_MB (the
    CLI calls this after each command); with no limit set, nothing to import or survey."""
    from sassview.cache.limit import held

    if held() or size_limit() is None:
        return None
    from sassview.cache.sweep import enforce_limit as trim

    return trim()


__getattr__ = lazy_exports(__name__, _WHERE, keep=globals())  # once: then plain attribute reads


__all__ = [
    "FORMAT_VERSION",
    "MARKER",
    "STATS",
    "CacheInfo",
    "Cleanup",
    "Entry",
    "SassviewError",
    "Store",
    "cache_root",
    "clear",
    "digest",
    "enabled",
    "enforce_limit",
    "info",
    "make_key",
    "parse_megabytes",
    "prune",
    "release_claim",
    "scratch_dir",
    "move_scratch_aside",
    "size_limit",
    "state",
]
