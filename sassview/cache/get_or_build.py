"""One get-or-build for the compile caches: look the key up, else build, time it, say so, keep.

The frontends that compile once per key (Triton, the CuTe DSL, cuTile, a PTX file) each read
their entry, logged the hit, timed the build, logged it and put the files back in their own
copy of those lines: here they are once, as `get_or_build`. Where the build cannot be one call
made between the lookup and the put, its halves are here too: `lookup` (the entry's files,
the hit said) and `keep` (the build's time said, the files put), with `Said` wording both log
lines. nvdisasm (disasm/nvdisasm.py) looks up, starts its runs, and keeps what its waiter
reads; nvcc (frontends/cuda.py) finds its key after the build (its dependency list: depcache);
NVRTC (frontends/cuda.py) says its build before its refusals and keeps it only where the include
scan held; the rolled build (frontends/cuda_rolled.py) keeps nothing of a build that failed (it
is evidence of nothing, not an error). A cached file reads back as bytes, a fresh one as the
build made it: `text_of` and `bytes_of` read either as Entry.read_text / read_bytes would.

The build lock is the store's (cache/locks.py: a miss claims the key, `put` releases it, so a
second process waits, then reads), and holds here as it did.
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
    <verb> <name> for <arch> in 1.23 s`, on `log`; with no `arch`, the parts naming it go."""

    log: logging.Logger
    tool: str
    name: str
    arch: str = ""
    verb: str = "compiled"

    def hit(self) -> None:
        where = f" ({self.arch})" if self.arch else ""
        self.log.info("%s: cache hit for %s%s", self.tool, self.name, where)

    def built(self, started: float, how: str = "") -> None:
        """The build begun at perf_counter() `started` is done; `how` follows the time."""
        spent = time.perf_counter() - started
        where = f" for {self.arch}" if self.arch else ""
        self.log.info("%s: %s %s%s in %.2f s%s", self.tool, self.verb, self.name, where, spent, how)


def text_of(data: bytes | str) -> str:
    """A file of an entry or of a build as text, as Entry.read_text gives it (no byte is ever
    refused)."""
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


def bytes_of(data: bytes | str) -> bytes:
    """A file of an entry or of a build as bytes, as Entry.read_bytes gives it."""
    return data if isinstance(data, bytes) else data.encode()


def lookup(
    store: Store, key: str | None, names: Iterable[str], said: Said | None = None
) -> dict[str, bytes] | None:
    """The entry's files `names` (as bytes) where `store` holds `key` (the hit said), else
    None: the key is the caller's to build and `keep` (a miss claims it: cache/locks.py)."""
    entry = store.get(key) if key is not None else None
    if entry is None:
        return None
    if said is not None:
        said.hit()
    return {n: entry.read_bytes(n) for n in names}


def keep(
    store: Store,
    key: str | None,
    files: Files,
    *,
    said: Said | None = None,
    started: float | None = None,
    meta: Mapping[str, object] | None = None,
    how: str = "",
) -> None:
    """Say the build begun at `started` is done (with `said`), then put `files` under `key`
    (with `meta`); `key` None keeps nothing."""
    if said is not None and started is not None:
        said.built(started, how)
    if key is not None:
        store.put(key, files, meta=meta)


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
    found = lookup(store, key, names, said)
    if found is not None:
        return found
    started = time.perf_counter()
    files = build()
    keep(store, key, files, said=said, started=started, meta=meta)
    return files
