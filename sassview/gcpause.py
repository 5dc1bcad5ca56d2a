"""Pause Python's cyclic garbage collector around work that builds many small acyclic objects.

Parsing a cubin, building its graphs and running the analyses each make 10^5 records and no
reference cycles; the collector's rescans of them cost 10-50% of that work on large kernels
(measured per module where it is used). This is the one place that pauses it.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_registered: list[bool] = []  # the exit hook below, once per process
_R = TypeVar("_R")


def without_gc(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run `fn` with the cyclic collector paused (and restored, if it was on), then age what
    exists (`age_all`): what `fn` made lives on, and young, the next collections would rescan
    it all (measured: 0.09-0.18 s of a 65k-instruction kernel's 1.2-1.5 s build and analysis
    in a process that keeps the collector on; 0.1-0.15 s after loading its cached model)."""

    @functools.wraps(fn)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        collect = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if collect:  # the outermost pause: an inner one leaves it to this
                age_all()
                gc.enable()

    return paused


def pause(*, freeze: bool = False) -> Callable[[], None]:
    """Pause the collector until the returned function is called: for a command that reads a
    cached model (10^6 records at 65k instructions, loaded in a blink, which each full
    collection would then rescan: a third of a warm check's CPU). With `freeze`, what exists
    when it resumes is moved to the permanent generation first (gc.freeze, O(1)): records that
    live until the process ends are then never rescanned (the TUI unfreezes them on exit)."""
    collect = gc.isenabled()
    gc.disable()

    def resume() -> None:
        if freeze:
            gc.freeze()
            _unfreeze_at_exit()
        if collect:
            gc.enable()

    return resume


def age_all() -> None:
    """Move every object the collector tracks into its oldest generation, at once (O(1)):
    for the 10^5-10^6 records a paused build or load makes. Left young, the young collections
    after it would scan them all before they age; old, only a full collection does, and the
    collector schedules those by how many objects survived young ones, which these did not.
    Nothing is kept from the collector: garbage among the objects moved is collected by the
    next full collection. gc.freeze then
    gc.unfreeze is that move; skipped where objects are frozen already (by the TUI after its
    first load, `pause`, or by the user's program), which gc.unfreeze would let go."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def _unfreeze_at_exit() -> None:
    """Hand frozen objects back to the collection Python makes when it exits, where a frontend
    compiled in this process. Triton's and the CuTe DSL's nanobind extensions count their
    objects still alive at exit and print "nanobind: leaked 4 instances!" (and 60 lines more)
    after sassview's own error message; frozen, their IR objects never reach that collection.
    Without such a frontend the frozen model simply goes with the process, unscanned."""
    import atexit
    import sys

    if _registered:
        return
    _registered.append(True)

    def unfreeze() -> None:
        if any(name in sys.modules for name in ("triton", "cutlass", "cuda.tile")):
            gc.unfreeze()

    atexit.register(unfreeze)
