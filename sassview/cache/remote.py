"""A cache a team shares: a read-through, write-back store at $SASSVIEW_CACHE_URL.

A CI fleet compiles the same kernels on every runner. With SASSVIEW_CACHE_URL set (any URL
fsspec opens: file:// on a shared file system, s3://, gs://, az://, http(s)://, memory:// in
tests), a local miss of an entry that costs a compiler or nvdisasm run (store.BUILT_ONCE) is
looked up there before it is built, and an entry built here is uploaded after it is written
locally. The remote keeps the local layout: `<url>/v<N>/<kind>/<xx>/<key>/<files>`.

Entries are immutable and content-addressed by the local key, so any copy of one is as good as
another. What makes a partial upload harmless is the manifest, uploaded last, with each file's
size and SHA-256: a reader that finds no manifest has a miss, and one that finds it checks every
file against it before anything is served (a missing, short or still-being-written file is a
miss, and the entry is built here and uploaded again). Not a temporary name renamed into place:
fsspec has no atomic rename across backends (`mv` on S3 and GCS is a copy then a delete, and
file:// writes in place), but every backend writes one object whole (an object-store PUT) or
detectably not (a torn file fails its digest), which is all the manifest-last order needs.

A remote that raises (unreachable, refused, a backend's package not installed) or does not
answer within $SASSVIEW_CACHE_URL_TIMEOUT seconds (default 30) is broken for the rest of the
process: one warning on the "sassview.cache" logger, then local only. One that refuses a write
(PermissionError, or NotImplementedError from a read-only backend such as http) is still read,
and not written again. Nothing here raises.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from sassview.cache.layout import FORMAT_VERSION, MANIFEST, Manifest, parse_manifest
from sassview.cache.shape import usable

log = logging.getLogger("sassview.cache")
URL_ENV = "SASSVIEW_CACHE_URL"
TIMEOUT_ENV = "SASSVIEW_CACHE_URL_TIMEOUT"
_DEFAULT_TIMEOUT_S = 30.0

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Fetched:
    """A remote entry that passed its manifest's checks: text files as str, the rest bytes
    (what `Store.put` takes, so the local copy records the same text flags)."""

    files: dict[str, bytes | str]
    meta: dict[str, object]


@dataclass(frozen=True, slots=True)
class RemoteInfo:
    """For `sassview cache info`: the URL, and whether it answered (why not, when it did not)."""

    url: str
    answered: bool
    problem: str = ""


class _Broken(Exception):
    """The remote raised or did not answer: a reason for the one warning."""


@dataclass(slots=True)
class _Remote:
    url: str
    fs: Any  # an fsspec AbstractFileSystem (fsspec is untyped)
    root: str

    def path(self, kind: str, key: str, name: str = "") -> str:
        entry = f"{self.root}/v{FORMAT_VERSION}/{kind}/{key[:2]}/{key}"
        return f"{entry}/{name}" if name else entry


# Per URL, for this process: the opened remote, or why it is broken (it is not retried), or
# that it refused a write (an https:// mirror, read-only credentials): still read, never written.
_opened: dict[str, _Remote] = {}  # state, not a memo
_broken: dict[str, str] = {}  # state, not a memo
_read_only: set[str] = set()
_state_lock = threading.Lock()


def url() -> str:
    return os.environ.get(URL_ENV, "").strip()


def _timeout() -> float:
    try:
        value = float(os.environ.get(TIMEOUT_ENV) or _DEFAULT_TIMEOUT_S)
    except ValueError:
        return _DEFAULT_TIMEOUT_S
    return value if value > 0 else _DEFAULT_TIMEOUT_S


def _bounded(call: Callable[[], T]) -> T:
    """Run `call` on a daemon thread and wait at most the timeout: a remote that hangs (a dead
    NFS mount, a black-holed socket) must not hang the run. Its exceptions come through; a
    call that does not return raises _Broken (its thread is left to finish or die with us)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="sassview-remote-cache", daemon=True)
    worker.start()
    worker.join(_timeout())
    if worker.is_alive():
        raise _Broken(f"no answer in {_timeout():g} s (${TIMEOUT_ENV})")
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def _open(where: str) -> _Remote:
    def connect() -> _Remote:
        from fsspec.core import url_to_fs

        fs, root = url_to_fs(where)
        return _Remote(where, fs, root.rstrip("/"))

    return _bounded(connect)


def _remote() -> _Remote | None:
    """The remote store of this process, or None (not configured, or broken)."""
    where = url()
    if not where or where in _broken:
        return None
    with _state_lock:
        found = _opened.get(where)
    if found is not None:
        return found
    try:
        found = _open(where)
    except Exception as exc:
        _give_up(where, exc)
        return None
    with _state_lock:
        _opened[where] = found
    return found


