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

Lock files live in sassview's layout, in the scratch directory `v<N>/scratch/locks`, each
holding its holder's pid (a waiter says on stderr whom it waits for: at once when that process
is stopped, as by Ctrl-Z, else after SAY_AFTER_S). `cache prune`, the size limit and `clear`
remove the ones no process holds (`remove_unheld`).

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
import re
import threading
import time
from pathlib import Path

from sassview.cache.layout import enabled

log = logging.getLogger("sassview.cache")
LOCK_TIMEOUT_ENV = "SASSVIEW_LOCK_TIMEOUT"
_DEFAULT_TIMEOUT_S = 900.0  # toolchain/child.py's default compile deadline

_POLL_S = 0.05
SAY_AFTER_S = 10.0  # a wait this long is said on stderr (a stopped holder's at once)
_claims = threading.local()  # .held: (kind, key, fd, path) of this thread's claim, or None
_held_here: set[str] = set()  # the lock files any thread of this process holds


def _forget_in_child() -> None:
    """A forked child holds none of its parent's record locks: drop the inherited claim (and
    its fd; closing it there leaves the parent's lock alone)."""
    held = getattr(_claims, "held", None)
    _claims.held = None
    _held_here.clear()
    if held is not None:
        with contextlib.suppress(OSError):
            os.close(held[2])


os.register_at_fork(after_in_child=_forget_in_child)


def _try_lock(path: Path, timeout: float) -> int | None:
    """An fd holding an exclusive record lock on `path`, or None after `timeout` seconds.
    The holder's pid is written in the file, so a waiter can say whom it waits for."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    started = time.monotonic()
    said = False
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            with contextlib.suppress(OSError):  # only a courtesy to waiters
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd
        except OSError:
            waited = time.monotonic() - started
            if waited >= timeout:
                os.close(fd)
                return None
            if not said and timeout > 0:
                said = _say_who(fd, path, waited, timeout)
        time.sleep(_POLL_S)


def _say_who(fd: int, path: Path, waited: float, timeout: float) -> bool:
    """Say on stderr (once) which process holds the lock and how long this one waits: at once
    when the holder is stopped (Ctrl-Z: it will not finish by itself), else after SAY_AFTER_S.
    True once said."""
    holder = _holder(fd)
    state = _state(holder) if holder else ""
    stopped = state in ("T", "t")
    if not stopped and waited < SAY_AFTER_S:
        return False
    who = f"process {holder}" if holder else "another process"
    how = " (stopped: resume it with `fg`, or end it)" if stopped else ""
    log.warning(
        "sassview: waiting for %s%s, which is building this cache entry (%s); up to %.0f s more "
        "(%s), then building it here",
        who,
        how,
        path.name.split(".")[0],
        timeout - waited,
        LOCK_TIMEOUT_ENV,
    )
    return True


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _state(pid: int) -> str:
    """The process' state letter from /proc (R, S, T for stopped, ...), "" where unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


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
    _claims.held = (kind, key, fd, str(path))
    _held_here.add(str(path))
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


_LOCK_NAME = re.compile(r"[a-z0-9-]+\.[0-9a-f]{64}\.lock")


def remove_unheld(directory: Path) -> int:
    """Remove the lock files in `directory` that no process holds (what `cache prune`, the
    size limit and `clear` do beside the entries: one file per key ever built would pile up);
    the number removed. Only files named as claim() names them; a held one stays.

    Each is locked before it is unlinked, so no holder loses its file. A process that opened
    the file just before and waits on it then holds a lock on a file no longer there, and a
    third one may lock a new file of that name: the entry is built twice (the first rename
    wins, store.py), never wrongly."""
    removed = 0
    try:
        names = [e.name for e in os.scandir(directory) if e.is_file(follow_symlinks=False)]
    except OSError:
        return 0
    for name in names:
        path = directory / name
        if not _LOCK_NAME.fullmatch(name) or str(path) in _held_here:
            continue  # not sassview's, or this process's own (closing it would release it)
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # held by another process: it stays
            continue
        try:
            os.unlink(path)
            removed += 1
        except OSError:
            pass
        finally:
            _unlock(fd)
    return removed


def release(kind: str | None = None, key: str | None = None) -> None:
    """End this thread's claim (only if it is for (kind, key), when they are given)."""
    held = getattr(_claims, "held", None)
    if held is None or (kind is not None and held[:2] != (kind, key)):
        return
    _claims.held = None
    _held_here.discard(held[3])
    _unlock(held[2])
