"""A `-D NAME=V` the file's own `#define` replaces: the warning, at the `#define`'s line.

CUDA C++. `check -D TILE=16` on a file that `#define`s TILE 32 compiles with 32 (the
preprocessor takes the last definition); the loop claims read 32 (`files.SourceFiles`, through
`sassview.parse.cxx_macros`), and this says why the `-D` had no effect. Two witnesses: the
compiler's own `warning #47-D: incompatible redefinition of macro "TILE"` at a file's line
(NVRTC and nvcc write it alike), and the definition-order walk, which also sees it when the
compile log is gone (a cubin rebuilt from a recorded listing) or the warning was suppressed.

How it can be wrong: the walk decides only the conditions it can (`cxx_macros`): a `#define`
under an undecided `#if` is not reported by it, and the compiler's warning then stands alone.
A `#define` in a header the line table does not name is seen only through the compiler's.
"""

from __future__ import annotations

import re
from pathlib import Path

from sassview.analyses.base import Annotation, Severity
from sassview.ir import SourceLoc
from sassview.parse.cxx_macros import Override

# `file.cu(3): warning #47-D: incompatible redefinition of macro "TILE"` (NVRTC, nvcc)
_REDEFINED = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+)\): warning #47-D: incompatible redefinition of macro "
    r'"(?P<name>\w+)"',
    re.M,
)
_DEFINE = re.compile(r"^\s*#\s*define\s+\w+\s+(.*?)\s*(?://.*)?$")


def overrides(
    walked: list[Override], compile_log: str, options: tuple[str, ...], text_of: dict[str, str]
) -> list[Override]:
    """The overrides the walk found, and those the compiler warned of that it did not (`-D`
    names only: a file redefining its own macro is no `-D` lost)."""
    given = {
        o[2:].partition("=")[0].strip(): o[2:].partition("=")[2].strip() or "1"
        for o in options
        if o.startswith("-D")
    }
    out = list(walked)
    seen = {(Path(o.file).name, o.line, o.name) for o in walked}
    for m in _REDEFINED.finditer(compile_log):
        name, line, file = m.group("name"), int(m.group("line")), m.group("file").strip()
        if name not in given or (Path(file).name, line, name) in seen:
            continue
        text = next((t for f, t in text_of.items() if Path(f).name == Path(file).name), "")
        lines = text.split("\n")
        d = _DEFINE.match(lines[line - 1]) if 0 < line <= len(lines) else None
        out.append(Override(name, given[name], d.group(1) if d else "?", file, line))
    return out


def override_note(o: Override) -> Annotation:
    """The warning: which `-D` the file replaced, where, and the value the compiler used."""
    where = f"line {o.line} of {Path(o.file).name}" if o.file else f"line {o.line}"
    return Annotation(
        "macro-override",
        Severity.WARNING,
        f"-D {o.name}={o.option} has no effect: the file's own `#define {o.name} {o.value}` "
        f"at {where} replaces it, and the compiler used {o.value} (so do these loop claims)",
        f"guard the file's definition (`#ifndef {o.name}` ... `#endif`) to let -D set it, "
        f"or drop the -D",
        source=(SourceLoc(o.file, o.line),),
        data={"macro": o.name, "option": o.option, "value": o.value, "line": o.line},
    )


__all__ = ["override_note", "overrides"]
