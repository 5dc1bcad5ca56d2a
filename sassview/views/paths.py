"""Paths in a text report as the user wrote them: relative to the working directory.

The frontends resolve every input to an absolute path (the compiler, the cache key and the
JSON need one), so a report read `/home/me/proj/examples/k.cu` where the user typed
`examples/k.cu`. A text view shows each path under the working directory relative to it;
`--json` keeps the absolute paths for the programs that read it.
"""

from __future__ import annotations

import os


def as_typed(text: str) -> str:
    """`text` with the working directory's prefix taken off the paths under it."""
    try:
        cwd = os.getcwd()
    except OSError:  # the directory was removed under us: nothing is relative to it
        return text
    if cwd == os.sep:
        return text
    return text.replace(cwd.rstrip(os.sep) + os.sep, "")
