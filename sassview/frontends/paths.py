"""The file a user points sassview at: one check, one message for each way it can be wrong.

Every way in (`load`, a kernel.py, `sweep`/`try`/`diff`) asks here before it reads, so a
directory named `x.py`, a symlink loop or a dangling link each get their own words rather than
"no such file" or a traceback from `Path.resolve()` (which raises RuntimeError on a loop).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from sassview.errors import InputError

ANY_INPUT = "a .cu, .ptx or .cubin file, or a kernel.py"


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def shown(path: str | Path) -> str:
    """`path` as a message prints it: a tab or \\x01 in a name written out (\\t, \\x01),
    so the name said is the name given, not one the terminal ate."""
    text = str(path)
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode(), text)


def input_file(path: str | Path, *, wanted: str = ANY_INPUT) -> Path:
    """`path` made absolute with its links resolved, once it is known to name a file; an
    InputError that says what it names instead. `wanted` words the hint for a directory."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise _error(Path(path), exc) from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{shown(path)} is a directory, not a file", f"point at {wanted}")
    return Path(path).resolve()


def _error(path: Path, exc: OSError) -> InputError:
    if exc.errno == errno.ELOOP:
        return InputError(
            f"{shown(path)}: a loop of symbolic links that never reaches a file",
            "point at the file itself (`ls -l` shows where each link points)",
        )
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        if path.is_symlink():
            return InputError(
                f"{shown(path)}: a symbolic link to {os.readlink(path)}, which does not exist",
                "point at the file itself, or fix the link",
            )
        return InputError(f"{shown(path)}: no such file", "check the path")
    return InputError(f"{shown(path)}: cannot read it ({exc.strerror})", "check its permissions")


def check_ptxas_can_name(path: Path) -> None:
    """CUDA C++ at a path with a `"` or a `\\` does not compile, or maps to no file: NVRTC and
    nvcc write the name into the PTX `.file` directive unescaped (`"`) or C-escaped (`\\\\`),
    and ptxas stops at a `"` with "Parsing error" and splits a name at a `\\` as at a `/`.
    Said before compiling, in words the user can act on. A name that is not UTF-8 (bytes a
    Latin-1 system wrote) cannot be passed to NVRTC or written into the PTX either."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"{repr(os.fsencode(path))[2:-1]}: CUDA C++ cannot be compiled from a path that is not"
            " UTF-8",
            "the compilers take the file's name as UTF-8 text: rename the file or its"
            " directory, or compile a copy of it elsewhere",
        ) from None
    for char, called in (('"', "a double quote"), ("\\", "a backslash")):
        if char in str(path) and char != os.sep:  # on Windows, `\\` is the separator
            raise InputError(
                f"{path}: CUDA C++ cannot be compiled from a path that holds {called} ({char})",
                "ptxas records the file's name for line numbers and cannot write it there:"
                " rename the file or its directory, or compile a copy of it elsewhere",
            )
