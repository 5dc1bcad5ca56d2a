"""Keep user code's output off stdout, where `--json` writes sassview's document.

A kernel.py runs while it is imported and again while its kernels compile (Triton and the CuTe
DSL call into it, in forked workers too). Whatever it prints, by `print`, a rebound
`sys.stdout`, `os.write(1, ...)` or a C library's `printf`, would land in the middle of the
JSON. So while it runs, file descriptor 1 points at stderr: forked workers inherit that, and
no write of any kind can reach the real stdout. A `sys.exit()` there becomes an error: it
would end sassview with no word (and exit 0).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator

from sassview.errors import InputError


@contextlib.contextmanager
def user_output_to_stderr() -> Iterator[None]:
    """Run the block with fd 1 (and `sys.stdout`) redirected to stderr; restore both after,
    whatever the user's code did to them."""
    _flush(sys.stdout)  # what sassview wrote before goes out first, to the real stdout
    try:
        saved = os.dup(1)
    except OSError:  # stdout closed: nothing to protect
        yield
        return
    stdout = sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield
    except SystemExit as exc:  # the user code's sys.exit(), not sassview's own way out
        raise InputError(
            f"the kernel file's code called sys.exit({exc.code!r}) while sassview ran it",
            "raise an exception where a kernel cannot be built; sys.exit() ends sassview",
        ) from None
    finally:
        _flush(sys.stdout)  # a stream the user code put there, while fd 1 is still stderr
        _flush_c_stdio()
        sys.stdout = stdout
        os.dup2(saved, 1)
        os.close(saved)


def _flush(stream: object) -> None:
    with contextlib.suppress(Exception):  # None, closed, or a user object without flush()
        stream.flush()  # type: ignore[attr-defined]


def _flush_c_stdio() -> None:
    """libc buffers printf output when stdout is a pipe, and would flush it at exit, after
    fd 1 is the real stdout again: flush every C stream now."""
    with contextlib.suppress(Exception):  # no libc to load (Windows): nothing buffered there
        ctypes.CDLL(None).fflush(None)
