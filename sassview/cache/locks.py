"""One build per cache key across processes: the second waits for the first and reads its entry.

pytest-xdist workers (or two terminals) that want the same kernel would each compile it: a miss
in one is a miss in the other until the first writes its entry. So a miss in `Store.get` takes
an exclusive file lock for its (kind, key) before it answers "build it": a second process
missing the same key waits on the lock, reads the cache again when it gets it, and finds the
entry the first one wrote. `Store.put` releases the lock.

Why it cannot deadlock: a process claims one key at a time — a new claim (the next lookup),
the end of a compile job, or `release()` ends the previous one — so a process waiting for a
lock holds none. The operating system releases the lock of a process that dies, and a waiter
gives up after $SASSVIEW_LOCK_TIMEOUT seconds (default: the compile timeout) and builds the
entry itself: at worst a kernel is compiled twice, never a hang.

Lock files live in sassview's layout, in the scratch directory `v<N>/scratch/locks`
(`cache clear` removes them with the other scratch directories).

POSIX record locks (`fcntl.lockf`), not filelock's `flock`: an flock belongs to the open file,
which a forked child shares, so a compile pool forked while this process held a claim would keep
the lock after the parent released it, and a forked waiter would wait on itself for ever. A
record lock belongs to the process: a child does not inherit it and the parent's release is
final. Threads of one process do not exclude each other, which is what the TUI's background
compile wants. Waiting polls every 50 ms (there is no timed blocking lockf).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from pathlib import Path

from sassview.cache.layout import enabled

log = logging.getLogger("sassview.cache")
LOCK_TIMEOUT_ENV = "SASSVIEW_LOCK_TIMEOUT"
_DEFAULT_TIMEOUT_S = 900.0  # toolchain/child.py's default compile deadline

_POLL_S = 0.05
_claims = threading.local()  # .held: (kind, key, fd) of this thread's claim, or None


def _forget_in_child() -> None:
    """A forked child holds none of its parent's record locks: drop the inherited claim (and
    its fd; closing it there leaves the parent's lock alone)."""
    held = getattr(_claims, "held", None)
    _claims.held = None
    if held is not None:
        with contextlib.suppress(OSError):
            os.close(held[2])


os.register_at_fork(after_in_child=_forget_in_child)


def _try_lock(path: Path, timeout: float) -> int | None:
    """An fd holding an exclusive record lock on `path`, or None after `timeout` seconds."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
        time.sleep(_POLL_S)


def _unlock(fd: int) -> None:
    try:
        fcntl.lockf(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _timeout() -> float:
    text = os.environ.get(LOCK_TIMEOUT_ENV) or os.environ.get("SASSVIEW_COMPILE_TIMEOUT")
    try:
        value = float(text) if text else _DEFAULT_TIMEOUT_S
    except ValueError:
        return _DEFAULT_TIMEOUT_S
    return value if value >= 0 else _DEFAULT_TIMEOUT_S


def _lock_file(kind: str, key: str) -> Path:
    from sassview.cache.scratch import scratch_dir

    # Without a usable cache root scratch_dir is private to this process: nothing to share.
    return scratch_dir("locks") / f"{kind}.{key}.lock"


def claim(kind: str, key: str) -> bool:
    """Take the build lock of (kind, key), waiting for another process that holds it; True
    when this process holds it now (it should build and put), False when it waited in vain
    or locking is off (it builds anyway: a compile twice, not a hang)."""
    release()
    if not enabled():
        return False
    path = _lock_file(kind, key)
    try:
        fd = _try_lock(path, _timeout())
    except OSError as exc:
        log.info("cache: cannot lock %s (%s); building without the lock", path, exc)
        return False
    if fd is None:
        log.info("cache: %s %s is still being built elsewhere; building it here too", kind, key)
        return False
    _claims.held = (kind, key, fd)
    return True


def holder_elsewhere(kind: str, key: str) -> bool:
    """Is (kind, key) being built by another process right now? (For tests and `doctor`.)"""
    held = getattr(_claims, "held", None)
    if held is not None and held[:2] == (kind, key):
        return False  # this process's own claim: probing it would release it (POSIX locks)
    fd = _try_lock(_lock_file(kind, key), 0)
    if fd is None:
        return True
    _unlock(fd)
    return False


def release(kind: str | None = None, key: str | None = None) -> None:
    """End this thread's claim (only if it is for (kind, key), when they are given)."""
    held = getattr(_claims, "held", None)
    if held is None or (kind is not None and held[:2] != (kind, key)):
        return
    _claims.held = None
    _unlock(held[2])
