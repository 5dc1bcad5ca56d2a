"""Entries: written whole or not at all, read whole and verified, or not served.

An entry is a directory named by the SHA-256 of everything that decides its content (source bytes
and included files, options, arch, tool versions, sassview's schema version). It is written into
a temporary directory beside its final place and renamed into place in one step, so a reader sees
a whole entry or none, and a writer killed half-way leaves only a temporary directory behind.
Two processes that build the same entry both succeed; the first rename wins.

A read loads every file into memory and checks its size and SHA-256 against the manifest (and
that the files written as text are UTF-8) before anything is served: an edited, torn or flipped
file is never an answer, and an entry that another process prunes after the read is still whole
in the reader's hands. A damaged entry is moved aside and removed, so the caller rebuilds it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from sassview.cache import locks
from sassview.cache.layout import (
    FORMAT_VERSION,
    MANIFEST,
    TMP_PREFIX,
    Manifest,
    cache_root,
    claim,
    enabled,
    flat_files,
    is_sassviews,
    parse_manifest,
    read_regular,
)
from sassview.cache.removal import remove_flat
from sassview.cache.shape import usable

log = logging.getLogger("sassview.cache")


def make_key(parts: Mapping[str, object]) -> str:
    """A stable hash of a JSON-able description of what goes into an entry."""
    blob = json.dumps({"format": FORMAT_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Entry:
    """A complete, verified cache entry, held in memory: reading it never touches the disk."""

    path: Path
    files: Mapping[str, bytes]
    manifest_meta: Mapping[str, object]

    def read_bytes(self, name: str) -> bytes:
        return self.files[name]

    def read_text(self, name: str) -> str:
        # Files written as text were checked to be UTF-8 on read; bytes read as text never raise.
        return self.files[name].decode("utf-8", errors="replace")

    def has(self, name: str) -> bool:
        return name in self.files

    def meta(self) -> dict[str, object]:
        return dict(self.manifest_meta)


# The kinds whose entries cost a compiler or nvdisasm run: a miss claims the key's build lock
# (cache/locks.py), so two processes never build one of them at the same time. Small entries
# (remembered tool versions, compiler routes) are cheaper to build twice than to lock.
BUILT_ONCE = frozenset({"cuda", "cuda-nvcc", "ptx", "triton", "cute", "cutile", "nvdisasm"})

# What this process did with the BUILT_ONCE kinds: the pytest plugin reports it (per worker,
# summed on the xdist controller).
STATS = {"hits": 0, "builds": 0, "waited": 0}


class Store:
    def __init__(self, kind: str, root: Path | None = None) -> None:
        self.kind = kind
        self.base = root or cache_root()
        self.root = self.base / f"v{FORMAT_VERSION}" / kind

    def _dir(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> Entry | None:
        """The entry for `key`, read whole and verified; None when absent or damaged. For a
        BUILT_ONCE kind a miss claims the key first: if another process is building it, this
        waits for it and returns what it wrote; None means "build it, then put"."""
        entry = self._read(key)
        if self.kind not in BUILT_ONCE or not enabled():
            return entry
        if entry is None and locks.claim(self.kind, key):
            entry = self._read(key)  # written while this process waited for the lock
            if entry is not None:
                STATS["waited"] += 1
                locks.release(self.kind, key)
        if entry is None:
            entry = self._from_remote(key)
        if entry is not None:
            STATS["hits"] += 1
        return entry

    def _from_remote(self, key: str) -> Entry | None:
        """A local miss read through $SASSVIEW_CACHE_URL (cache/remote.py), copied into the
        local store; None when there is no remote, it misses, or it is broken."""
        from sassview.cache import remote  # here: a warm run hits the local store

        found = remote.fetch(self.kind, key)
        if found is None:
            return None
        blobs = {n: c.encode() if isinstance(c, str) else c for n, c in found.files.items()}
        try:
            kept = self._put(key, found.files, found.meta)
        finally:
            locks.release(self.kind, key)
        return kept or Entry(self._dir(key), MappingProxyType(blobs), MappingProxyType(found.meta))

    def _read(self, key: str) -> Entry | None:
        if not enabled():
            return None
        path = self._dir(key)
        try:
            manifest = parse_manifest(read_regular(path / MANIFEST), key)
        except OSError:
            return None  # absent, removed by a pruner, or the root is unusable
        files = _verified(path, manifest) if manifest is not None else None
        if manifest is None or files is None:
            if path.exists():
                log.info("cache: %s is damaged; rebuilding it", path)
                self._discard(path)
            return None
        with contextlib.suppress(OSError):
            os.utime(path / MANIFEST)  # recently used: the size limit evicts the others first
        return Entry(path, MappingProxyType(files), MappingProxyType(manifest.meta))

    def discard(self, key: str) -> None:
        """Remove the entry for `key`: one that verified but that its reader refuses (an
        object entry of other code, sassview/cache/pickled.py), so that a rebuild replaces it."""
        self._discard(self._dir(key))

    def _discard(self, path: Path) -> None:
        # A torn entry in sassview's layout is its garbage; one holding a directory or a link
        # is not sassview's (it writes regular files only) and stays where it is.
        if is_sassviews(self.base) and flat_files(path) is not None:
            remove_flat(path)

    def put(
        self, key: str, files: Mapping[str, bytes | str], meta: Mapping[str, object] | None = None
    ) -> Entry | None:
        """Write an entry atomically; None when caching is off or the disk refuses. Ends this
        process's claim on the key (a waiting process then reads the entry)."""
        try:
            entry = self._put(key, files, meta)
        finally:
            if self.kind in BUILT_ONCE:
                STATS["builds"] += 1
                locks.release(self.kind, key)
        if entry is not None and self.kind in BUILT_ONCE:
            _upload(self.kind, key, entry)  # after the release: a waiting process reads it now
        return entry

    def _put(
        self, key: str, files: Mapping[str, bytes | str], meta: Mapping[str, object] | None
    ) -> Entry | None:
        if not enabled():
            return None
        final = self._dir(key)
        blobs = {n: c.encode() if isinstance(c, str) else c for n, c in files.items()}
        kept_meta = dict(meta or {})
        manifest = {
            "key": key,
            "files": {
                n: {"size": len(b), "sha256": digest(b), "text": isinstance(files[n], str)}
                for n, b in blobs.items()
            },
            "meta": kept_meta,
        }
        try:
            claim(self.base)
            final.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=final.parent))
        except OSError as exc:
            log.info("cache: cannot write under %s (%s); not caching", self.base, exc)
            _say_not_a_directory(self.base)
            return None
        try:
            for name, data in blobs.items():
                (tmp / name).write_bytes(data)
            # The manifest goes last: an entry without one is incomplete by definition.
            (tmp / MANIFEST).write_text(json.dumps(manifest, sort_keys=True), encoding="utf-8")
            os.rename(tmp, final)
        except OSError:
            remove_flat(tmp)  # the disk refused, or another process got there first
            if not (final / MANIFEST).is_file():
                return None
        return Entry(final, MappingProxyType(blobs), MappingProxyType(kept_meta))