def _give_up(where: str, exc: BaseException) -> None:
    with _state_lock:
        first = where not in _broken
        _broken[where] = _reason(exc)
    if first:
        log.warning(
            "remote cache %s is not usable (%s): using the local cache only for this run",
            where,
            _broken[where],
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, _Broken):
        return str(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _guarded(action: Callable[[_Remote], T]) -> T | None:
    """`action` on the remote, or None when there is none or it broke (warned once)."""
    remote = _remote()
    if remote is None:
        return None
    try:
        return _bounded(lambda: action(remote))
    except Exception as exc:
        _give_up(remote.url, exc)
        return None


def fetch(kind: str, key: str) -> Fetched | None:
    """The remote entry (kind, key), verified whole; None on a miss, a damaged or partial
    entry, or a broken remote."""
    found = _guarded(lambda remote: _read(remote, kind, key))
    if found is not None:
        log.info("cache: %s %s served by the remote cache", kind, key)
    return found


def _read(remote: _Remote, kind: str, key: str) -> Fetched | None:
    try:
        raw = remote.fs.cat_file(remote.path(kind, key, MANIFEST))
    except FileNotFoundError:
        return None  # not uploaded (yet): a plain miss
    manifest = parse_manifest(raw, key)
    if manifest is None:
        log.info("cache: the remote manifest of %s %s is not sassview's; ignored", kind, key)
        return None
    blobs = {}
    for name in manifest.files:
        try:
            blobs[name] = remote.fs.cat_file(remote.path(kind, key, name))
        except FileNotFoundError:
            log.info("cache: remote %s %s lacks %s (partial upload); building it", kind, key, name)
            return None
    return _verified(manifest, blobs, f"{kind} {key}")


def _verified(manifest: Manifest, blobs: Mapping[str, bytes], what: str) -> Fetched | None:
    files: dict[str, bytes | str] = {}
    for name, rec in manifest.files.items():
        data = blobs[name]
        if len(data) != rec.size or hashlib.sha256(data).hexdigest() != rec.sha256:
            log.info("cache: remote %s: %s does not match its digest; building it", what, name)
            return None
        if not usable(name, data):  # a manifest made over a broken cubin (shape.py)
            log.info("cache: remote %s: %s is not a usable cubin; building it", what, name)
            return None
        try:
            files[name] = data.decode("utf-8") if rec.text else data
        except UnicodeDecodeError:
            log.info("cache: remote %s: %s is not UTF-8; building it", what, name)
            return None
    return Fetched(files, dict(manifest.meta))


def upload(kind: str, key: str, files: Mapping[str, bytes], manifest: bytes) -> bool:
    """Best effort: write an entry built here to the remote, its files first and its manifest
    last (the manifest is what makes it visible). True when it was written."""
    if url() in _read_only:
        return False
    return bool(_guarded(lambda remote: _write(remote, kind, key, files, manifest)))


def _write(
    remote: _Remote, kind: str, key: str, files: Mapping[str, bytes], manifest: bytes
) -> bool:
    try:
        return _write_entry(remote, kind, key, files, manifest)
    except (PermissionError, NotImplementedError) as exc:
        # A remote this process may read but not write is still worth reading from.
        _read_only.add(remote.url)
        log.info("cache: remote %s refuses writes (%s); only reading it", remote.url, _reason(exc))
        return False


def _write_entry(
    remote: _Remote, kind: str, key: str, files: Mapping[str, bytes], manifest: bytes
) -> bool:
    remote.fs.makedirs(remote.path(kind, key), exist_ok=True)  # a no-op on object stores
    for name, data in files.items():
        remote.fs.pipe_file(remote.path(kind, key, name), data)
    remote.fs.pipe_file(remote.path(kind, key, MANIFEST), manifest)
    log.info("cache: %s %s uploaded to the remote cache", kind, key)
    return True


def info() -> RemoteInfo | None:
    """Is a remote configured, and does it answer (a listing of its root)? None: not set."""
    where = url()
    if not where:
        return None
    if where in _broken:
        return RemoteInfo(where, False, _broken[where])
    answered = bool(_guarded(_probe))
    return RemoteInfo(where, answered, _broken.get(where, ""))


def _probe(remote: _Remote) -> bool:
    with contextlib.suppress(FileNotFoundError):  # nothing uploaded yet: it answered all the same
        remote.fs.ls(remote.root, detail=False)
    return True
