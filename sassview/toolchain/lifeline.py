"""Children that die with their parent: a `kill -9` of sassview, or a closed terminal that ends
it before its `finally` blocks run, must not leave an NVRTC compile, a sweep worker or an
nvdisasm running for minutes.

How: Linux's parent-death signal (`prctl(PR_SET_PDEATHSIG)`, called through ctypes in the child
right after the fork): the kernel sends the child `signum` when the thread that forked it ends,
whatever ended it. A parent that died between the fork and the prctl is caught by comparing
getppid() with the pid the parent had. Where prctl is not there (macOS, Windows, a libc without
it), `die_with_parent` returns False and the child relies on the parent's cleanup and its own
deadline (the NVRTC child's alarm, see toolchain/child.py).

How it can be wrong: the signal follows the forking *thread*, not the process; sassview waits
for every child in the thread that started it, so that thread outlives it. Only the direct
child is signalled: a tool's own children (nvcc's cicc or ptxas, a wrapper script's) run on
until their step ends, unless the tool itself ends them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from sassview.memo import memoized

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@memoized(2)
def _load_prctl() -> Callable[..., int] | None:
    """libc's prctl, from the symbols already loaded (no library search: that spawns tools)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: a warm run that starts no child never pays for it

    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


def available() -> bool:
    """True where children can be told to die with their parent."""
    return _load_prctl() is not None


def die_with_parent(signum: int, parent: int) -> bool:
    """In a freshly forked child of `parent` (its pid, read before the fork): have the kernel
    send `signum` to this process when the parent ends; exit at once if it already has.
    False where this cannot be arranged."""
    prctl = _load_prctl()  # cached: in the child this is a lookup, never a load
    if prctl is None or prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        return False
    if os.getppid() != parent:  # the parent died before the prctl: nobody will signal us
        os._exit(1)
    return True


def preexec(signum: int) -> Callable[[], None] | None:
    """A `preexec_fn` for subprocess.Popen that makes the tool die with this process; None
    where that is unavailable (Popen then keeps its faster spawn path)."""
    if _load_prctl() is None:  # looked up here, in the parent, before any fork
        return None
    parent = os.getpid()

    def arrange() -> None:
        die_with_parent(signum, parent)

    return arrange