_said: set[Path] = set()


def _say_not_a_directory(base: Path) -> None:
    """A cache root (or a folder above it) that is a file: said once, not only logged, since
    every compile then runs uncached (`doctor` says `(off: not a directory)`)."""
    blocker = next((p for p in (base, *base.parents) if p.exists()), None)
    if blocker is None or blocker.is_dir() or base in _said:
        return
    _said.add(base)
    log.warning(
        "warning: not caching: %s is a file, not a directory; every compile runs uncached "
        "(point SASSVIEW_CACHE_DIR at a directory, or remove the file)",
        blocker,
    )


def _upload(kind: str, key: str, entry: Entry) -> None:
    """Write back an entry built here, as the local store holds it (best effort), where
    $SASSVIEW_CACHE_URL names a remote."""
    from sassview.cache import remote  # here: most runs have none, and a warm run writes none

    if not remote.url():
        return
    try:
        manifest = read_regular(entry.path / MANIFEST)
    except OSError:
        return  # pruned already: the next build uploads it
    remote.upload(kind, key, entry.files, manifest)


def _verified(path: Path, manifest: Manifest) -> dict[str, bytes] | None:
    files = {}
    for name, rec in manifest.files.items():
        try:
            data = read_regular(path / name)
        except OSError:
            return None
        if len(data) != rec.size or digest(data) != rec.sha256 or not usable(name, data):
            return None  # usable: a manifest made over a broken cubin is no proof (shape.py)
        if rec.text:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return None
        files[name] = data
    return files
