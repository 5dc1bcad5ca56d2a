"""What the process-safety tests share: a slow kernel, fake and hanging nvdisasm scripts, a
sassview started in its own session, and how to wait for it and read what it left."""

from __future__ import annotations

import os
import queue
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[2]
VECADD = ROOT / "examples" / "vecadd.cu"
SLOW_CU = """\
template <int N, unsigned long long M> struct T {
  static constexpr unsigned long long v = T<N - 1, 2 * M>::v + T<N - 1, 2 * M + 1>::v;
};
template <unsigned long long M> struct T<0, M> { static constexpr unsigned long long v = M; };
__global__ void k(unsigned long long* out) { out[0] = T<18, 1>::v; }
"""
BOUND_S = 120  # no wait in this file is longer


def _real_version_line() -> str:
    from sassview.toolchain.locate import nvdisasm

    done = subprocess.run([nvdisasm(), "--version"], capture_output=True, text=True, timeout=30)
    return next(line for line in done.stdout.splitlines() if "release" in line)


def _fake_nvdisasm(tmp: Path, body: str) -> Path:
    """A script answering --version like the real tool (so cache keys match) and running
    `body` for anything else."""
    path = tmp / "fake-nvdisasm"
    version = _real_version_line()
    path.write_text(
        f"#!/bin/sh\nif [ \"$1\" = --version ]; then echo '{version}'; exit 0; fi\n{body}\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _hanging_nvdisasm(tmp: Path, ready: Path) -> Path:
    """Starts a child (so a whole process group must be ended), records "its pid, the
    child's, its parent's" in ready/, and waits forever."""
    ready.mkdir()
    return _fake_nvdisasm(
        tmp,
        f'sleep 600 &\necho "$$ $! $PPID" > {ready}/$$.tmp && mv {ready}/$$.tmp {ready}/$$\nwait',
    )


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    scratch = tmp / "tmpdir"
    scratch.mkdir(exist_ok=True)
    return {
        **os.environ,
        "SASSVIEW_CACHE_DIR": str(tmp / "cache"),
        "TMPDIR": str(scratch),
        **extra,
    }


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """sassview in a session of its own, so the test can signal it as a terminal would."""
    return subprocess.Popen(
        [sys.executable, "-m", "sassview", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """True for a process that still runs (a zombie waiting for its reaper does not)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


def _session(sid: int) -> list[int]:
    """Every live process of session `sid`: what sassview started without a session of its own."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def _finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("sassview did not stop within 60 s of the signal") from None


def _announced(ready: Path) -> list[Path]:
    return [f for f in ready.iterdir() if f.name.isdigit()]  # not the half-written *.tmp


def _recorded_pids(ready: Path) -> list[int]:
    return [int(p) for f in _announced(ready) for p in f.read_text().split()]


def _stderr_lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    stream = proc.stderr

    def pump() -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines
