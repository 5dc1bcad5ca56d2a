"""A content-addressed store of compile artifacts and disassembly.

An entry is a directory named by the SHA-256 of everything that decides its content (source bytes
and included files, options, arch, tool versions, sassview's schema version). It is written into
a temporary directory beside its final place and renamed into place in one step, so a reader sees
a whole entry or none, and a writer killed half-way leaves only a temporary directory behind
(swept by `clear`). Two processes that build the same entry both succeed; the first rename wins.

Location: $SASSVIEW_CACHE_DIR, else the platform's user cache directory. SASSVIEW_NO_CACHE=1
turns it off. $SASSVIEW_CACHE_MAX_MB caps its size: `enforce_limit()` (which the CLI calls after
each command) removes the least recently used entries until it fits; a read marks an entry used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sassview.errors import SassviewError

FORMAT_VERSION = 1  # bump when the layout of an entry changes
_MANIFEST = "manifest.json"
_TMP_PREFIX = ".tmp-"


def cache_root() -> Path:
    env = os.environ.get("SASSVIEW_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("sassview"))


def enabled() -> bool:
    return os.environ.get("SASSVIEW_NO_CACHE", "") in ("", "0")


def make_key(parts: Mapping[str, object]) -> str:
    """A stable hash of a JSON-able description of what goes into an entry."""
    blob = json.dumps({"format": FORMAT_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Entry:
    """A complete cache entry: a directory of files, read only."""

    path: Path

    def read_bytes(self, name: str) -> bytes:
        return (self.path / name).read_bytes()

    def read_text(self, name: str) -> str:
        return (self.path / name).read_text(encoding="utf-8")

    def has(self, name: str) -> bool:
        return (self.path / name).is_file()

    def meta(self) -> dict[str, object]:
        data: dict[str, object] = json.loads(self.read_text(_MANIFEST))
        return data


class Store:
    def __init__(self, kind: str, root: Path | None = None) -> None:
        self.kind = kind
        self.root = (root or cache_root()) / f"v{FORMAT_VERSION}" / kind

    def _dir(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> Entry | None:
        if not enabled():
            return None
        path = self._dir(key)
        manifest = path / _MANIFEST
        if not manifest.is_file():
            return None
        try:
            meta = json.loads(manifest.read_text(encoding="utf-8"))
            files = meta["files"]
            if not all(
                (path / n).is_file() and (path / n).stat().st_size == s for n, s in files.items()
            ):
                raise ValueError("file missing or of the wrong size")
        except (OSError, ValueError, KeyError, TypeError):
            # A damaged entry is dropped and rebuilt, never served.
            shutil.rmtree(path, ignore_errors=True)
            return None
        with contextlib.suppress(OSError):
            os.utime(manifest)  # recently used: the size limit evicts the others first
        return Entry(path)

    def put(
        self, key: str, files: Mapping[str, bytes | str], meta: Mapping[str, object] | None = None
    ) -> Entry | None:
        """Write an entry atomically; None when caching is off or the disk refuses."""
        if not enabled():
            return None
        final = self._dir(key)
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, dir=final.parent))
        except OSError:
            return None
        try:
            sizes = {}
            for name, content in files.items():
                data = content.encode() if isinstance(content, str) else content
                (tmp / name).write_bytes(data)
                sizes[name] = len(data)
            manifest = {"key": key, "files": sizes, **(meta or {})}
            # The manifest goes last: an entry without one is incomplete by definition.
            (tmp / _MANIFEST).write_text(json.dumps(manifest, sort_keys=True), encoding="utf-8")
            try:
                os.rename(tmp, final)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)  # another process got there first
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            return None
        return Entry(final) if (final / _MANIFEST).is_file() else None


@dataclass(frozen=True, slots=True)
class CacheInfo:
    root: Path
    entries: int
    bytes: int


def info(root: Path | None = None) -> CacheInfo:
    base = root or cache_root()
    entries = total = 0
    if base.is_dir():
        for dirpath, _, filenames in os.walk(base):
            if _MANIFEST in filenames:
                entries += 1
            for f in filenames:
                with contextlib.suppress(OSError):  # a file removed while we walk
                    total += os.path.getsize(os.path.join(dirpath, f))
    return CacheInfo(base, entries, total)


def clear(root: Path | None = None) -> CacheInfo:
    """Remove every entry (and stray temporary directories); returns what was there."""
    before = info(root)
    base = root or cache_root()
    if base.exists():
        if not base.is_dir():
            raise SassviewError(
                f"cache path {base} is not a directory", "set SASSVIEW_CACHE_DIR to a directory"
            )
        for child in base.iterdir():
            if child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
    return before


def size_limit() -> int | None:
    """Bytes allowed by $SASSVIEW_CACHE_MAX_MB, or None for no limit."""
    text = os.environ.get("SASSVIEW_CACHE_MAX_MB", "").strip()
    if not text:
        return None
    try:
        return int(float(text) * 1_000_000)
    except ValueError:
        raise SassviewError(
            f"SASSVIEW_CACHE_MAX_MB={text!r} is not a number", "set it to a size in MB, e.g. 500"
        ) from None


def prune(max_bytes: int, root: Path | None = None) -> CacheInfo:
    """Remove least recently used entries until the cache holds at most max_bytes.
    Returns what was removed. Stray temporary directories of killed writers go first."""
    base = root or cache_root()
    entries: list[tuple[float, int, Path]] = []
    removed = freed = 0
    if not base.is_dir():
        return CacheInfo(base, 0, 0)
    for manifest in base.rglob(_MANIFEST):
        entry = manifest.parent
        try:
            size = sum(f.stat().st_size for f in entry.iterdir())
            entries.append((manifest.stat().st_mtime, size, entry))
        except OSError:
            continue
    for tmp in base.glob(f"v*/*/*/{_TMP_PREFIX}*"):
        shutil.rmtree(tmp, ignore_errors=True)
    total = sum(size for _, size, _ in entries)
    for _, size, entry in sorted(entries):
        if total <= max_bytes:
            break
        shutil.rmtree(entry, ignore_errors=True)
        total -= size
        removed += 1
        freed += size
    return CacheInfo(base, removed, freed)


def enforce_limit() -> CacheInfo | None:
    limit = size_limit()
    if limit is None or not enabled():
        return None
    return prune(limit)


def scratch_dir(name: str) -> Path:
    """A long-lived directory under the cache root (e.g. NVRTC's bundled headers)."""
    path = cache_root() / name
    path.mkdir(parents=True, exist_ok=True)
    return path
