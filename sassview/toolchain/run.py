"""Run an external tool with an argument list (never a shell), bounded in time and in output,
and turn failure into ToolFailed.

Each tool runs in a process group of its own and is ended with its whole group, so a wrapper
script's children go with it. A Ctrl-C at the terminal therefore reaches sassview and not its
tools: the caller's `finally` (RunningTool.close) ends them, and the CLI turns SIGTERM into the
same unwinding. Nothing a tool prints goes through a pipe: output lands in unnamed temporary
files, so a tool never stalls on a full pipe and its size can be watched while it runs.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence

from sassview.errors import ToolFailed
from sassview.toolchain import lifeline
from sassview.toolchain.env_seconds import TOOL_TIMEOUT_ENV
from sassview.toolchain.env_seconds import seconds_from_env as seconds_from_env

TIMEOUT_ENV = TOOL_TIMEOUT_ENV
# A tool run may take this long, plus so much per MB of its input (nvdisasm reads a 27 KB cubin
# in 0.3 s, nearly all of it start-up: these bounds are for hangs, not for slow machines).
BASE_TIMEOUT_S = 60.0
TIMEOUT_PER_MB_S = 30.0
# `tool --version` answers in milliseconds; a probe that takes longer is a hang.
VERSION_TIMEOUT_S = 5.0
# What a tool may print before it is stopped (a listing is ~2x its cubin, 100x is far beyond).
BASE_OUTPUT_BYTES = 16_000_000
OUTPUT_PER_INPUT_BYTE = 100
# How often a running tool's output size is looked at. Its end is an event (a pidfd that
# becomes readable), not a poll: a tool that ends wakes the wait at once.
_SIZE_CHECK_S = 0.1
_POLL_S = 0.05  # where there is no pidfd (not Linux): how often its end is polled for


def tool_timeout(input_bytes: int = 0) -> float:
    """Seconds a tool run on `input_bytes` of input may take: $SASSVIEW_TOOL_TIMEOUT when set,
    else a minute plus half a minute per MB."""
    override = seconds_from_env(TIMEOUT_ENV)
    if override is not None:
        return override
    return BASE_TIMEOUT_S + TIMEOUT_PER_MB_S * input_bytes / 1e6


def probe_timeout() -> float:
    """Seconds a `--version` probe may take; $SASSVIEW_TOOL_TIMEOUT can only shorten it."""
    override = seconds_from_env(TIMEOUT_ENV)
    return min(VERSION_TIMEOUT_S, override) if override is not None else VERSION_TIMEOUT_S


def output_limit(input_bytes: int = 0) -> int:
    """Bytes a tool run on `input_bytes` of input may print before it is stopped."""
    return BASE_OUTPUT_BYTES + OUTPUT_PER_INPUT_BYTE * input_bytes


class RunningTool:
    """A tool started by `start_tool`; `finish_tool` waits for it, `close` ends it."""

    def __init__(self, argv: list[str], cwd: str | None = None) -> None:
        self.argv = argv
        # They outlive this call by design; close() (via finish_tool) releases them.
        self._out = tempfile.TemporaryFile()  # noqa: SIM115
        self._err = tempfile.TemporaryFile()  # noqa: SIM115
        self._exited: int | None = None  # a pidfd: readable once the tool has ended
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=self._out,
                stderr=self._err,
                cwd=cwd,
                start_new_session=True,  # its own process group: ended as one, spared Ctrl-C
                preexec_fn=lifeline.preexec(signal.SIGKILL),  # and ended if sassview is killed
            )
        except OSError:
            self.close()
            raise
        with contextlib.suppress(AttributeError, OSError):  # no pidfd: ended_within() polls
            self._exited = os.pidfd_open(self.proc.pid)

    def printed(self) -> int:
        """Bytes written so far to stdout and stderr."""
        return os.fstat(self._out.fileno()).st_size + os.fstat(self._err.fileno()).st_size

    def wait(self, timeout: float, max_output: int) -> tuple[str, str] | None:
        """Wait for the tool to end; None when it did, else why it was given up on and what
        to do about it."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            ended = self.ended_within(max(0.0, min(_SIZE_CHECK_S, left)))
            if self.printed() > max_output:  # checked after the end too: never read it all
                return (
                    f"printed more than {max_output / 1e6:.0f} MB",
                    "no listing is this large for this input: is the tool the one it should be?",
                )
            if ended:
                return None
            if left <= 0:
                return (
                    f"gave no answer in {timeout:.0f} s",
                    f"if it is only slow, set {TIMEOUT_ENV}=SECONDS to wait longer",
                )

    def ended_within(self, seconds: float) -> bool:
        """Wait up to `seconds` for the tool to end (and reap it); True when it has. Its end
        wakes this at once (a pidfd); where there is none, it is polled every 50 ms."""
        if self._exited is None:
            try:
                self.proc.wait(timeout=min(_POLL_S, seconds))
            except subprocess.TimeoutExpired:
                return False
            return True
        ready, _, _ = select.select([self._exited], [], [], seconds)
        if not ready:
            return False
        self.proc.wait()  # it has ended: this returns at once
        return True

    def outputs(self) -> tuple[bytes, bytes]:
        self._out.seek(0)
        self._err.seek(0)
        return self._out.read(), self._err.read()

    def close(self) -> None:
        """End the tool's whole process group (what a wrapper script left running too) and
        drop its output; safe to call twice."""
        proc = getattr(self, "proc", None)
        if proc is not None:
            with contextlib.suppress(OSError):  # ESRCH: nothing of it is left
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if self._exited is not None:
            os.close(self._exited)
            self._exited = None
        self._out.close()
        self._err.close()


