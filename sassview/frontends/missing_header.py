"""An `#include` the compile could not open: where in the project the header is, as the exact
`-I` that finds it, or the wheel or package that brings it.

A file checked outside its build lacks the build's include directories. The header is usually
in the project: its name as written (`ops/config.cuh`) is looked for as the end of a path under
the project's top (the directory holding .git, else the outermost one with a build file), nearest
to the includer first, and the directory it hangs from is the -I (compile_cuda tries it before it
says so). A header of an NVIDIA library comes as a wheel (libheaders.py), and PyTorch's as
torch: an extension's host code needs it, and no -I stands in.

How it can be wrong: two headers of one name in the project (the nearest is taken, and the
others named); a project above 20,000 files is searched only so far.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

_NOT_FOUND = re.compile(
    r'^(?P<at>.+?)\(\d+\): (?:catastrophic )?error: cannot open source file "(?P<n1>[^"]+)"'
    r"|^(?P<gat>.+?):\d+:\d+: fatal error: (?P<n2>[^:\s]+): No such file or directory",
    re.M,
)
_TORCH = ("torch", "ATen", "c10", "caffe2")
TORCH_HINT = "a PyTorch extension: its host code needs torch's headers (pip install torch)"
_SKIPPED = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", "site-packages"}
_MAX_FILES = 20_000
_PROJECT_FILES = (
    "CMakeLists.txt",
    "Makefile",
    "makefile",
    "setup.py",
    "pyproject.toml",
    "meson.build",
)


@dataclass(frozen=True, slots=True)
class Missing:
    header: str  # as the #include spells it
    includer: Path | None  # the file whose #include failed


def missing_header(log: str) -> Missing | None:
    """The first header the compile could not open, and the file that included it."""
    found = _NOT_FOUND.search(log)
    if found is None:
        return None
    at = found.group("at") or found.group("gat")
    return Missing(found.group("n1") or found.group("n2"), Path(at) if at else None)


def is_torch(header: str) -> bool:
    return header.split("/", 1)[0] in _TORCH or header in ("torch/extension.h",)


def include_dir_for(missing: Missing) -> tuple[Path, tuple[Path, ...]] | None:
    """The directory whose -I finds `missing.header` (nearest to the includer), and the other
    places the project has a header of that name; None when the project has none."""
    if missing.includer is None or not missing.includer.is_file():
        return None
    parts = Path(missing.header).parts
    if not parts or ".." in parts or Path(missing.header).is_absolute():
        return None
    here = missing.includer.resolve()
    top = project_top(here)
    if top is None:
        return None
    found = sorted(_ending_with(top, parts), key=lambda p: _distance(here, p))
    if not found:
        return None
    dirs = [Path(*p.parts[: len(p.parts) - len(parts)]) for p in found]
    return dirs[0], tuple(dict.fromkeys(d for d in dirs[1:] if d != dirs[0]))


def project_top(source: Path) -> Path | None:
    """The project's top: the nearest directory above `source` holding .git, else the outermost
    one holding a build file below the home directory; None outside any project (a header's
    name alone then proves nothing: a search of a temporary directory's neighbours finds
    strangers' files)."""
    top = None
    for parent in source.parents:
        if (parent / ".git").exists():
            return parent
        if parent == Path.home() or parent.parent == parent:
            break
        if any((parent / marker).is_file() for marker in _PROJECT_FILES):
            top = parent
    return top


def _ending_with(top: Path, parts: tuple[str, ...]) -> list[Path]:
    """Files under `top` whose path ends with `parts`."""
    return [
        path
        for path in walk_project(top, lambda name: name == parts[-1])
        if path.parts[-len(parts) :] == parts
    ]


def walk_project(top: Path, wanted: Callable[[str], bool]) -> Iterator[Path]:
    """The files under `top` whose name is `wanted`, not in hidden, vendored-environment or
    sassview-cache directories, the first _MAX_FILES files looked at."""
    from sassview.cache import cache_root

    cache = str(cache_root())  # its unpacked toolkit headers are no project's
    seen = 0
    for here, dirs, names in os.walk(top):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIPPED and not d.startswith(".") and os.path.join(here, d) != cache
        )
        for name in names:
            if wanted(name):
                yield Path(here) / name
        seen += len(names)
        if seen > _MAX_FILES:
            return


def _distance(source: Path, header: Path) -> tuple[int, str]:
    """Steps from the includer's directory up to the common ancestor and down to the header."""
    common = Path(os.path.commonpath([source.parent, header]))
    up = len(source.parent.parts) - len(common.parts)
    down = len(header.parts) - len(common.parts)
    return (up + down, str(header))
