"""Run an external tool with an argument list (never a shell) and turn failure into ToolFailed."""

from __future__ import annotations

import subprocess
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


def start_tool(command: Sequence[str]) -> subprocess.Popen[bytes]:
    """Start a tool without waiting, so two disassemblies of one cubin can run side by side."""
    return subprocess.Popen(
        [str(p) for p in command], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def finish_tool(
    proc: subprocess.Popen[bytes], *, what: str, hint: str = "", timeout: float = DEFAULT_TIMEOUT_S
) -> str:
    """Wait for a process from start_tool; same contract as run_tool."""
    argv = [str(a) for a in proc.args] if isinstance(proc.args, list) else [str(proc.args)]
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        proc.kill()
        proc.communicate()
        raise ToolFailed(f"{what}: gave no answer in {timeout:.0f} s", argv, "", hint) from exc
    if proc.returncode != 0:
        raise ToolFailed(
            f"{what} failed (exit {proc.returncode})",
            argv,
            (err or out).decode(errors="replace"),
            hint,
        )
    return out.decode(errors="replace")
