"""Snapshots: a normalised listing kept as a file beside the test, compared on every run.

Files live in `__snapshots__/<test module>/` next to the test module, one per (test, kernel or
name, arch, sass|ptx): `__snapshots__/test_kernels/test_listing.add_f4.sm_90a.sass`. They are
plain text, meant to be committed and reviewed. A missing snapshot is written (a copied test
passes on its first run) and the run's summary names it, for review; with `strict=True`
(pytest --sassview-strict, for CI) it fails instead. A different snapshot fails the test with
the path and a unified diff; only `update=True` (pytest --sassview-update) rewrites it. Writes
are atomic (temporary file + os.replace).

File names are the test's id, kernel name and arch with the characters a file name should not
hold replaced by `_`; where that changed a part, `~` and a digest of the part as it was follow,
so that ids which differ only there (`"a b"`, `"a_b"`) never share a file, and clean names
stay as they were. A name longer than a file name may be is cut, with a digest of all of it.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sassview.testing.failures import SassviewAssertionError

DIFF_LINES = 80  # longer diffs are cut: the snapshot file and --sassview-update show the rest


class SnapshotMismatch(SassviewAssertionError):
    """The listing differs from the snapshot on disk (or there is none yet)."""


@dataclass
class SnapshotSession:
    """What one test session does with snapshots: whether it may write them, what it wrote."""

    update: bool = False
    strict: bool = False  # a missing snapshot fails rather than being written
    written: list[Path] = field(default_factory=list)  # new files
    updated: list[Path] = field(default_factory=list)  # rewritten files


@dataclass
class SnapshotSlot:
    """The snapshots of one test: its directory and file-name stem."""

    directory: Path
    stem: str
    session: SnapshotSession
    used: set[Path] = field(default_factory=set)

    def path(self, name: str, arch: str, kind: str) -> Path:
        parts = [_safe(self.stem), _safe(name), _safe(arch)]
        return self.directory / (_bounded(".".join(p for p in parts if p)) + f".{kind}")

    def assert_matches(self, text: str, *, name: str, arch: str, kind: str) -> Path:
        """Compare with (or, when updating, write) the snapshot; returns its path."""
        __tracebackhide__ = True
        path = self.path(name, arch, kind)
        if path in self.used:
            raise ValueError(f"snapshot {path.name} is taken twice in this test: pass name=...")
        self.used.add(path)
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text:
            return path
        if old is None and self.session.strict and not self.session.update:
            raise SnapshotMismatch(
                f"no snapshot {_shown(path)} yet (--sassview-strict)\n"
                f"  run pytest with --sassview-update to record it ({len(text.splitlines())} "
                "lines), then review and commit it"
            )
        if old is None or self.session.update:
            _write(path, text)
            (self.session.written if old is None else self.session.updated).append(path)
            return path
        raise SnapshotMismatch(
            f"listing differs from snapshot {_shown(path)}\n"
            "  run pytest with --sassview-update to accept the new listing\n\n" + diff(old, text)
        )


def diff(
    old: str, new: str, *, names: tuple[str, str] = ("snapshot", "now"), limit: int = DIFF_LINES
) -> str:
    """Unified diff, old (-) against new (+), cut to `limit` lines."""
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), *names, lineterm="", n=2))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)


def _safe(text: str) -> str:
    """`text` as part of a file name: itself where it is clean, else the cleaned text, `~` (a
    character no clean part holds) and a digest of the original, so no two texts share one."""
    clean = re.sub(r"[^\w.+-]+", "_", text).strip("_")
    if clean == text:
        return text
    return f"{clean}~{hashlib.sha1(text.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


# A file name holds at most 255 bytes (NAME_MAX on Linux and macOS); the temporary file it is
# written through adds `.tmp-`, 8 random characters and the suffix.
_NAME_BYTES = 200


def _bounded(stem: str) -> str:
    """`stem` where it fits a file name; else its start, `~` and a digest of all of it (a long
    parametrised id: its start still says which test, the digest which one exactly)."""
    data = stem.encode("utf-8", "surrogatepass")
    if len(data) <= _NAME_BYTES:
        return stem
    digest = hashlib.sha1(data).hexdigest()[:16]
    start = data[: _NAME_BYTES - len(digest) - 1].decode("utf-8", "ignore")  # whole characters
    return f"{start}~{digest}"


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
