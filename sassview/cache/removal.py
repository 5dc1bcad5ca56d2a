"""Removing what is sassview's, and saying what really happened.

A directory is first renamed aside (to a `.tmp-` name beside it), then emptied: a reader sees the
entry whole or not at all, and a second pruner racing this one finds it gone instead of failing
half-way. Only regular files are unlinked; anything else keeps its directory in place.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path
from typing import NamedTuple

from sassview.cache.layout import TMP_PREFIX


class Outcome(NamedTuple):
    removed: bool  # this call removed it
    why: str | None = None  # why it could not (None when removed, or already gone)


GONE = Outcome(False)  # another process removed it first: neither done by us nor a failure


def _aside(path: Path) -> Path:
    return path.with_name(f"{TMP_PREFIX}gone-{path.name[:16]}-{secrets.token_hex(4)}")


def _why(exc: OSError) -> str:
    return f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")


def remove_flat(path: Path) -> Outcome:
    """Remove a directory of sassview's regular files (an entry, or a writer's leftovers)."""
    if path.is_symlink():  # what it points at was not written by sassview in its layout
        return Outcome(False, f"a symbolic link, left alone: {path}")
    target = path
    if not path.name.startswith(TMP_PREFIX):
        target = _aside(path)
        try:
            os.rename(path, target)
        except FileNotFoundError:
            return GONE
        except OSError as exc:
            return Outcome(False, _why(exc))
    try:
        with os.scandir(target) as it:
            for item in it:
                if item.is_file(follow_symlinks=False):
                    os.unlink(item.path)
        os.rmdir(target)
    except FileNotFoundError:
        return GONE if target == path else Outcome(True)
    except OSError as exc:
        return Outcome(False, _why(exc))
    return Outcome(True)


def remove_tree(path: Path) -> Outcome:
    """Remove a scratch directory: a working directory tools filled at sassview's request."""
    if path.is_symlink():
        return Outcome(False, f"a symbolic link, left alone: {path}")
    target = _aside(path)
    try:
        os.rename(path, target)
    except FileNotFoundError:
        return GONE
    except OSError as exc:
        return Outcome(False, _why(exc))
    shutil.rmtree(target, ignore_errors=True)
    if target.exists():
        return Outcome(False, f"could not remove everything in {target}")
    return Outcome(True)


def remove_empty_dirs(paths: list[Path]) -> None:
    """rmdir each directory that is now empty (the layout's own prefix and kind directories)."""
    for p in paths:
        try:
            os.rmdir(p)
        except OSError:
            continue
