"""Where the cache lives and what in it is provably sassview's.

sassview deletes only what it can prove it wrote. The proof has three parts:

- the root carries sassview's marker file (written when sassview first writes there, and only
  if it created the directory or found it empty: a directory already holding files is not
  marked, and not written), or is the platform's cache directory named for sassview;
- the path is sassview's layout: `v<N>/<kind>/<xx>/<key>` for an entry (key: 64 hex digits,
  xx: its first two; N one of sassview's formats, 1 to FORMAT_VERSION),
  `v<N>/<kind>/<xx>/.tmp-*` for a writer's temporary directory, and `v<N>/scratch/<name>` for
  a long-lived working directory of this format, by a name this sassview makes
  (SCRATCH_NAMES: NVRTC's unpacked headers, the build locks, ...);
- an entry is in sassview's format: a manifest whose key is the directory's name, and nothing in
  the directory but the manifest and the regular files it lists.

A directory in the layout that holds only regular files but fails the format (a torn or edited
entry, a killed writer's leftovers) is sassview's garbage. Everything else is someone else's: it
is counted, named and left alone.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

FORMAT_VERSION = 2  # 2: the manifest records each file's SHA-256 and whether it is text
MANIFEST = "manifest.json"
MARKER = ".sassview-cache"
MARKER_TEXT = (
    "sassview cache directory\n"
    "Written by sassview when it first used this directory. sassview removes only its own\n"
    "entries here (v<N>/<kind>/<xx>/<key> with a matching manifest); anything else is left alone.\n"
)
TMP_PREFIX = ".tmp-"
SCRATCH = "scratch"
# Where sassview before format 2 kept its scratch directories: at the root. Recognised only at
# the platform cache directory, which is sassview's by its name; elsewhere a `triton/` at the
# root may well be the user's checkout.
LEGACY_SCRATCH = ("nvrtc-headers", "triton", "cute")

_KEY = re.compile(r"[0-9a-f]{64}")
# sassview's own formats, this one and those before it: a `v7/` is not sassview's layout.
_VERSIONS = frozenset(f"v{n}" for n in range(1, FORMAT_VERSION + 1))
# The scratch directories this sassview makes (`scratch_dir(name)`); only these are removed.
SCRATCH_NAMES = frozenset({"nvrtc-headers", "triton", "cute", "locks", "includer-context", "cmake"})
log = logging.getLogger("sassview.cache")


def default_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("sassview"))


def cache_root() -> Path:
    env = os.environ.get("SASSVIEW_CACHE_DIR")
    return Path(env).expanduser() if env else default_root()


def enabled() -> bool:
    from sassview.cache.limit import keeps_nothing

    return os.environ.get("SASSVIEW_NO_CACHE", "") in ("", "0") and not keeps_nothing()


def state(root: Path | None = None) -> str:
    """Why the cache is off, in a few words for `doctor`; "" when it is in use."""
    base = root or cache_root()
    if not enabled():
        return f"(off: {'SASSVIEW_NO_CACHE' if _no_cache_set() else 'SASSVIEW_CACHE_MAX_MB=0'})"
    if base.exists() and not base.is_dir():
        return "(off: not a directory)"
    if base.is_dir() and not os.access(base, os.W_OK):
        return "(read only: entries are read, none written)"
    if base.is_dir() and not is_sassviews(base) and _holds_anything(base):
        return "(off: it holds files sassview did not write; point it at a new directory)"
    return ""


def _holds_anything(root: Path) -> bool:
    with os.scandir(root) as it:
        return any(e.name != MARKER for e in it)


def _refuse(root: Path) -> None:
    why = f"{root} holds files sassview did not write, and no {MARKER} marker"
    if root not in _warned:
        _warned.add(root)
        log.warning(
            "warning: not caching in %s: it holds files sassview did not write (sassview marks "
            "and writes only a new or empty directory, so `cache clear` never takes yours); "
            "point SASSVIEW_CACHE_DIR at a new or empty directory",
            root,
        )
    raise NotOurs(why)


def _no_cache_set() -> bool:
    return os.environ.get("SASSVIEW_NO_CACHE", "") not in ("", "0")


def is_sassviews(root: Path) -> bool:
    """Does the root carry sassview's marker (or is it the platform directory named for it)?"""
    if root == default_root():
        return True
    try:
        with open(root / MARKER, encoding="utf-8", errors="replace") as handle:
            return handle.readline() == MARKER_TEXT.splitlines(keepends=True)[0]
    except OSError:
        return False


