"""Which tool made an answer: its file's real path and the SHA-256 of its contents.

What a tool says of itself (`--version`) is only its word: a `SASSVIEW_NVDISASM` wrapper that
prints the wheel's version and rewrites the listing would have its listings cached under that
version, and served after the variable is unset. So every cache key that depends on a tool's
output holds the tool's identity, not its version text: another file, or the same file
rewritten, is another key.

Cheap on a warm run: a file's digest is remembered (toolchain/remembered.py, the fact
"digest") under the file's identity (real path, size, inode, device, mtime, ctime), so it is
hashed once per file, not per run; within a process it is kept per (path, size, mtime). The
first run after a wheel is installed pays for it: 0.98 s for the four tools of CUDA 13.5's
wheels (260 MB, NVRTC's and nvJitLink's libraries nearly all of it), 1.2 ms remembered. With
the cache off no key is used, and nothing is hashed.

How it can be wrong: a wrapper script is known by its own bytes; a wrapper that runs whatever
another variable names, or a tool that reads files of its own (nvcc's cicc and ptxas beside it),
can change its answers while its file stays the same. The wheels' tools are never wrappers.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable

from sassview.cache.layout import enabled as cache_enabled
from sassview.memo import Memo
from sassview.toolchain import remembered as memory

_BLOCK = 1 << 20
_digests: Memo[tuple[str, int, int, int], str] = Memo("tool-digests", 64)


def tool_identity(path: str | None) -> str:
    """`real path@sha256` of the tool at `path`; "missing" when there is none to read."""
    if not path:
        return "missing"
    if not cache_enabled():
        return "uncached"  # no key is used, and the digest could not be remembered
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return "missing"
    stamp = (real, st.st_size, st.st_ino, st.st_mtime_ns)
    found = _digests.get(stamp)
    if found is None:
        found = memory.fact(real, "digest") or _hashed(real)
        if found:
            _digests[stamp] = found
    return f"{real}@{found or 'unreadable'}"


def _hashed(real: str) -> str:
    """The file's SHA-256, remembered for its identity; "" when it cannot be read."""
    sha = hashlib.sha256()
    try:
        with open(real, "rb") as handle:
            while block := handle.read(_BLOCK):
                sha.update(block)
    except OSError:
        return ""
    digest = sha.hexdigest()
    memory.keep(real, digest, "digest")
    return digest


def identities(paths: Iterable[tuple[str, str | None]]) -> dict[str, str]:
    """{name: identity} for (name, path) pairs: the part of a cache key that says which tools."""
    return {name: tool_identity(path) for name, path in paths}
