"""Run a kernel file's code where what it leaves behind cannot end, hold or outlive sassview.

A kernel.py runs while it is imported and again while its kernels compile (a CuTe DSL host
function, a Triton heuristic). It is a user's script, written to be run on its own, so it may
call `os._exit()`, start threads, fork, or register `atexit` handlers. Inside
`running_user_code()`:

- `os._exit(code)` raises `UserExit` (a BaseException, so a bare `except Exception` in the
  user's code does not swallow it) in the process that entered the block, from any thread
  (a thread's is raised again when the block ends); the caller says which file did it. In
  any other process (a worker that multiprocessing forked) it exits.
- A thread started there is made a daemon before it starts: the interpreter does not wait for
  it at exit, so a thread that never ends does not keep sassview alive.
- A process the user's code forks (os.fork, from code outside sassview) is remembered, and
  `end_forked_children()` kills those still running when the command ends. A forked child
  that returns from the user's code into sassview's ends there, before it can go on to print
  a second report.

What it cannot contain: a C library's `_exit()` or `fork()` (ctypes), which Python never
sees; a thread started with `_thread.start_new_thread` (always a daemon anyway). `atexit`
handlers are left to run (they may clean up); views/user_output.py keeps their output, and
every other write of user code, off the stdout sassview writes its report to.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_SASSVIEW = str(Path(__file__).resolve().parents[1])
_children: list[int] = []  # forked by user code, not yet known to have ended
_depth = [0]  # nested blocks (an import inside a command's block) patch once
_exits: list[UserExit] = []  # os._exit calls in the block's threads, not yet raised


class UserExit(BaseException):
    """The user's code called os._exit(code)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextlib.contextmanager
def running_user_code() -> Iterator[None]:
    """Run the block with os._exit, os.fork and Thread.start contained (module docstring)."""
    pid = os.getpid()
    try:
        with _patched(pid) if _depth[0] == 0 else contextlib.nullcontext():
            _depth[0] += 1
            try:
                yield
            finally:
                _depth[0] -= 1
            if _exits:  # another thread called it: the process would have ended there
                first = _exits[0]
                _exits.clear()
                raise first
    finally:
        if os.getpid() != pid:  # a child forked in the user's code came back to sassview's
            _flush_and_exit()


@contextlib.contextmanager
def _patched(pid: int) -> Iterator[None]:
    real_exit, real_fork, real_start = os._exit, os.fork, threading.Thread.start
    real_hook = threading.excepthook

    def contained_exit(code: int) -> None:
        if os.getpid() != pid:
            real_exit(code)
        _exits.append(UserExit(code))
        raise _exits[-1]

    def thread_hook(args: Any) -> None:  # a thread's os._exit is said by the block, once
        if not isinstance(args.exc_value, UserExit):
            real_hook(args)

    def remembered_fork() -> int:
        child = real_fork()
        if child and not _from_sassview(sys._getframe(1)):
            _children.append(child)
        return child

    def daemon_start(self: threading.Thread) -> None:
        with contextlib.suppress(RuntimeError):  # started already: start() itself says so
            self.daemon = True
        real_start(self)

    os._exit = contained_exit  # type: ignore[assignment]
    os.fork = remembered_fork
    threading.Thread.start = daemon_start  # type: ignore[method-assign]
    threading.excepthook = thread_hook
    try:
        yield
    finally:
        os._exit, os.fork = real_exit, real_fork
        threading.Thread.start = real_start  # type: ignore[method-assign]
        threading.excepthook = real_hook
        _exits.clear()


def _from_sassview(frame: Any) -> bool:
    """A fork in sassview's own code (toolchain/child.py) is sassview's to wait for."""
    return bool(frame is not None and frame.f_code.co_filename.startswith(_SASSVIEW))


def _flush_and_exit() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def end_forked_children() -> int:
    """Kill the processes user code forked that are still running; how many there were.
    Only a child not yet reaped is signalled: its pid cannot have been reused."""
    ended = 0
    while _children:
        pid = _children.pop()
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped already (by multiprocessing): not ours to signal
            continue
        if done:
            continue
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        ended += 1
    return ended
