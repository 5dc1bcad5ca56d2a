"""Run an in-process library call (an NVRTC compile, an nvJitLink assembly) in a forked child
with a deadline, so it can be interrupted and bounded like an external tool.

A library call holds the interpreter in C: Python cannot run its Ctrl-C handler until the call
returns, and a thread running it cannot be stopped. A forked child can: the parent waits on a
pipe, so Ctrl-C, SIGTERM or the deadline reach it at once and it kills the child. Fork (not
spawn) because the child must inherit the loaded library and the caller's arguments as they
are. The cost (benchmarks/bench_child.py): the fork and exit alone ~2 ms, but whatever the
library warms up in a call is lost with the child, so a small compile repeated in one process
takes 1.25-1.6x as long (+25-55 ms on a loaded 2-core machine); a cold one-shot `sassview check`
pays the warm-up either way. The child sends back its result, or the SassviewError it raised,
pickled. Where
fork is unavailable (Windows) the call runs in-process, unbounded, as before.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import select
import signal
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TypeVar, cast

from sassview.errors import SassviewError, ToolchainError
from sassview.toolchain import env_seconds, lifeline
from sassview.toolchain.run import STOPS, seconds_from_env

T = TypeVar("T")

COMPILE_TIMEOUT_ENV = env_seconds.COMPILE_TIMEOUT_ENV
# A compile may take this long: a large CUTLASS kernel takes minutes, a hang takes forever.
DEFAULT_COMPILE_TIMEOUT_S = 900.0
# The child ends itself this long after the parent's deadline (the parent kills it at its own).
_OWN_DEADLINE_GRACE_S = 5


def compile_timeout() -> float:
    """Seconds one compile may take: $SASSVIEW_COMPILE_TIMEOUT, else 15 minutes."""
    return seconds_from_env(COMPILE_TIMEOUT_ENV) or DEFAULT_COMPILE_TIMEOUT_S


def call_in_child(fn: Callable[..., T], *args: Any, what: str, timeout: float) -> T:
    """`fn(*args)` computed in a forked child; its SassviewError is raised here. Raises
    ToolchainError when the child overruns `timeout` seconds or dies; on any exception here
    (KeyboardInterrupt included) the child is killed before it propagates."""
    if not hasattr(os, "fork"):
        return fn(*args)
    lifeline.available()  # prctl looked up here: the child only calls it
    parent = os.getpid()
    read_end, write_end = os.pipe()
    # Ctrl-C or SIGTERM between the fork and the `try` would leave the child running: both
    # wait until each side is ready for them (the parent inside the `try`, the child with
    # the default handlers back).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:  # pragma: no cover - the child; its coverage is the parent's result
        os.close(read_end)
        _serve(write_end, fn, args, mask, _Deadline(parent, timeout))
    os.close(write_end)
    status = None
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        data = _read_until_eof(read_end, time.monotonic() + timeout)
        if data is not None:  # the child closed its end: it has ended or is about to
            status = os.waitpid(pid, 0)[1]
    finally:
        os.close(read_end)
        if status is None:  # overran, or we are being interrupted: it must not outlive us
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if data is None or status is None:
        raise ToolchainError(
            f"{what} gave no answer in {timeout:.0f} s",
            f"if it is only slow, set {COMPILE_TIMEOUT_ENV}=SECONDS to wait longer",
        )
    return cast(T, _result(data, status, what))


class _Deadline(NamedTuple):
    parent: int  # the pid that forked the child
    seconds: float  # the parent's timeout


def _serve(
    write_end: int,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    mask: Iterable[int],
    deadline: _Deadline,
) -> None:
    """In the child: compute, send, exit without running the parent's cleanup (atexit,
    buffered output, `finally` blocks further up the stack)."""
    for stop in STOPS:  # Ctrl-C at the terminal ends it at once
        signal.signal(stop, signal.SIG_DFL)
    # Killed with its parent (kill -9, a closed terminal); and, should the parent's wait ever
    # miss it, at a deadline of its own, a little after the parent's: SIGALRM's default action
    # ends the process even while the library call holds the interpreter.
    lifeline.die_with_parent(signal.SIGKILL, deadline.parent)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(math.ceil(deadline.seconds) + _OWN_DEADLINE_GRACE_S)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    try:
        try:
            payload = pickle.dumps(("ok", fn(*args)))
        except SassviewError as exc:  # its attributes travel, not its __init__ arguments
            payload = pickle.dumps(("error", type(exc), exc.args, vars(exc)))
        except BaseException as exc:  # a bug: sent as text, raised as one in the parent
            text = "".join(traceback.format_exception(exc))
            payload = pickle.dumps(("bug", type(exc).__name__, str(exc), text))
        with os.fdopen(write_end, "wb") as out:
            out.write(payload)
    finally:
        os._exit(0)


def _read_until_eof(fd: int, deadline: float) -> bytes | None:
    """Everything the child writes, or None at the deadline."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _result(data: bytes, status: int, what: str) -> Any:
    try:
        message = pickle.loads(data) if data else None
    except Exception:  # cut short: the child died while it wrote
        message = None
    if message is None:
        if os.WIFSIGNALED(status):
            why = f"{what} crashed ({signal.Signals(os.WTERMSIG(status)).name})"
        else:
            why = f"{what} ended without an answer (exit {os.waitstatus_to_exitcode(status)})"
        raise ToolchainError(why, "out of memory? a crash of the library is worth reporting")
    if message[0] == "ok":
        return message[1]
    if message[0] == "error":
        _, kind, args, attributes = message
        exc = kind.__new__(kind)
        Exception.__init__(exc, *args)
        exc.__dict__.update(attributes)
        raise exc
    _, name, text, trace = message
    raise ToolchainError(f"{what} raised {name}: {text}", "this is a bug in sassview", detail=trace)
