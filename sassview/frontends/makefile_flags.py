"""A Makefile's CUDA flags, named for a file that has no compile_commands.json.

sassview does not run make (a Makefile is a program: its flags can come from anything it
computes), but a kernel's Makefile usually spells them in one assignment, `NVCCFLAGS := -O3
-arch=sm_80 -I../include -DTILE=64`. That assignment is named, with the sassview options that
say the same (-I made absolute, -D, --arch, -X=...), so the user can pass them; what refers to
other variables ($(CUDA_HOME)) is said to be left out. `bear -- make` writes a database that
sassview reads instead.

How it can be wrong: an assignment made conditional (ifeq), appended to (+=) or overridden on
make's command line reads here as the first plain one; a flag whose value is a separate word
(-I dir) is joined to it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_ASSIGNMENT = re.compile(
    r"^[ \t]*(NVCCFLAGS|NVCC_FLAGS|CUDAFLAGS|CUDA_FLAGS|NVFLAGS)[ \t]*[:+?]?=[ \t]*(.*)$", re.M
)
_DEVICE = re.compile(r"^--?(?:expt-|extended-lambda|use_fast_math|std=|maxrregcount|rdc|G$)")


def makefile_note(source: Path) -> str:
    """A note naming the nearest Makefile's CUDA flags as sassview options, or ""."""
    for folder in source.resolve().parents:
        for name in _MAKEFILES:
            path = folder / name
            if path.is_file():
                return _note(path)
        if (folder / ".git").exists():
            break
    return ""


def _note(makefile: Path) -> str:
    try:
        text = makefile.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    found = _ASSIGNMENT.search(text.replace("\\\n", " "))
    if found is None:
        return ""
    line = text[: text.find(found.group(1))].count("\n") + 1
    said, left = _as_options(found.group(2), makefile.parent)
    note = (
        f"note: {makefile}:{line} sets {found.group(1)}, and sassview reads no Makefile: "
        f"pass {' '.join(said)}"
        if said
        else f"note: {makefile}:{line} sets {found.group(1)}"
    )
    if left:
        note += f" (left out: {' '.join(left)})"
    return note + "; or `bear -- make` writes a compile_commands.json sassview reads"


def _as_options(value: str, base: Path) -> tuple[list[str], list[str]]:
    try:
        words = shlex.split(value.split("#", 1)[0])
    except ValueError:
        return [], [value.strip()]
    said: list[str] = []
    left: list[str] = []
    for word in words:
        if "$" in word:
            left.append(word)
        elif word.startswith("-I") and len(word) > 2:
            said.append(f"-I {(base / word[2:]).resolve()}")
        elif word.startswith("-D") and len(word) > 2:
            said.append(f"-D {word[2:]}")
        elif arch := re.search(r"\bsm_(\d+[af]?)", word):
            said.append(f"--arch sm_{arch.group(1)}")
        elif _DEVICE.match(word):
            said.append(f"-X={word}")
    return list(dict.fromkeys(said)), left
