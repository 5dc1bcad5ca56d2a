"""Long-lived working directories: NVRTC's unpacked headers, Triton's and the CuTe DSL's dumps.

They live in sassview's layout under the cache root (`v<N>/scratch/<name>`), so `cache clear`
can prove them sassview's. When the cache is off (SASSVIEW_NO_CACHE=1) or its root cannot be
written (a file, a read-only disk), they go to a private temporary directory instead, removed
when the process ends: the compile still works, it only pays to unpack the headers again.

Forked workers (a sweep's pool) share their parent's private directory, made before they fork
(`share_with_workers`): a worker leaves by os._exit, so one it made itself would outlive it,
26 MB of headers each time. Only the process that made the directory removes it.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
from pathlib import Path

from sassview.cache.layout import FORMAT_VERSION, SCRATCH, cache_root, claim, enabled

log = logging.getLogger("sassview.cache")
_private: list[Path] = []  # this process's fallback directory, made on first need
_moved: set[str] = set()  # names whose directory under the root failed a tool (a full disk)


def scratch_dir(name: str) -> Path:
    """A long-lived directory for `name`, under the cache root when that can be written."""
    path = _in_cache(name) if enabled() and name not in _moved else None
    if path is not None:
        return path
    path = _private_root() / name
    path.mkdir(exist_ok=True)
    return path


def _in_cache(name: str) -> Path | None:
    """`name`'s directory in the cache's layout, made; None where it cannot be written."""
    root = cache_root()
    path = root / f"v{FORMAT_VERSION}" / SCRATCH / name
    try:
        claim(root)
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass  # the tools write here: a read-only directory is no use to them
        return path
    except OSError as exc:
        log.info("cache: cannot write %s (%s); using a temporary directory", path, exc)
        return None


def share_with_workers() -> None:
    """Before forking workers: make the private directory now if scratch_dir would use one,
    so every worker uses this process's (removed when it ends) instead of making its own."""
    if not _private and (not enabled() or _in_cache("") is None):
        _private_root()


def move_aside(name: str, why: str) -> Path:
    """The tool writing scratch directory `name` under the root failed for want of space (or
    the disk refused): remove what it left half-written there (sassview's own, in its layout:
    a later run must not take a half-unpacked directory for a whole one), say so once, and
    give the private directory that scratch_dir(name) answers from now on in this process."""
    from sassview.cache.removal import remove_tree

    if enabled() and name not in _moved:
        shared = cache_root() / f"v{FORMAT_VERSION}" / SCRATCH / name
        if shared.is_dir() and not shared.is_symlink():
            remove_tree(shared)
        log.warning(
            "warning: %s could not be written (%s); using a temporary directory for this run "
            "(free some space under the cache directory, or point SASSVIEW_CACHE_DIR elsewhere)",
            shared,
            why,
        )
    _moved.add(name)
    return scratch_dir(name)


def _private_root() -> Path:
    if not _private:
        _private.append(Path(tempfile.mkdtemp(prefix="sassview-scratch-")))
        atexit.register(_remove_if_mine, _private[0], os.getpid())
    return _private[0]


def _remove_if_mine(path: Path, maker: int) -> None:
    """At exit: remove the private directory, in the process that made it only (a child that
    inherited this exit hook must not remove its parent's directory from under it)."""
    if os.getpid() == maker:
        shutil.rmtree(path, ignore_errors=True)
