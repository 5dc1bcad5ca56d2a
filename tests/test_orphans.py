"""Killed outright (kill -9) or hung up on (a closed terminal), sassview leaves no compile, no
tool and no sweep worker running behind it (issue 30, item 7); stopped or run with the cache
off, it leaves no file behind in TMPDIR (item 8).

The kill points are deterministic, as in test_process_safety: a fake nvdisasm records its pid
once it runs and then sleeps (`exec`, so the recorded pid is the sleeping process itself), the
NVRTC compile of an exponential template announces itself on stderr with -v. Every process
below sassview is listed (from /proc) before the signal; after it each must be gone within a
bounded wait.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.processes import (
    BOUND_S,
    SLOW_CU,
    VECADD,
    _alive,
    _announced,
    _env,
    _fake_nvdisasm,
    _finish,
    _recorded_pids,
    _start,
    _stderr_lines,
    _wait_for,
)

pytestmark = [
    pytest.mark.compile,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; prctl"),
]


def _sleeping_nvdisasm(tmp: Path, ready: Path) -> Path:
    """Records its pid in ready/ and becomes `sleep 600` (same pid)."""
    ready.mkdir()
    return _fake_nvdisasm(
        tmp, f'echo "$$" > {ready}/$$.tmp && mv {ready}/$$.tmp {ready}/$$\nexec sleep 600'
    )


def _descendants(root: int) -> set[int]:
    """Every live process below `root`, by the parent pids in /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    todo = [root]
    while todo:
        parent = todo.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in found]
        found.update(children)
        todo.extend(children)
    return found


def _all_gone(pids: set[int]) -> None:
    left = pids
    deadline = time.monotonic() + BOUND_S
    while left:
        assert time.monotonic() < deadline, f"still running after {BOUND_S} s: {sorted(left)}"
        time.sleep(0.05)
        left = {pid for pid in left if _alive(pid)}


def _until_compiling(proc: object) -> None:
    lines = _stderr_lines(proc)  # type: ignore[arg-type]
    seen: list[str] = []
    while not any("nvrtc: compiling" in line for line in seen):
        seen.append(lines.get(timeout=BOUND_S))


def test_kill_9_during_an_nvrtc_compile_takes_the_compile_with_it(tmp_path: Path) -> None:
    source = tmp_path / "slow.cu"
    source.write_text(SLOW_CU)
    proc = _start(["-v", "check", str(source)], _env(tmp_path))
    _until_compiling(proc)
    _wait_for(lambda: bool(_descendants(proc.pid)), "the compile's child to start")
    below = _descendants(proc.pid)
    proc.kill()
    proc.wait(timeout=BOUND_S)
    _all_gone(below)


def test_kill_9_during_a_sweep_takes_its_workers_and_their_tools_with_it(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    env = _env(tmp_path, SASSVIEW_NVDISASM=str(_sleeping_nvdisasm(tmp_path, ready)))
    kernel_py = tmp_path / "kernel.py"
    kernel_py.write_text(
        f"import sassview as sv\nsv.cuda_file({str(VECADD)!r}, variants={{'V': range(12)}})\n"
    )
    proc = _start(["sweep", str(kernel_py)], {**env, "SASSVIEW_JOBS": "2"})
    _wait_for(lambda: bool(_announced(ready)), "a worker to reach nvdisasm")
    below = _descendants(proc.pid) | set(_recorded_pids(ready))
    proc.kill()
    proc.wait(timeout=BOUND_S)
    _all_gone(below)


def test_a_hang_up_during_disassembly_ends_its_tools_and_removes_the_cubin(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    env = _env(tmp_path, SASSVIEW_NVDISASM=str(_sleeping_nvdisasm(tmp_path, ready)))
    proc = _start(["check", str(VECADD)], env)
    _wait_for(lambda: bool(_announced(ready)), "nvdisasm to start")
    below = _descendants(proc.pid) | set(_recorded_pids(ready))
    os.killpg(proc.pid, signal.SIGHUP)  # what a closed terminal sends its session
    _, err = _finish(proc)
    assert proc.returncode == 128 + signal.SIGHUP, err
    assert "Traceback" not in err
    _all_gone(below)
    assert not list((tmp_path / "tmpdir").iterdir())  # the temporary cubin is gone


def _sweep_file(tmp: Path, count: int) -> Path:
    kernel_py = tmp / "kernel.py"
    kernel_py.write_text(
        f"import sassview as sv\nsv.cuda_file({str(VECADD)!r}, variants={{'V': range({count})}})\n"
    )
    return kernel_py


def test_sigterm_to_the_group_during_a_sweep_leaves_no_cubin_in_tmpdir(tmp_path: Path) -> None:
    """The workers get the user's SIGTERM and then the pool's: the second must not cut short
    the cleanup the first began (the temporary cubins, 3 of 9 tries before)."""
    ready = tmp_path / "ready"
    env = _env(tmp_path, SASSVIEW_NVDISASM=str(_sleeping_nvdisasm(tmp_path, ready)))
    proc = _start(["sweep", str(_sweep_file(tmp_path, 40))], {**env, "SASSVIEW_JOBS": "2"})
    _wait_for(lambda: len(_announced(ready)) >= 2, "both workers to reach nvdisasm")
    below = _descendants(proc.pid) | set(_recorded_pids(ready))
    os.killpg(proc.pid, signal.SIGTERM)
    _, err = _finish(proc)
    assert proc.returncode == 128 + signal.SIGTERM, err
    _all_gone(below)
    assert not list((tmp_path / "tmpdir").iterdir())


def test_a_sweep_with_the_cache_off_leaves_no_scratch_directory(tmp_path: Path) -> None:
    env = _env(tmp_path, SASSVIEW_NO_CACHE="1", SASSVIEW_JOBS="2")
    args = [sys.executable, "-m", "sassview", "sweep", str(_sweep_file(tmp_path, 2))]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=BOUND_S)
    assert done.returncode == 0, done.stderr
    assert "V=1" in done.stdout
    assert not list((tmp_path / "tmpdir").iterdir())  # NVRTC's headers went with the run
