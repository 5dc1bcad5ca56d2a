"""A header checked as its includer includes it: the includer's lines before that `#include` go
first (`--included-by FILE`), so the macros and typedefs a header relies on (`#define WARPSIZE
32`, `typedef float real;`) are there, as in the build, with the header's own lines unchanged.

The includer's lines are written, behind a `#line` directive that keeps their file and line
numbers, to a file under sassview's cache (never beside the user's files), which is included
ahead of the header like --include-before; the includer's directory joins the -I list, since
its quoted includes are looked up there. A header checked alone is compiled so, as the nearest
of the project's files that include it directly (`find_includers`: under the project's top, the
directory holding .git or the outermost with a build file, else beside it and one directory up);
when it still fails alone on undefined names, `find_includer` names one for the hint.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from sassview.errors import InputError
from sassview.frontends.includes import clean

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')
_SOURCES = (".cu", ".cpp", ".cc", ".cxx")
_MAX_CANDIDATES = 200


def include_line(includer: Path, header: Path, include_dirs: Sequence[Path]) -> int | None:
    """The line at which `includer` itself includes `header` (1-based), else None."""
    try:
        text = includer.read_bytes()
    except OSError:
        return None
    target = header.resolve()
    dirs = [includer.resolve().parent, *(Path(d).resolve() for d in include_dirs)]
    for number, line in enumerate(clean(text, keep_lines=True).split(b"\n"), 1):
        m = _INCLUDE.match(line)
        if m is None:
            continue
        name = m.group(1).decode(errors="replace")
        if any(Path(os.path.normpath(d / name)) == target for d in dirs):
            return number
    return None


def context_file(includer: Path, header: Path, include_dirs: Sequence[Path], into: Path) -> Path:
    """Write the includer's lines before its #include of `header` into `into`; the path."""
    line = include_line(includer, header, include_dirs)
    if line is None:
        raise InputError(
            f"--included-by {includer}: it does not #include {header.name} itself",
            "name the file whose #include line reaches the header directly",
        )
    lines = includer.read_bytes().split(b"\n")[: line - 1]
    quoted = str(includer.resolve()).replace("\\", "\\\\").replace('"', '\\"')
    text = f'#line 1 "{quoted}"\n'.encode() + b"\n".join(lines) + b"\n"
    digest = hashlib.sha256(text).hexdigest()[:16]
    path = into / f"{includer.stem}-{digest}.h"
    if not path.is_file():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(text)
        os.replace(tmp, path)
    return path


def find_includer(header: Path, include_dirs: Sequence[Path]) -> Path | None:
    """A source file beside `header` or one directory up that includes it directly."""
    here = header.resolve().parent
    seen = 0
    for folder in (here, here.parent):
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix in _SOURCES and p.is_file())
        except OSError:
            continue
        for candidate in files:
            seen += 1
            if seen > _MAX_CANDIDATES:
                return None
            if include_line(candidate, header, include_dirs) is not None:
                return candidate
    return None


def find_includers(header: Path, include_dirs: Sequence[Path]) -> list[Path]:
    """The project's source files that include `header` directly, nearest to it first."""
    from sassview.frontends.missing_header import project_top, walk_project

    here = header.resolve()
    top = project_top(here)
    if top is None:
        beside = find_includer(header, include_dirs)
        return [beside] if beside else []
    name = here.name.encode()
    found = [
        path
        for path in walk_project(top, lambda n: n.endswith(_SOURCES))
        if _mentions(path, name) and include_line(path, here, include_dirs) is not None
    ]
    return sorted(found, key=lambda p: _distance(here, p))


def _mentions(path: Path, name: bytes) -> bool:
    """A cheap first test: the file's bytes name the header at all."""
    try:
        return name in path.read_bytes()
    except OSError:
        return False


def _distance(header: Path, source: Path) -> tuple[int, str]:
    common = Path(os.path.commonpath([header.parent, source]))
    return (len(header.parent.parts) + len(source.parts) - 2 * len(common.parts), str(source))
