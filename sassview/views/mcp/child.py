"""Run sassview in a child process with a deadline: the one way every MCP tool computes.

A child, not a thread, so that a compile that hangs, a kernel.py that never returns or a crash
in a native library ends with its call and never with the server: at the deadline the child's
whole process group (nvcc, ptxas, the NVRTC child) is killed. Arguments are a list handed to
`exec` directly: no shell ever sees them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from sassview.errors import SassviewError, ToolchainError

_LIVE: set[int] = set()  # process groups still running: killed if the server goes first


@dataclass(frozen=True)
class Done:
    """What a child left: its exit status and both streams."""

    returncode: int
    stdout: str
    stderr: str


def run_sassview(
    args: Sequence[str],
    *,
    timeout: float,
    cwd: str | None = None,
    stdin: str | None = None,
    module: str = "sassview",
) -> Done:
    """`python -m MODULE ARGS` in a new session; killed (the group) at `timeout` seconds."""
    command = [sys.executable, "-m", module, *args]
    proc = subprocess.Popen(  # noqa: S603 - a list, no shell
        command,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the deadline ends all of it
    )
    _LIVE.add(proc.pid)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        proc.communicate()
        raise ToolchainError(
            f"{_shown(module, args)} took longer than {timeout:g} s and was stopped",
            "a bigger --timeout for `sassview mcp` (a cold nvcc compile of a large file can "
            "take minutes), or a smaller file or fewer architectures",
        ) from None
    finally:
        _LIVE.discard(proc.pid)
        if proc.poll() is None:  # cancelled while waiting: nothing outlives the call
            _kill_group(proc.pid)
    return Done(proc.returncode, out, err)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def kill_all() -> None:
    """End every child still running (the server is stopping)."""
    for pid in list(_LIVE):
        _kill_group(pid)


def _shown(module: str, args: Sequence[str]) -> str:
    """`sassview check`, or the worker's module: what the message names as stopped."""
    return f"sassview {args[0]}" if module == "sassview" and args else module


def error_of(done: Done, what: str) -> SassviewError:
    """The child's own `error: ...` / `hint: ...` lines as one error (exit 2), else its tail."""
    message, hint, detail = "", "", []
    for line in done.stderr.splitlines():
        if line.startswith("error: ") and not message:
            message = line[len("error: ") :]
        elif line.startswith("hint: "):
            hint = line[len("hint: ") :]
        elif message and not hint:
            detail.append(line)
    if not message:
        tail = done.stderr.strip().splitlines()[-5:]
        message = f"{what} failed (exit {done.returncode})" + (
            ": " + " / ".join(tail) if tail else ""
        )
    return SassviewError(message, hint, detail="\n".join(detail[-40:]))