class NotOurs(OSError):
    """The root holds files sassview did not write: it is not marked, and not written."""


_warned: set[Path] = set()


def claim(root: Path) -> None:
    """Create the root if needed and mark it as sassview's (raises OSError when it cannot).

    Only a directory sassview creates, or finds empty, is marked: a marker on a directory that
    already holds the user's files would make them look like sassview's to `cache clear`. Such
    a root raises NotOurs (an OSError: every writer then goes on without the cache), said once
    on stderr."""
    root.mkdir(parents=True, exist_ok=True)
    if (root / MARKER).is_file():
        return
    if root != default_root() and _holds_anything(root):
        _refuse(root)
    # "x": another process may mark it meanwhile, and one marker is as good as the other.
    with contextlib.suppress(FileExistsError), open(root / MARKER, "x", encoding="utf-8") as out:
        out.write(MARKER_TEXT)


@dataclass(frozen=True, slots=True)
class FileRecord:
    size: int
    sha256: str
    text: bool


@dataclass(frozen=True, slots=True)
class Manifest:
    key: str
    files: dict[str, FileRecord]
    meta: dict[str, object]


def parse_manifest(raw: bytes, key: str) -> Manifest | None:
    """The manifest of a format-2 entry named `key`, or None for anything else."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    files, meta = data.get("files"), data.get("meta", {})
    if not isinstance(files, dict) or not isinstance(meta, dict):
        return None
    records = {}
    for name, rec in files.items():
        if not (_flat_name(name) and isinstance(rec, dict)):
            return None
        size, sha, text = rec.get("size"), rec.get("sha256"), rec.get("text")
        if type(size) is not int or not isinstance(sha, str) or not isinstance(text, bool):
            return None
        records[name] = FileRecord(size, sha, text)
    return Manifest(key, records, meta)


def listed_names(raw: bytes, key: str) -> set[str] | None:
    """The files a manifest of any format lists, if it is one for `key` (format 1 listed
    {name: size}); None when it is not sassview's manifest for that key."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    files = data.get("files")
    if not isinstance(files, dict) or not all(_flat_name(n) for n in files):
        return None
    return set(files)


def _flat_name(name: object) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..", MANIFEST) and "/" not in name


@dataclass(frozen=True, slots=True)
class Item:
    """One thing found under the root: its path, size in bytes and (for entries) last use."""

    path: Path
    size: int
    used: float = 0.0


@dataclass(slots=True)
class Survey:
    """What a root holds, sorted by what sassview may do with it."""

    root: Path
    ours: bool  # the root is provably sassview's: the rest of the proof may be applied
    entries: list[Item] = field(default_factory=list)
    garbage: list[Item] = field(default_factory=list)  # torn entries, killed writers' leftovers
    scratch: list[Item] = field(default_factory=list)
    foreign: list[Item] = field(default_factory=list)
    problem: str | None = None  # why the root cannot be used at all
    measure: bool = True  # size what is not sassview's (a walk of all of it: only to show it)

    def foreign_item(self, path: Path) -> Item:
        return Item(path, tree_size(path) if self.measure else 0)

    @property
    def empty(self) -> bool:
        return not (self.entries or self.garbage or self.scratch or self.foreign)


