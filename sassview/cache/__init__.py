"""A content-addressed store of compile artifacts and disassembly.

Location: $SASSVIEW_CACHE_DIR, else the platform's user cache directory. SASSVIEW_NO_CACHE=1
turns it off. $SASSVIEW_CACHE_MAX_MB caps the entries' size: `enforce_limit()` (which the CLI
calls after each command) removes the least recently used entries until they fit; a read marks
an entry used.

- store.py: entries written atomically, read whole and verified by their digests;
- layout.py: where things live, and the proof that something is sassview's to delete;
- sweep.py: info, clear and prune, which touch only what that proof covers;
- removal.py: removing one directory, renamed aside first, and saying what really happened;
- scratch.py: the tools' long-lived working directories;
- locks.py: one build per key across processes (pytest-xdist workers wait, then read).
- remote.py: a shared store at $SASSVIEW_CACHE_URL (fsspec), read through and written back.
"""

from __future__ import annotations

from sassview.cache.layout import FORMAT_VERSION, MARKER, cache_root, enabled, state
from sassview.cache.locks import release as release_claim
from sassview.cache.scratch import scratch_dir
from sassview.cache.store import STATS, Entry, Store, digest, make_key
from sassview.cache.sweep import (
    CacheInfo,
    Cleanup,
    clear,
    enforce_limit,
    info,
    parse_megabytes,
    prune,
    size_limit,
)
from sassview.errors import SassviewError

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
    "size_limit",
    "state",
]
