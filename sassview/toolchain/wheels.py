"""Unpack a wheel into a toolchain directory, every file checked against the wheel's RECORD.

A wheel is a zip whose `*.dist-info/RECORD` lists each file with its sha256 (urlsafe base64,
unpadded) and size. pip checks a downloaded wheel against the index's hash; this checks what is
inside it against its own list, so a damaged or altered file is refused before anything is
written. Only regular files are written, each under the target directory (a name with `..`, an
absolute name or a link is refused: a wheel is data here, never a script to run).

How it can be wrong: RECORD is written by whoever built the wheel; a wheel altered together
with its RECORD passes here (pip's index hash is what catches that, on download).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sassview.errors import ToolchainError

_CHUNK = 1 << 20
# Files a RECORD cannot list with a hash: itself, and the signatures that sign it.
_UNHASHED = ("RECORD", "RECORD.jws", "RECORD.p7s")


@dataclass(frozen=True, slots=True)
class Unpacked:
    """One wheel as written: its name, version, and each file's (sha256 hex, size)."""

    name: str
    version: str
    files: dict[str, tuple[str, int]]


def _record(zf: zipfile.ZipFile, wheel: Path) -> tuple[str, dict[str, tuple[str, int]]]:
    """(the dist-info directory, {path: (sha256 hex, size)}) read from the wheel's RECORD."""
    records = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/RECORD")]
    if len(records) != 1:
        raise _bad(wheel, "it has no single .dist-info/RECORD")
    listed: dict[str, tuple[str, int]] = {}
    text = zf.read(records[0]).decode("utf-8", errors="replace")
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        if len(row) != 3:
            raise _bad(wheel, f"RECORD has a malformed line: {','.join(row)[:80]}")
        name, hashed, size = row
        if PurePosixPath(name).name in _UNHASHED:
            continue
        algo, _, value = hashed.partition("=")
        if algo != "sha256" or not value or not size.isdigit():
            raise _bad(wheel, f"RECORD gives {name} no sha256 and size")
        padded = value + "=" * (-len(value) % 4)
        listed[name] = (base64.urlsafe_b64decode(padded).hex(), int(size))
    return records[0].split("/")[0], listed


def _bad(wheel: Path, why: str) -> ToolchainError:
    return ToolchainError(
        f"{wheel.name} cannot be used: {why}",
        "download it again (pip cache purge, then `sassview toolchain add` again)",
    )


def _safe_name(name: str, wheel: Path) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or "\\" in name:
        raise _bad(wheel, f"it holds a file outside its own tree: {name!r}")
    return path


def _metadata(dist_info: str, wheel: Path) -> tuple[str, str]:
    stem = dist_info.removesuffix(".dist-info")
    name, sep, version = stem.rpartition("-")
    if not sep or not name or not version:
        raise _bad(wheel, f"its {dist_info} names no version")
    return name.replace("_", "-").lower(), version


def unpack_wheel(wheel: Path, into: Path) -> Unpacked:
    """Write `wheel`'s files under `into`, each verified against RECORD while it is copied;
    raises ToolchainError (and leaves what it wrote for the caller's staging to remove)."""
    try:
        zf = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as exc:
        raise _bad(wheel, f"it is not a wheel ({exc})") from None
    with zf:
        dist_info, listed = _record(zf, wheel)
        seen: dict[str, tuple[str, int]] = {}
        for info in zf.infolist():
            if info.is_dir():
                continue
            rel = _safe_name(info.filename, wheel)
            if PurePosixPath(info.filename).name in _UNHASHED:
                continue
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise _bad(wheel, f"{info.filename} is a link")
            want = listed.get(info.filename)
            if want is None:
                raise _bad(wheel, f"{info.filename} is not in its RECORD")
            got = _copy(zf, info, into / rel, bool(mode & 0o111))
            if got != want:
                raise _bad(wheel, f"{info.filename} does not match its RECORD hash")
            seen[info.filename] = got
        missing = sorted(set(listed) - set(seen))
        if missing:
            raise _bad(wheel, f"RECORD lists {missing[0]}, which it does not hold")
    name, version = _metadata(dist_info, wheel)
    return Unpacked(name, version, seen)


def _copy(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, executable: bool
) -> tuple[str, int]:
    """Write one member to `target` (mode 0755 or 0644); its (sha256 hex, size) as written.
    Two wheels may both ship a file (`nvidia/__init__.py`): the second copy must be the same."""
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    size = 0
    with zf.open(info) as src, open(part, "xb") as out:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            out.write(chunk)
    got = digest.hexdigest(), size
    if target.exists():
        part.unlink()
        if file_digest(target) != got:
            raise ToolchainError(
                f"two wheels of this release both hold {info.filename}, and they differ",
                "report it: a release's wheels should agree",
            )
        return got
    part.chmod(0o755 if executable else 0o644)
    part.rename(target)
    return got


def file_digest(path: Path) -> tuple[str, int]:
    """(sha256 hex, size) of a file as it is now."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size
