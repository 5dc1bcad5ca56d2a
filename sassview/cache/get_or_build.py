"""One get-or-build for the compile caches: look the key up, else build, time it, say so, keep.

The frontends that compile once per key (Triton, the CuTe DSL, cuTile, a PTX file) each read
their entry, logged the hit, timed the build, logged it and put the files back in their own
copy of those lines: here they are once. The build lock is the store's (cache/locks.py: a
miss claims the key, `put` releases it, so a second process waits, then reads), and holds
here as it did. CUDA C++ keeps its own sequence (frontends/cuda.py: NVRTC's route to nvcc,
its refusals, and the include scan that decides whether a result may be kept), as does the
rolled build (frontends/cuda_rolled.py: a failed build is evidence of nothing, not an error).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from sassview.cache.store import Store

Files = Mapping[str, bytes | str]


class Said(NamedTuple):
    """What the log says of one build: `<tool>: cache hit for <name> (<arch>)`, `<tool>:
    compiled <name> for <arch> in 1.23 s`, on `log`."""

    log: logging.Logger
    tool: str
    name: str
    arch: str


def get_or_build(
    store: Store,
    key: str | None,
    names: Iterable[str],
    build: Callable[[], Files],
    *,
    said: Said | None = None,
    meta: Mapping[str, object] | None = None,
) -> Files:
    """The entry's files `names` (as bytes) where `store` holds `key`, else what `build`
    returns, put under `key` (with `meta`). `key` None: nothing is read or kept (an input
    the key could not see). `said`: the hit and the build's time are logged, else nothing.
    A build that raises keeps nothing, as before this helper."""
    entry = store.get(key) if key is not None else None
    if entry is not None:
        if said is not None:
            said.log.info("%s: cache hit for %s (%s)", said.tool, said.name, said.arch)
        return {n: entry.read_bytes(n) for n in names}
    started = time.perf_counter()
    files = build()
    if said is not None:
        spent = time.perf_counter() - started
        said.log.info("%s: compiled %s for %s in %.2f s", said.tool, said.name, said.arch, spent)
    if key is not None:
        store.put(key, files, meta=meta)
    return files