def survey(root: Path, measure: bool = True) -> Survey:
    """Walk the root once and sort everything in it (tolerates things vanishing meanwhile).
    Without `measure`, what is not sassview's is listed but not walked: a root pointed at a
    home directory costs one listing, not a walk of the whole home."""
    found = Survey(root, is_sassviews(root), measure=measure)
    if not root.exists():
        return found
    if not root.is_dir():
        found.problem = "is not a directory"
        return found
    legacy = LEGACY_SCRATCH if root == default_root() else ()
    for child in _children(root):
        if child.name == MARKER and child.is_file():
            continue
        if child.name in legacy and _is_dir(child):
            found.scratch.append(Item(child, tree_size(child)))
        elif child.name in _VERSIONS and _is_dir(child):
            _survey_version(child, found)
        else:
            found.foreign.append(found.foreign_item(child))
    return found


def _survey_version(vdir: Path, found: Survey) -> None:
    for kind in _children(vdir):
        if not _is_dir(kind):
            found.foreign.append(found.foreign_item(kind))
        elif kind.name == SCRATCH:
            for scratch in _children(kind):
                if _is_dir(scratch) and _own_scratch(vdir, scratch):
                    found.scratch.append(Item(scratch, tree_size(scratch)))
                else:
                    found.foreign.append(found.foreign_item(scratch))
        else:
            for prefix in _children(kind):
                if _is_dir(prefix) and re.fullmatch("[0-9a-f]{2}", prefix.name):
                    for item in _children(prefix):
                        _sort_entry(item, prefix.name, found)
                else:
                    found.foreign.append(found.foreign_item(prefix))


def _own_scratch(vdir: Path, scratch: Path) -> bool:
    """A scratch directory of this sassview's: its version's, by a name it makes."""
    return vdir.name == f"v{FORMAT_VERSION}" and scratch.name in SCRATCH_NAMES


def _sort_entry(path: Path, prefix: str, found: Survey) -> None:
    files = flat_files(path) if _is_dir(path) else None  # a link is followed by no removal
    if files is None:  # not a directory of regular files only: not sassview's
        found.foreign.append(found.foreign_item(path))
        return
    size = sum(s for _, s in files.values())
    if path.name.startswith(TMP_PREFIX):
        found.garbage.append(Item(path, size))
        return
    if not (_KEY.fullmatch(path.name) and path.name.startswith(prefix)):
        found.foreign.append(Item(path, size))
        return
    listed = _listed(path)
    if listed is not None and set(files) == listed | {MANIFEST}:
        found.entries.append(Item(path, size, files[MANIFEST][0]))
    else:
        found.garbage.append(Item(path, size))


def read_regular(path: Path) -> bytes:
    """The bytes of `path`, which must be a regular file: a FIFO someone put in the cache
    would block the read for ever, a device would be read without end. Anything else raises
    OSError, which every reader takes as an absent or damaged entry."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO's open waits else
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        with open(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def _listed(entry: Path) -> set[str] | None:
    try:
        return listed_names(read_regular(entry / MANIFEST), entry.name)
    except OSError:
        return None


def flat_files(path: Path) -> dict[str, tuple[float, int]] | None:
    """{name: (mtime, size)} of a directory that holds only regular files; else None."""
    out = {}
    try:
        with os.scandir(path) as it:
            for e in it:
                if not e.is_file(follow_symlinks=False):
                    return None
                st = e.stat(follow_symlinks=False)
                out[e.name] = (st.st_mtime, st.st_size)
    except FileNotFoundError:
        return {}  # removed meanwhile: nothing left to sort
    except OSError:
        return None
    return out


def tree_size(path: Path) -> int:
    try:
        if not _is_dir(path):
            return path.lstat().st_size
    except OSError:
        return 0
    total = 0
    for dirpath, _, names in os.walk(path):
        for n in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, n)).st_size
    return total


def _children(path: Path) -> Iterator[Path]:
    try:
        return iter(sorted(path.iterdir()))
    except OSError:
        return iter(())


def _is_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()
