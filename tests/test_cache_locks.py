"""One build per cache key across processes (sassview/cache/locks.py), and compile pools sized
for pytest-xdist workers (frontends/jobs.pool_size). Processes, not threads: the locks are the
operating system's per-process locks. Every step waits on an event the other side sets, never
on a clock."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from sassview import cache
from sassview.cache import locks

KEY = "ab" * 32
# A real cubin: the store checks a cubin's ELF frame on every read (sassview/cache/shape.py).
CUBIN = (Path(__file__).parent / "corpus" / "vecadd" / "sm_90a" / "kernel.cubin").read_bytes()
fork = multiprocessing.get_context("fork")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SASSVIEW_NO_CACHE", raising=False)
    yield
    locks.release()


def _probe(result: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    result.put(locks.holder_elsewhere("cuda", KEY))


def _run(target, *args) -> object:  # type: ignore[no-untyped-def]
    out = fork.Queue()
    child = fork.Process(target=target, args=(*args, out))
    child.start()
    value = out.get(timeout=120)
    child.join(timeout=120)
    return value


def test_a_miss_claims_the_key_until_the_entry_is_put() -> None:
    store = cache.Store("cuda")
    assert store.get(KEY) is None  # a miss: this process now builds it
    assert _run(_probe) is True  # another process sees the build going on
    store.put(KEY, {"kernel.cubin": CUBIN})
    assert _run(_probe) is False


def _wait_and_read(started, result) -> None:  # type: ignore[no-untyped-def]
    cache.STATS.update(hits=0, builds=0, waited=0)  # forked: the parent's counts came along
    started.set()
    entry = cache.Store("cuda").get(KEY)
    result.put((entry.read_bytes("kernel.cubin") if entry else None, dict(cache.STATS)))


def test_a_second_process_waits_for_the_build_and_reads_its_entry() -> None:
    store = cache.Store("cuda")
    assert store.get(KEY) is None
    started, out = fork.Event(), fork.Queue()
    child = fork.Process(target=_wait_and_read, args=(started, out))
    child.start()
    assert started.wait(timeout=120)
    store.put(KEY, {"kernel.cubin": CUBIN})
    data, stats = out.get(timeout=120)
    child.join(timeout=120)
    # Whether it got to the lock before or after the put, it read the entry and built nothing.
    assert data == CUBIN and stats["builds"] == 0 and stats["hits"] == 1


def test_a_failed_build_ends_its_claim() -> None:
    assert cache.Store("cuda").get(KEY) is None
    cache.release_claim()  # what compile_job and api.compile do whatever the outcome
    assert _run(_probe) is False


def _claim_and_die(result) -> None:  # type: ignore[no-untyped-def]
    result.put(cache.Store("cuda").get(KEY) is None)
    result.close()
    result.join_thread()  # the answer is in the pipe before the process vanishes
    os._exit(0)  # no put, no release: the operating system ends the lock


def test_a_holder_that_dies_leaves_no_lock_behind() -> None:
    assert _run(_claim_and_die) is True
    assert not locks.holder_elsewhere("cuda", KEY)


def test_a_waiter_gives_up_after_the_lock_timeout_and_builds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert cache.Store("cuda").get(KEY) is None  # held here, never put

    def _impatient(result) -> None:  # type: ignore[no-untyped-def]
        os.environ["SASSVIEW_LOCK_TIMEOUT"] = "0"
        result.put((cache.Store("cuda").get(KEY), locks.claim("cuda", KEY)))

    entry, claimed = _run(_impatient)
    assert entry is None and claimed is False  # builds it itself: a compile twice, no hang


def test_small_kinds_take_no_lock() -> None:
    assert cache.Store("cuda-route").get(KEY) is None
    assert not locks.holder_elsewhere("cuda-route", KEY)


def test_the_lock_files_are_sassviews_scratch_and_clear_removes_them() -> None:
    store = cache.Store("cuda")
    store.get(KEY)
    store.put(KEY, {"x": "1"})
    locks_dir = cache.cache_root() / f"v{cache.FORMAT_VERSION}" / "scratch" / "locks"
    assert list(locks_dir.glob("*.lock"))
    done = cache.clear()  # each lock file no process holds (tests/test_lock_waits.py: held)
    assert done.entries == 1 and not locks_dir.exists()


@pytest.mark.parametrize(
    ("env", "cpus", "expected"),
    [({}, 8, 8), ({"PYTEST_XDIST_WORKER_COUNT": "2"}, 8, 4),
     ({"PYTEST_XDIST_WORKER_COUNT": "16"}, 8, 1), ({"SASSVIEW_JOBS": "3"}, 8, 3),
     ({"PYTEST_XDIST_WORKER_COUNT": "2", "SASSVIEW_JOBS": "5"}, 8, 5)],
)  # fmt: skip
def test_each_xdist_worker_takes_its_share_of_the_cpus(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], cpus: int, expected: int
) -> None:
    from sassview.frontends import jobs

    for name in ("PYTEST_XDIST_WORKER_COUNT", "SASSVIEW_JOBS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    assert jobs.pool_size() == expected
