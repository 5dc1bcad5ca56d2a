"""What sassview remembers about the tools between runs, so a run served from the cache neither
searches for them, nor loads a library, nor spawns a tool to ask its version.

Two kinds of memory, both in the cache's "tool-versions" store (which tests counting compiles
leave out):
- a fact about a file (a version, NVRTC's targets), keyed by the file's identity (real path,
  size, inode, device, mtime and ctime): replacing or rewriting the file forgets it;
- where a wheel's tool is, keyed by the interpreter, its import path with each directory's
  mtime (installing or removing a wheel rewrites its site-packages directory) and the variables
  cuda.pathfinder reads; only a site-packages find is kept, and only while the file is there.
  Searching imports cuda.pathfinder (~12 ms of CPU, a tenth of a warm check).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable

_STORE = "tool-versions"
_FORMS = {"version": r"[\d.]+", "archs": r"[\d,]+", "digest": r"[0-9a-f]{64}"}
# What cuda.pathfinder looks at besides the import path.
_SEARCH_ENV = ("PATH", "LD_LIBRARY_PATH", "CONDA_PREFIX", "CUDA_PATH", "CUDA_HOME")


def _identity(path: str, what: str) -> str | None:
    """A cache key that changes whenever the file at `path` is replaced or rewritten."""
    from sassview import cache

    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    ident = (real, st.st_size, st.st_ino, st.st_dev, st.st_mtime_ns, st.st_ctime_ns)
    extra = {"fact": what} if what != "version" else {}  # versions kept their original key
    return cache.make_key({"tool-identity": ident, **extra})


def _read(key: str | None, field: str = "version") -> str | None:
    from sassview import cache

    entry = cache.Store(_STORE).get(key) if key is not None else None
    if entry is None:
        return None
    try:
        return entry.read_text(field)
    except (OSError, ValueError):  # removed by a pruner meanwhile, or damaged: ask again
        return None


def _write(key: str | None, text: str, path: str, field: str = "version") -> None:
    from sassview import cache

    if key is not None:
        cache.Store(_STORE).put(key, {field: text}, {"tool": path})


def keep(path: str, text: str, what: str = "version") -> None:
    """Remember `text` (its version, or the fact `what`) for the file at `path`."""
    _write(_identity(path, what), text, path)


def fact(path: str, what: str = "version") -> str | None:
    """What `keep` remembered for this very file, or None."""
    text = _read(_identity(path, what))
    return text if text is not None and re.fullmatch(_FORMS[what], text) else None


def _environment(name: str) -> str:
    from sassview import cache

    dirs = []
    for entry in sys.path:
        try:
            st = os.stat(entry or ".")
        except OSError:
            continue
        dirs.append((entry, st.st_ino, st.st_mtime_ns))
    env = [os.environ.get(v, "") for v in _SEARCH_ENV]
    return cache.make_key(
        {"tool-location": name, "python": sys.executable, "path": dirs, "env": env}
    )


def location(name: str, search: Callable[[], str | None]) -> str | None:
    """Where `search` finds `name`, remembered for this environment when it is in a wheel."""
    key = _environment(name)
    path = _read(key, "path")
    if path is not None and "site-packages" in path and os.path.isfile(path):
        return path
    path = search()
    if path is not None and "site-packages" in path:
        _write(key, path, path, "path")
    return path
