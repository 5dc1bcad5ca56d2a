"""What of nvcc's command line reaches a shell, and the check that nothing dangerous does.

nvcc does not run its steps (the host preprocessor, cicc, ptxas) itself: it writes each one as a
line of text and hands it to `sh -c`. `nvcc --dryrun` prints those lines; read with nvcc 13.5
(the wheel's), they show four ways an argument is pasted in:

- `-D`/`-U` values: inside double quotes, nothing escaped (nvcc drops backslashes itself), so
  `-DX=$(cmd)` and backticks run `cmd`;
- `-I`, `-isystem`, `-include` paths, the input file and the output and keep-dir paths: inside
  double quotes with only `$` escaped, so a backtick in a path runs what it encloses;
- `-Xptxas`/`--ptxas-options` and `-Xcompiler` values: bare, unquoted (`;`, `|`, a space all
  act);
- `-ccbin PATH`: its directory quoted, its file name bare.

nvcc also refuses a `"` in an option (`Stray '"' character`). So every argument sassview hands to
nvcc is checked here first, and refused (an InputError that says which argument and why) when
it holds a character that the shell could act on where nvcc puts it: `$`, a backtick, a
backslash, `"` or a line break anywhere; anything but `A-Z a-z 0-9 _ + , . = : / @ % ^ -` in
an argument nvcc may paste bare (every option but the quoted ones above, which sassview cannot
prove nvcc quotes).
The user's file itself is never refused for its name: nvcc_compile includes it from a wrapper
with a safe name (`#include` of the real path: no shell sees it), so its line numbers and
includes are as they were. NVRTC runs no shell and takes every value as it is.

How it can be wrong: another nvcc release may quote differently. The rules hold whatever it
quotes, as long as it quotes with double quotes or not at all; a release that single-quotes
would make `'` the dangerous character, and `'` is allowed in the quoted arguments.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from sassview.errors import InputError

# Live inside double quotes (and nvcc refuses `"`): refused in every argument.
_NEVER = {"$": "a `$`", "`": "a backtick", "\\": "a backslash", '"': 'a `"`', "\n": "a line break",
          "\r": "a carriage return"}  # fmt: skip
# What an argument nvcc may paste bare can hold.
_BARE = re.compile(r"[A-Za-z0-9_+,.=:/@%^-]*")
# Joined options whose value nvcc puts in double quotes; options whose next argument it does.
_QUOTED_JOINED = ("-D", "-U", "-I", "-isystem=", "-keep-dir=")
_QUOTED_NEXT = frozenset({"-include", "-o", "-isystem"})
_HINT = (
    'nvcc runs its steps through sh, so sassview hands it no `$`, backtick, `\\`, `"` or line '
    "break, and no spaces or shell punctuation in an option it does not quote; "
    "NVRTC (--compiler nvrtc) runs no shell, or put the value in a header"
)


def hazard(arg: str, quoted: bool) -> str | None:
    """Why `arg` is unsafe where nvcc pastes it (quoted or bare); None when it is safe."""
    for char, name in _NEVER.items():
        if char in arg:
            return name
    if not quoted and not _BARE.fullmatch(arg):
        bad = next(c for c in arg if not _BARE.fullmatch(c))
        return f"{'a space' if bad == ' ' else repr(bad)} where nvcc does not quote"
    return None


def _hazards(argv: Sequence[str]) -> list[tuple[str, str]]:
    """(argument, why) for every unsafe argument of an nvcc command line (argv[0]: nvcc itself,
    run directly; the last: the input file, quoted)."""
    found: list[tuple[str, str]] = []
    last = len(argv) - 1
    previous = ""
    for i, arg in enumerate(argv[1:], start=1):
        if previous == "-ccbin":  # its directory quoted, its name bare
            head, name = os.path.split(arg)
            why = hazard(head, True) or hazard(name, False)
        else:
            quoted = i == last or previous in _QUOTED_NEXT or arg.startswith(_QUOTED_JOINED)
            why = hazard(arg, quoted)
        if why is not None:
            found.append((arg, why))
        previous = arg
    return found


def refuse_shell_text(argv: Sequence[str]) -> None:
    """Raise InputError naming the first argument nvcc would hand a shell unsafely."""
    found = _hazards(argv)
    if found:
        arg, why = found[0]
        raise InputError(f"nvcc would hand {arg!r} to a shell ({why}): not running it", _HINT)


def includable(path: str) -> bool:
    """Can `path` be named in an `#include "..."` of a wrapper? (No `"`, `\\` or line break:
    a header name has no escapes.)"""
    return not any(c in path for c in '"\\\n\r')
