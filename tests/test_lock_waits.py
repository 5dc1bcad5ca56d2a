"""Build locks (sassview/cache/locks.py) through the real CLI: a wait on a stopped holder is said
on stderr with the holder's pid, and the lock files do not pile up: pruning and clearing remove
every one no process holds, and never a held one."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import run_sassview

from sassview.cache.layout import FORMAT_VERSION

pytestmark = pytest.mark.compile

VECADD = Path(__file__).parents[1] / "examples" / "vecadd.cu"

# Compiles vecadd.cu as `check` does, and stops itself (as Ctrl-Z would) inside the compile,
# holding the build lock of its cache key.
_STOPS_MID_COMPILE = f"""
import os, signal, sassview
from sassview.frontends import nvrtc_api
real = nvrtc_api.nvrtc_compile
def stopped(*args, **kwargs):
    print("holding", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)
    return real(*args, **kwargs)
nvrtc_api.nvrtc_compile = stopped
sassview.compile(path={str(VECADD)!r}, arch="sm_90a")
"""

# Takes one build lock and keeps it until killed.
_HOLDS_ONE = """
import sys, time
from sassview.cache import locks
assert locks.claim("cuda", "ab" * 32)
print("holding", flush=True)
time.sleep(600)
"""


Start = Callable[[str], "subprocess.Popen[str]"]


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Start]:
    started: list[subprocess.Popen[str]] = []

    def start(script: str) -> subprocess.Popen[str]:
        env = {**os.environ, "SASSVIEW_CACHE_DIR": str(tmp_path / "cache")}
        proc = subprocess.Popen(
            [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env
        )
        started.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def test_a_wait_on_a_stopped_holder_names_it(tmp_path: Path, holder: Start) -> None:
    proc = holder(_STOPS_MID_COMPILE)
    while not _stopped(proc.pid):  # it stops itself right after saying so
        time.sleep(0.05)
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "cache"), "SASSVIEW_LOCK_TIMEOUT": "2"}
    done = run_sassview("check", VECADD, env=env)
    assert done.returncode == 0, done.stderr  # built here once the wait ran out
    assert f"waiting for process {proc.pid} (stopped" in done.stderr, done.stderr
    assert "SASSVIEW_LOCK_TIMEOUT" in done.stderr


def _locks(cache: Path) -> list[str]:
    where = cache / f"v{FORMAT_VERSION}" / "scratch" / "locks"
    return sorted(p.name for p in where.glob("*.lock")) if where.is_dir() else []


@pytest.mark.parametrize("how", [["cache", "prune", "--max-mb", "1000"], ["cache", "clear"]])
def test_lock_files_are_pruned_but_a_held_one_stays(
    tmp_path: Path,
    holder: Start,
    how: list[str],
) -> None:
    cache = tmp_path / "cache"
    env = {"SASSVIEW_CACHE_DIR": str(cache)}
    assert run_sassview("check", VECADD, env=env).returncode == 0
    built = _locks(cache)
    assert built  # one per key built
    holder(_HOLDS_ONE)
    held = f"cuda.{'ab' * 32}.lock"
    (cache / f"v{FORMAT_VERSION}" / "scratch" / "locks" / "notes.txt").write_text("mine\n")
    done = run_sassview(*how, env=env)
    assert done.returncode == 0, done.stderr
    assert _locks(cache) == [held]
    assert (cache / f"v{FORMAT_VERSION}" / "scratch" / "locks" / "notes.txt").exists()