# What stops sassview with its cleanup: Ctrl-C, SIGTERM, and SIGHUP (its terminal closed).
STOPS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back for the block (this thread; they arrive when it ends), so
    a process started in it is always recorded where a `finally` will end it."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def start_tool(
    command: Sequence[str],
    *,
    what: str,
    into: list[RunningTool],
    hint: str = "",
    cwd: str | None = None,
) -> RunningTool:
    """Start a tool without waiting, so work can overlap with it (two disassemblies of one
    cubin side by side, the PTX parsed meanwhile); `finish_tool` waits and checks it.

    It is appended to `into` before a Ctrl-C or SIGTERM can interrupt: the caller's
    `finally` closes everything in `into`, and nothing started escapes it. (The tool inherits
    the held mask: it ignores both signals, and is ended with SIGKILL of its group.)"""
    argv = [str(p) for p in command]
    try:
        with stops_held():
            running = RunningTool(argv, cwd)
            into.append(running)
    except FileNotFoundError as exc:
        raise ToolFailed(f"{what}: the tool is missing", argv, str(exc), hint) from exc
    except OSError as exc:
        raise ToolFailed(f"{what}: could not be started", argv, str(exc), hint) from exc
    return running


def finish_tool(
    running: RunningTool,
    *,
    what: str,
    hint: str = "",
    timeout: float | None = None,
    max_output: int | None = None,
) -> str:
    """Wait for a tool from start_tool (at most `timeout` s, default `tool_timeout()`; at most
    `max_output` bytes printed, default `output_limit()`), end it and release it; return its
    stdout, or raise ToolFailed with the command and the tool's own text."""
    limit = tool_timeout() if timeout is None else timeout
    try:
        gave_up = running.wait(limit, output_limit() if max_output is None else max_output)
        if gave_up is not None:  # the caller's hint is about failures the tool reports
            why, what_to_do = gave_up
            raise ToolFailed(f"{what}: {why}", running.argv, "", what_to_do)
        out, err = running.outputs()
    finally:
        running.close()
    if running.proc.returncode != 0:
        raise ToolFailed(
            f"{what} failed ({_ended(running.proc.returncode)})",
            running.argv,
            (err or out).decode(errors="replace"),
            hint,
        )
    return out.decode(errors="replace")


def run_tool(
    command: Sequence[str],
    *,
    what: str,
    hint: str = "",
    timeout: float | None = None,
    max_output: int | None = None,
    cwd: str | None = None,
) -> str:
    """Run `command` to its end and return its stdout; see finish_tool for the bounds."""
    started: list[RunningTool] = []
    try:
        running = start_tool(command, what=what, into=started, hint=hint, cwd=cwd)
        return finish_tool(running, what=what, hint=hint, timeout=timeout, max_output=max_output)
    finally:
        for tool in started:
            tool.close()


def _ended(returncode: int) -> str:
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-returncode).name}"
    return f"exit {returncode}"
