"""Entries that hold one pickled object: the built model and what the analyses made of it.

A warm run would otherwise rebuild from the cached listings what nothing has changed: 1.5 to
2 s of CPU to read and analyse a 65k-instruction cubin's, against ~0.2 s to load its pickle
(benchmarks/bench_warm.py). Pickle, protocol 5: the model is a tree of NamedTuples and frozen
records that share operands, source locations and strings, and pickle's memo keeps that sharing,
so loading is one C loop with no conversion step; a columnar form would rebuild the same
objects in Python. How the model's records are written (shared strings, what dominates the
load) is cache/model_pickle.py's. What remains is the objects themselves (~1.5 million at 65k
instructions).

Trust. Unpickling runs whatever code the data names, so an entry is only as trustworthy as the
directory it lies in, and a digest proves nothing against a writer who rewrites the manifest
too. So an entry is unpickled only from a place no one but this user could have written: its
file and every directory from the cache root down to it owned by the user and writable by no
one else (cache/trust.py); elsewhere it is not loaded (a warning on stderr, once), not removed
(it may not be sassview's), and the caller builds the object again. Then it must prove
sassview wrote it for this very code: the store checks the manifest's key and every file's
SHA-256 (store.py), and this module checks the manifest's writer, format and the digest of
sassview's own source (`code_version`). Anything else is refused and removed (it is garbage in
sassview's layout), so the caller rebuilds it. These entries are never shared: their kinds are
not in store.BUILT_ONCE, the only kinds read from or written to a remote (cache/remote.py).

Order. An entry is two pickles written by one Pickler, so the second refers to what the first
holds (one memo: nothing is written twice): a `lead`, which may be None, then the object. A
reader that wants the lead early (the TUI paints the first kernel from it, sassview/build.py's
`first_kernel`) gets it before the rest is loaded; every other reader loads both, and the
object is the same as it was in one pickle. The entry stays one file under one digest.

Staleness. The caller's key names everything the object derives from (for the model: the
artifacts and nvdisasm's version); `code_version` is added here, so a change to any of
sassview's modules, the parsers and analyses included, makes every old entry unreachable.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import pickle
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sassview.cache.model_pickle import ModelPickler
from sassview.cache.store import Store, make_key
from sassview.cache.trust import untrusted
from sassview.gcpause import without_gc
from sassview.memo import memoized

log = logging.getLogger("sassview.cache")

PICKLE_FORMAT = 3  # bump when the way objects are written changes (cache/model_pickle.py)
FILE = "object.pickle"
WRITER = "sassview"
_PACKAGE = Path(__file__).resolve().parents[1]


@memoized(2)
def code_version() -> str:
    """SHA-256 of every module of the installed sassview, read once per process (~1.5 ms for
    its ~150 files). The contents, not modification times: a checkout or an editor that keeps
    times must not bring back a model of other code. Views count too: knowing which modules a
    cached object depends on would be one more thing to get wrong, and a wrong guess serves a
    stale model, while hashing them all only costs a rebuild after an edit."""
    sha = hashlib.sha256(sys.implementation.cache_tag.encode())  # one pickle per interpreter
    for folder, subfolders, names in os.walk(_PACKAGE):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(n for n in names if n.endswith(".py")):
            path = Path(folder, name)
            sha.update(str(path.relative_to(_PACKAGE)).encode() + b"\0")
            sha.update(path.read_bytes())
    return sha.hexdigest()


def object_key(kind: str, parts: Mapping[str, object]) -> str:
    """The key of an object entry: the caller's `parts` (what the object derives from), the
    code that made it and the way it is written."""
    return make_key({"object": kind, "code": code_version(), "pickle": PICKLE_FORMAT, **parts})


def put(kind: str, key: str, obj: object, *, lead: object = None) -> bool:
    """Write `obj` under `key`, after `lead` (what `get` hands its `lead` callback before it
    loads `obj`: a part of it a reader may use first). False when caching is off, the disk
    refuses or `obj` cannot be pickled (the caller has the object and loses only the next
    run's speed)."""
    buffer = io.BytesIO()
    try:
        pickler = ModelPickler(buffer)
        pickler.dump(lead)
        pickler.dump(obj)  # the same memo: what the lead holds is referred to, not copied
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as exc:
        log.info("cache: cannot pickle a %s (%s); not caching it", kind, exc)
        return False
    meta = {"writer": WRITER, "pickle": PICKLE_FORMAT, "code": code_version()}
    store = Store(kind)
    if store.root.is_dir() and untrusted(store.root, store.base):
        log.info("cache: %s could be written by others; not caching a %s there", store.root, kind)
        return False  # it would never be loaded from there
    return store.put(key, {FILE: buffer.getvalue()}, meta) is not None


def get(
    kind: str,
    key: str,
    accept: Callable[[Any], bool],
    *,
    lead: Callable[[Any], None] | None = None,
) -> Any:
    """The object under `key`, or None: absent, damaged, not written by this sassview, or not
    what `accept` expects. A refused entry is removed, so the caller's rebuild replaces it.
    `lead` is called with the entry's lead (when it is not None), from a verified entry of
    this code, before the object is loaded; it must check what it is given."""
    store = Store(kind)
    entry = store.get(key)  # verified: the manifest's key and each file's size and SHA-256
    if entry is None:
        return None
    meta = entry.manifest_meta
    proven = (
        meta.get("writer") == WRITER
        and meta.get("pickle") == PICKLE_FORMAT
        and meta.get("code") == code_version()
        and entry.has(FILE)
    )
    if proven and not _trusted(entry.path / FILE, store.base):
        return None  # not removed either: what another user planted is not sassview's
    obj = _load(entry.read_bytes(FILE), lead) if proven else None
    if obj is None or not accept(obj):
        log.info("cache: %s is not a %s this sassview wrote; rebuilding it", entry.path, kind)
        store.discard(key)
        return None
    return obj


_warned: set[Path] = set()  # the roots already warned about in this process


def _trusted(path: Path, root: Path) -> bool:
    """May the pickle at `path` be loaded? Only if no one but this user could have written
    it (cache/trust.py); else say so once per root, on the cache's logger (stderr)."""
    why = untrusted(path, root)
    if why is None:
        return True
    if root not in _warned:
        _warned.add(root)
        log.warning(
            "warning: not loading the cached model %s: %s, so another user could have written "
            "it, and loading it would run what it names; building it again instead (make the "
            "cache directory yours and writable only by you, or point SASSVIEW_CACHE_DIR at one "
            "that is)",
            path,
            why,
        )
    return False


def discard(kind: str, key: str) -> None:
    """Remove an entry that another one supersedes (the model once its analyses are cached)."""
    Store(kind).discard(key)


# The collector paused: loading makes 10^6 acyclic records, and its rescans of them would
# cost three times the load itself (measured on a 65k-instruction model); then aged, so that
# the young collections after it do not rescan them either (gcpause.without_gc).
@without_gc
def _load(data: bytes, lead: Callable[[Any], None] | None) -> object | None:
    # One Unpickler for both pickles: its memo is the Pickler's. (On a BytesIO it loads the
    # 65k model as fast as pickle.loads: 141 against 144 ms.)
    stream = pickle.Unpickler(io.BytesIO(data))
    first = _next(stream)
    if first is _TORN:
        return None
    if first is not None and lead is not None:
        lead(first)  # outside _next: the caller's failure is no damaged entry
    result = _next(stream)
    return None if result is _TORN else result


_TORN = object()


def _next(stream: pickle.Unpickler) -> object:
    try:
        return stream.load()
    except Exception as exc:  # any failure to load (a class renamed, a torn stream) is a miss
        log.info("cache: cannot load a pickled entry (%s: %s)", type(exc).__name__, exc)
        return _TORN
