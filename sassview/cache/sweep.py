"""What the cache holds, emptying it, and keeping it under its size limit.

`info`, `clear` and `prune` sort the root with `layout.survey` and touch only what it proves is
sassview's; everything else is returned as `foreign`, for the caller to name. What could not be
removed (a read-only disk) is counted as such, never reported as removed.

The size limit ($SASSVIEW_CACHE_MAX_MB, `cache prune --max-mb`) counts entries, which are what
least-recently-used eviction can take back. Scratch directories (NVRTC's unpacked headers, about
26 MB, needed by every CUDA compile) are reported apart and removed only by `clear`: evicting
them under a limit would make every command unpack them again, and pull them from under another
process's compile.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sassview.cache.layout import (
    FORMAT_VERSION,
    SCRATCH,
    Item,
    Survey,
    cache_root,
    enabled,
    survey,
)
from sassview.cache.limit import size_limit
from sassview.cache.removal import Outcome, remove_empty_dirs, remove_flat, remove_tree
from sassview.errors import SassviewError


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """What a cache root holds: sassview's entries, and apart from them the rest."""

    root: Path
    entries: int
    bytes: int  # the entries' size: what the size limit counts
    ours: bool = True  # the root carries sassview's marker
    garbage: tuple[Item, ...] = ()  # torn entries and killed writers' leftovers
    scratch: tuple[Item, ...] = ()
    foreign: tuple[Item, ...] = ()  # not provably sassview's: left alone
    problem: str | None = None  # why the root cannot be used ("is not a directory")


@dataclass(frozen=True, slots=True)
class Cleanup:
    """What `clear` or `prune` really did."""

    root: Path
    entries: int  # removed
    bytes: int  # freed by removing them
    failed: int = 0  # entries and directories sassview tried to remove and could not
    why: str | None = None  # the first reason one could not be removed
    garbage: int = 0  # torn entries and leftovers removed
    scratch: tuple[Item, ...] = ()  # scratch directories removed
    refused: bool = False  # the root is not provably sassview's: nothing was touched


def _as_info(found: Survey) -> CacheInfo:
    return CacheInfo(
        found.root,
        len(found.entries),
        sum(e.size for e in found.entries),
        found.ours,
        tuple(found.garbage),
        tuple(found.scratch),
        tuple(found.foreign),
        found.problem,
    )


def info(root: Path | None = None) -> CacheInfo:
    return _as_info(survey(root or cache_root()))


def _usable(root: Path | None) -> Survey:
    found = survey(root or cache_root(), measure=False)
    if found.problem:
        raise SassviewError(
            f"cache path {found.root} {found.problem}", "set SASSVIEW_CACHE_DIR to a directory"
        )
    return found


class _Tally:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.done = self.freed = self.failed = 0
        self.why: str | None = None
        self.touched: set[Path] = set()

    def record(self, item: Item, outcome: Outcome) -> bool:
        self.touched.add(item.path.parent)
        if outcome.why is not None:
            self.failed += 1
            self.why = self.why or outcome.why
        return outcome.removed

    def tidy(self) -> None:
        """Remove the layout's directories that the removals emptied, deepest first: only
        below the root (the root itself, and what holds it, are never sassview's to remove)."""
        parents = set(self.touched)
        for p in self.touched:
            parents |= {p.parent, p.parent.parent}
        inside = [p for p in parents if self.root in p.parents]
        remove_empty_dirs(sorted(inside, key=lambda p: len(p.parts), reverse=True))


def clear(root: Path | None = None) -> Cleanup:
    """Remove every entry, leftover and scratch directory of sassview's; nothing else."""
    found = _usable(root)
    if not found.ours:  # refused, unless there is nothing there to refuse
        return Cleanup(found.root, 0, 0, refused=not found.empty)
    tally = _Tally(found.root)
    garbage = sum(tally.record(g, remove_flat(g.path)) for g in found.garbage)
    for e in found.entries:
        if tally.record(e, remove_flat(e.path)):
            tally.done += 1
            tally.freed += e.size
    kept = [s for s in found.scratch if s.path.name == LOCKS]  # held ones must stay
    scratch = tuple(
        s for s in found.scratch if s not in kept and tally.record(s, remove_tree(s.path))
    )
    _prune_locks(found.root)
    tally.tidy()
    return Cleanup(found.root, tally.done, tally.freed, tally.failed, tally.why, garbage, scratch)


def prune(max_bytes: float, root: Path | None = None) -> Cleanup:
    """Remove the least recently used entries until they hold at most max_bytes (which may be
    math.inf). Torn entries and killed writers' leftovers go first, whatever the limit."""
    return _prune(_usable(root), max_bytes)


def _prune(found: Survey, max_bytes: float) -> Cleanup:
    if not found.ours:
        return Cleanup(found.root, 0, 0, refused=not found.empty)
    tally = _Tally(found.root)
    garbage = sum(tally.record(g, remove_flat(g.path)) for g in found.garbage)
    total = sum(e.size for e in found.entries)
    for e in sorted(found.entries, key=lambda e: e.used):
        if total <= max_bytes:
            break
        if tally.record(e, remove_flat(e.path)):
            tally.done += 1
            tally.freed += e.size
        total -= e.size  # gone, or another process's pruner took it: either way not ours now
    _prune_locks(found.root)
    tally.tidy()
    return Cleanup(found.root, tally.done, tally.freed, tally.failed, tally.why, garbage)


LOCKS = "locks"


def _prune_locks(root: Path) -> None:
    """Remove the build locks no process holds; the directory too once it is empty."""
    from sassview.cache.locks import remove_unheld

    where = root / f"v{FORMAT_VERSION}" / SCRATCH / LOCKS
    if where.is_dir() and not where.is_symlink():
        remove_unheld(where)
        remove_empty_dirs([where])


def enforce_limit() -> Cleanup | None:
    limit = size_limit()
    if limit is None or not enabled():
        return None
    found = survey(cache_root(), measure=False)
    if found.problem or not found.ours:
        return None  # nothing of sassview's to trim (and `cache info` says why)
    return _prune(found, limit)
