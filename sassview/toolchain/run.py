"""Run an external tool with an argument list (never a shell) and turn failure into ToolFailed."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence

from sassview.errors import ToolFailed

DEFAULT_TIMEOUT_S = 600.0


def run_tool(
    command: Sequence[str],
    *,
    what: str,
    hint: str = "",
    timeout: float = DEFAULT_TIMEOUT_S,
    cwd: str | None = None,
) -> str:
    """Run `command`, return its stdout; raise ToolFailed with the command and its stderr."""
    argv = [str(part) for part in command]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False, cwd=cwd)
    except FileNotFoundError as exc:
        raise ToolFailed(f"{what}: the tool is missing", argv, str(exc), hint) from exc
    except subprocess.TimeoutExpired as exc:
        raise ToolFailed(f"{what}: gave no answer in {timeout:.0f} s", argv, "", hint) from exc
    except OSError as exc:
        raise ToolFailed(f"{what}: could not be started", argv, str(exc), hint) from exc
    if done.returncode != 0:
        output = (done.stderr or done.stdout).decode(errors="replace")
        raise ToolFailed(f"{what} failed (exit {done.returncode})", argv, output, hint)
    return done.stdout.decode(errors="replace")


class RunningTool:
    """A tool started by `start_tool`. Its output goes to unnamed temporary files, not pipes,
    so it never stalls on a full pipe while the caller does other work before `finish_tool`."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        # They outlive this call by design; close() (via finish_tool) releases them.
        self._out = tempfile.TemporaryFile()  # noqa: SIM115
        self._err = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(argv, stdout=self._out, stderr=self._err)
        except OSError:
            self.close()
            raise

    def outputs(self) -> tuple[bytes, bytes]:
        self._out.seek(0)
        self._err.seek(0)
        return self._out.read(), self._err.read()

    def close(self) -> None:
        """Stop the tool if it still runs and drop its output; safe to call twice."""
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        self._out.close()
        self._err.close()


def start_tool(command: Sequence[str], *, what: str, hint: str = "") -> RunningTool:
    """Start a tool without waiting, so work can overlap with it (two disassemblies of one
    cubin side by side, the PTX parsed meanwhile); `finish_tool` waits and checks it."""
    argv = [str(p) for p in command]
    try:
        return RunningTool(argv)
    except FileNotFoundError as exc:
        raise ToolFailed(f"{what}: the tool is missing", argv, str(exc), hint) from exc
    except OSError as exc:
        raise ToolFailed(f"{what}: could not be started", argv, str(exc), hint) from exc


def finish_tool(
    running: RunningTool, *, what: str, hint: str = "", timeout: float = DEFAULT_TIMEOUT_S
) -> str:
    """Wait for a tool from start_tool and release it; same contract as run_tool."""
    try:
        try:
            running.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise ToolFailed(
                f"{what}: gave no answer in {timeout:.0f} s", running.argv, "", hint
            ) from exc
        out, err = running.outputs()
    finally:
        running.close()
    if running.proc.returncode != 0:
        raise ToolFailed(
            f"{what} failed (exit {running.proc.returncode})",
            running.argv,
            (err or out).decode(errors="replace"),
            hint,
        )
    return out.decode(errors="replace")
