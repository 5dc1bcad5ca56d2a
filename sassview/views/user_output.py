"""Keep user code's output off stdout, where `--json` writes sassview's document.

A kernel.py runs while it is imported and again while its kernels compile (Triton and the CuTe
DSL call into it, in forked workers too). Whatever it prints, by `print`, a rebound
`sys.stdout`, `os.write(1, ...)` or a C library's `printf`, would land in the middle of the
JSON; so may what it leaves behind: a daemon thread that keeps printing, an `atexit` handler,
a forked child. So the first time a command runs user code, sassview takes the real stdout for
itself: it keeps a private, non-inheritable duplicate of fd 1 for its report, and points fd 1
at stderr for the rest of the process. From then on no write of user code's, from any thread,
process or exit handler, can reach the report; `sys.stdout` routes writes from threads other
than the main one (sassview's report is written there) to stderr too. A `sys.exit()` or
`os._exit()` in the block becomes an error (frontends/user_code.py contains the rest).

Where sys.stdout is not the process's (click's CliRunner, a notebook) fd 1 is pointed at stderr
only while the block runs, as before: nothing outlives it there to guard against.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

from sassview.api import UserExit, end_forked_children, running_user_code
from sassview.errors import InputError

_report: list[_ReportStream] = []  # sassview's own stdout, once taken


class _ReportStream(io.TextIOWrapper):
    """The real stdout, on a private fd: the main thread's writes; any other thread's (one
    user code left running) go to stderr. A failed write is an OutputError, said once."""

    def write(self, s: str) -> int:
        if threading.current_thread() is not threading.main_thread():
            return sys.__stderr__.write(s) if sys.__stderr__ is not None else len(s)
        try:
            return super().write(s)
        except OSError as exc:
            raise _lost(exc) from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            raise _lost(exc) from None


def _lost(exc: OSError) -> InputError:
    """A report that could not be written: the reader went away, the disk is full, ..."""
    if isinstance(exc, BrokenPipeError):
        return InputError(
            "stdout was closed before the report was all written (a broken pipe)",
            "nothing is wrong if the reader meant to stop (| head); for the whole report,"
            " send it to a file (> report.txt)",
        )
    return InputError(
        f"cannot write the report to stdout: {exc.strerror or exc}",
        "send it somewhere it can be written (> report.txt on a disk with room)",
    )


@contextlib.contextmanager
def user_output_to_stderr() -> Iterator[None]:
    """Run the block with user code's output on stderr and its exits, threads and forks
    contained; restore sassview's stdout after, whatever the user's code did to it."""
    _flush(sys.stdout)  # what sassview wrote before goes out first, to the real stdout
    stdout = sys.stdout
    saved = None
    if not _report:  # someone else's stdout: redirect fd 1 only for the block
        try:
            saved = os.dup(1)
        except OSError:  # stdout closed: nothing to protect
            saved = None
        else:
            os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        with running_user_code():
            yield
    except (SystemExit, UserExit) as exc:  # the user code's exit, not sassview's own way out
        call = "sys.exit" if isinstance(exc, SystemExit) else "os._exit"
        raise InputError(
            f"the kernel file's code called {call}({exc.code!r}) while sassview ran it",
            "raise an exception where a kernel cannot be built; an exit ends sassview",
        ) from None
    finally:
        _flush(sys.stdout)  # a stream the user code put there, while fd 1 is still stderr
        _flush_c_stdio()
        sys.stdout = stdout
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _is_process_stdout(stream: Any) -> bool:  # Any: sys.stdout may be None
    """Is `stream` the process's own stdout, on fd 1 (not a test runner's stand-in)?"""
    try:
        fileno = getattr(stream, "fileno", None)
        return stream is sys.__stdout__ and fileno is not None and fileno() == 1
    except (AttributeError, OSError, ValueError):
        return False


def take_stdout() -> None:
    """sys.stdout becomes a stream on a private duplicate of fd 1 (os.dup's fds are not
    inherited by the tools sassview runs); fd 1 then points at stderr for good. Raises
    InputError when there is no stdout to write the report to."""
    old = sys.stdout
    if _report or not _is_process_stdout(old):
        if old is None:  # Python found fd 1 closed at start
            raise _closed()
        return
    try:
        private = os.dup(1)
    except OSError:
        raise _closed() from None
    stream = _ReportStream(
        open(private, "wb", closefd=True),  # noqa: SIM115 - closed by finish_user_output
        encoding=old.encoding,
        errors=old.errors,
        line_buffering=bool(old.line_buffering),
    )
    os.dup2(2, 1)
    sys.stdout = stream
    _report.append(stream)


def _closed() -> InputError:
    return InputError(
        "stdout is closed: sassview writes its report there",
        "give it one: a file (> report.txt), or > /dev/null to discard the report",
    )


def finish_user_output() -> None:
    """At the end of a command: sassview's report is flushed and its fd closed (a reader sees
    the end now, not when a left-over process does); stdout is stderr for whatever runs after
    (atexit handlers); the processes user code forked are killed."""
    end_forked_children()
    if not _report:
        return
    stream = _report.pop()
    sys.stdout = sys.stderr
    try:
        stream.flush()  # an OutputError for the caller to say
    finally:
        with contextlib.suppress(OSError):  # the flush failed: nothing more can be written
            stream.close()


def _flush(stream: object) -> None:
    with contextlib.suppress(Exception):  # None, closed, or a user object without flush()
        stream.flush()  # type: ignore[attr-defined]


def _flush_c_stdio() -> None:
    """libc buffers printf output when stdout is a pipe, and would flush it at exit, after
    fd 1 is the real stdout again: flush every C stream now."""
    with contextlib.suppress(Exception):  # no libc to load (Windows): nothing buffered there
        ctypes.CDLL(None).fflush(None)
