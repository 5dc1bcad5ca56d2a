"""Which local files an NVRTC compile may read, so its cache key changes when one does.

NVRTC has no dependency output (measured on 13.5: -MM, --generate-dependencies, -MD -MF,
--generate-dependencies-with-compile and --dependency-output are each "unrecognized option";
tests/test_include_tricks.py fails the day one is accepted), so this reads the preprocessor
directives itself and errs on the side of too many files: a file that is listed but not
compiled costs a cache miss, a file that is compiled but not listed serves a stale answer. So it

- reads directives as the preprocessor does: backslash continuations joined first, even inside
  a directive's name (`#inc\\` newline `lude`), comments removed (`/**/ #include "x.h"` is a
  directive), `%:` read as `#` (the digraph), `#include MACRO` resolved through the `#define`s of
  every file read and the -D list;
- records every place a name could resolve to, not only the first: the includer's directory and
  every -I directory, for `"x.h"` and `<x.h>` alike, each as its bytes or as absent (a header
  created later in front of the one used changes the key);
- when an `#include` operand cannot be resolved (a computed name), adds every header-like file
  under the search directories; past a bound it gives up and says the scan is incomplete, and
  the caller compiles without the cache.

What it cannot see (a trigraph `??=`, dropped from C++17; an `#include` NVRTC reads in a way
not listed here) the compiler's own word catches in part: a file the PTX's line table names
that the scan did not list makes the compile uncached (frontends/cuda.py, `unlisted_files`).

nvcc lists the files it read (frontends/nvcc.py), but not the places it looked first: its cache
entries keep this scan's paths too, so a header created later that shadows one is seen
(frontends/depcache.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

_CONTINUATION = re.compile(rb"\\\r?\n")
# A string or character literal (kept: it may be an include operand) or a comment (dropped).
_COMMENT_OR_LITERAL = re.compile(
    rb'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|//[^\n]*|/\*.*?\*/', re.S
)
# `%:` is the digraph of `#` (C++ [lex.digraph]): `%:include "x.h"` is an #include.
_DIRECTIVE = re.compile(rb"^[ \t]*(?:#|%:)[ \t]*(include(?:_next)?|define)\b[ \t]*(.*)$", re.M)
_HAS_INCLUDE = re.compile(rb"__has_include(?:_next)?\s*\(\s*([<\"][^>\"]+[>\"])\s*\)")
_QUOTED = re.compile(rb'^(?:"([^"]+)"|<([^>]+)>)')
_DEFINE = re.compile(rb"^([A-Za-z_]\w*)[ \t]+(.*?)[ \t]*$")
_IDENT = re.compile(rb"^[A-Za-z_]\w*$")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".ipp", ".tcc", ".cu")
MAX_FALLBACK_FILES = 4000


@dataclass(slots=True)
class IncludeScan:
    """Every local path the compile may have read: its bytes, or None where no file is."""

    files: dict[str, bytes | None] = field(default_factory=dict)
    complete: bool = True  # False: a computed #include beyond the bound; do not cache

    def present(self) -> dict[str, bytes]:
        return {p: b for p, b in self.files.items() if b is not None}


def clean(text: bytes, *, keep_lines: bool = False) -> bytes:
    """The text the preprocessor sees directives in: continuations joined, comments gone.
    With keep_lines, a continuation and a comment keep their newlines (for line numbers)."""
    joined = _CONTINUATION.sub(b" \n" if keep_lines else b"", text)

    def blank(m: re.Match[bytes]) -> bytes:
        if m.group(1):
            return m.group(1)
        return b" " + b"\n" * m.group(0).count(b"\n") if keep_lines else b" "

    return _COMMENT_OR_LITERAL.sub(blank, joined)


def local_includes(
    source: bytes,
    source_dir: Path | None,
    include_dirs: Iterable[Path],
    *,
    defines: Sequence[str] = (),
    pre_includes: Sequence[Path] = (),
) -> IncludeScan:
    """Follow the includes of `source` (and of the -include files) through local files."""
    dirs = [Path(d).resolve() for d in include_dirs]
    macros = {d.split("=", 1)[0].encode(): d.split("=", 1)[1].encode() for d in defines if "=" in d}
    scan = IncludeScan()
    texts: list[tuple[bytes, Path | None]] = [(source, source_dir)]
    for pre in pre_includes:
        found = _read(scan, pre.resolve())
        if found is not None:
            texts.append((found, pre.resolve().parent))
    if not any(b"include" in t or b"include" in _CONTINUATION.sub(b"", t) for t, _ in texts):
        # No #include and no __has_include anywhere: nothing to follow, and cleaning a big
        # generated source of its comments cost ~22 ms a scan (the 65k benchmark's cache hit).
        return scan
    pending: list[tuple[bytes, Path | None]] = [(clean(t), here) for t, here in texts]
    unresolved = False
    while pending:
        text, here = pending.pop()
        operands = []
        for kind, rest in _DIRECTIVE.findall(text):
            if kind == b"define":
                m = _DEFINE.match(rest)
                if m:
                    macros.setdefault(m.group(1), m.group(2))
            else:
                operands.append(rest.strip())
        operands += _HAS_INCLUDE.findall(text)
        for operand in operands:
            name = _operand_name(operand, macros)
            if name is None:
                unresolved = True
                continue
            for base in ([here] if here else []) + dirs:
                candidate = Path(os.path.normpath(base / name))
                key = str(candidate)
                if key in scan.files:
                    continue
                found = _read(scan, candidate)
                if found is not None:
                    pending.append((clean(found), candidate.parent))
    if unresolved:
        _add_every_header(scan, ([source_dir] if source_dir else []) + dirs)
    return scan


_PTX_FILE = re.compile(r'^\s*\.file\s+\d+\s+"((?:\\.|[^"\\])*)"', re.M)


_LINE_NAME = re.compile(rb'^[ \t]*(?:#|%:)[ \t]*(?:line[ \t]+)?\d+[ \t]+"([^"\n]*)"', re.M)


def unlisted_files(
    ptx: str, scan: IncludeScan, source: str | None, skip: str, text: bytes = b""
) -> list[str]:
    """Files the PTX's line table names (they gave code) that `scan` did not list, but the
    source itself, the names its `#line` directives give (a kernel file's string source names
    the kernel file) and what lies under `skip` (NVRTC's own headers): the scan was fooled."""
    named = {os.path.normpath(m.replace('\\"', '"')) for m in _PTX_FILE.findall(ptx)}
    known = {os.path.normpath(p) for p in scan.files}
    for data in (text, *scan.present().values()):
        known |= {os.path.normpath(n.decode(errors="replace")) for n in _LINE_NAME.findall(data)}
    if source:
        known.add(os.path.normpath(source))
    return sorted(n for n in named if n not in known and not n.startswith(skip))


def _operand_name(operand: bytes, macros: dict[bytes, bytes]) -> str | None:
    """The file name of an include operand, through object-like macros; None if computed."""
    for _ in range(16):
        m = _QUOTED.match(operand)
        if m:
            return (m.group(1) or m.group(2)).decode(errors="replace")
        if not _IDENT.match(operand) or operand not in macros:
            return None
        operand = macros[operand].strip()
    return None


def _read(scan: IncludeScan, path: Path) -> bytes | None:
    try:
        data = path.read_bytes() if path.is_file() else None
    except OSError:
        data = None
    scan.files[str(path)] = data
    return data


def _add_every_header(scan: IncludeScan, roots: list[Path]) -> None:
    """A computed #include may name any file: take them all, or give up past the bound."""
    count = 0
    for root in dict.fromkeys(roots):
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for f in sorted(filenames):
                if not f.endswith(HEADER_SUFFIXES):
                    continue
                count += 1
                if count > MAX_FALLBACK_FILES:
                    scan.complete = False
                    return
                path = Path(dirpath) / f
                if str(path) not in scan.files:
                    _read(scan, path)
