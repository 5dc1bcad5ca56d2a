"""Where exported files go, what they are called, and how they are written.

Names come from the kernel (its label, architecture and name), and a kernel is input we do not
control: a label such as `../../etc/x` or a name with `/` must not put a file outside the chosen
directory. So every name is reduced to `[A-Za-z0-9._-]` (no leading dot, no `..`), and checked
again to be one plain file name right before anything is written.

Writes are all-or-nothing: every file of one export is first written to a temporary file in the
target directory, and only when all of them are complete are they renamed into place
(`os.replace`, atomic on one file system). A failure on the way — a full disk, a directory we may
not write, an exception while rendering — removes the temporary files and leaves the directory
as it was: no half-written listing that looks like a good one.

The renames are one per file, so the second can fail after the first landed (a target another
process holds, an immutable file). Each file being replaced is therefore kept under a hidden
hard link until every rename has landed, and put back if one fails; where even that cannot be
undone, the error names the files that now hold the new export instead of saying nothing was
written.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from sassview.errors import SassviewError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_MAX_PART = 80
# Suffixes a label ends with that add nothing to a file name (01_naive.cu -> 01_naive).
_DROP_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".ptx", ".cubin", ".py")


class ExportError(SassviewError):
    """An export could not be written (nothing was left behind)."""


def safe_part(text: str, fallback: str = "kernel") -> str:
    """One component of a file name: only letters, digits, `.`, `_`, `-`; never `.` or `..`.

    Runs of anything else become one `_`; leading dots and separators go, so the result can
    neither name a parent directory nor be hidden.
    """
    for suffix in _DROP_SUFFIXES:
        if text.endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)]
            break
    part = _UNSAFE.sub("_", text).strip("._-")
    part = re.sub(r"\.{2,}", ".", part)[:_MAX_PART].strip("._-")
    return part or fallback


def unique_names(stems: Sequence[str]) -> list[str]:
    """The stems, with `-2`, `-3`, ... added to repeats, in order (deterministic)."""
    seen: dict[str, int] = {}
    out = []
    taken = set(stems)
    for stem in stems:
        count = seen.get(stem, 0) + 1
        seen[stem] = count
        name = stem
        while count > 1 and (name := f"{stem}-{count}") in taken:
            count += 1
            seen[stem] = count
        taken.add(name)
        out.append(name)
    return out


def _target(out_dir: Path, name: str) -> Path:
    if not _PLAIN.fullmatch(name) or ".." in name:
        raise ExportError(
            f"refusing to write {name!r}: not a plain file name",
            "this is a bug in sassview's exporter: names are made by safe_part()",
        )
    # A plain name joined to the directory stays in it; os.replace replaces a symbolic link of
    # that name rather than writing through it, so a link cannot lead a write elsewhere either.
    return out_dir / name


def prepare_dir(out_dir: Path) -> Path:
    """Make the output directory (and its parents); refuse a path that is a file."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ExportError(
            f"{out_dir} exists and is not a directory", "choose a directory with -o DIR"
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(
            f"cannot create the output directory {out_dir}: {exc.strerror or exc}",
            "choose a directory you can write to with -o DIR",
        ) from exc
    if not out_dir.is_dir():
        raise ExportError(f"{out_dir} is not a directory", "choose a directory with -o DIR")
    return out_dir


def write_all(out_dir: Path, files: Sequence[tuple[str, bytes]]) -> list[Path]:
    """Write every (name, content) into `out_dir`, all or nothing; return the paths."""
    out_dir = prepare_dir(out_dir)
    targets = [_target(out_dir, name) for name, _ in files]
    if len(set(targets)) != len(targets):
        raise ExportError("two exported files would have the same name", "report this as a bug")
    temps: list[Path] = []
    try:
        for target, (_, data) in zip(targets, files, strict=True):
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=out_dir)
            temps.append(Path(name))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            # mkstemp makes 0600 files; an exported listing is meant to be read by others.
            os.chmod(name, 0o644)
        _swap_in(temps, targets)
    except _PartlyWritten as exc:
        _remove(temps)
        left = ", ".join(
            target.name + (f" (its previous file kept as {old.name})" if old else "")
            for target, old in exc.left
        )
        raise ExportError(
            f"cannot write into {out_dir}: {exc.cause.strerror or exc.cause}",
            f"these files hold the new export and the rest the old one: {left}",
        ) from exc.cause
    except OSError as exc:
        _remove(temps)
        raise ExportError(
            f"cannot write into {out_dir}: {exc.strerror or exc}",
            "check that the directory is writable and the disk is not full; nothing was written",
        ) from exc
    except BaseException:
        _remove(temps)
        raise
    return targets


class _PartlyWritten(Exception):
    """A rename failed and the ones before it could not all be undone: `left` are new."""

    def __init__(self, cause: OSError, left: list[tuple[Path, Path | None]]) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.left = left


def _swap_in(temps: Sequence[Path], targets: Sequence[Path]) -> None:
    """Rename every temp onto its target, or none: a failure puts the old files back."""
    done: list[tuple[Path, Path | None]] = []  # (target, its old file's link, None if new)
    try:
        for temp, target in zip(temps, targets, strict=True):
            old = _keep_old(target)
            try:
                os.replace(temp, target)
            except OSError:
                _remove([old] if old else [])
                raise
            done.append((target, old))
    except OSError as exc:
        left = _undo(done)
        if left:
            raise _PartlyWritten(exc, left) from exc
        raise
    _remove([old for _, old in done if old])


def _keep_old(target: Path) -> Path | None:
    """A hidden hard link to the file `target` names now, or None when there is none."""
    if not target.exists():
        return None
    link = target.with_name(f".{target.name}.{os.urandom(4).hex()}.old")
    os.link(target, link)
    return link


def _undo(done: Sequence[tuple[Path, Path | None]]) -> list[tuple[Path, Path | None]]:
    """Put each old file back (or remove a file that was new); return what stays new."""
    left: list[tuple[Path, Path | None]] = []
    for target, old in reversed(done):
        try:
            if old is None:
                target.unlink()
            else:
                os.replace(old, target)
        except OSError:  # the old file, if any, stays under its link: named in the error
            left.append((target, old))
    return sorted(left)


def _remove(paths: Sequence[Path]) -> None:
    for p in paths:
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except OSError:  # pragma: no cover - best effort: the original error matters more
            pass
