"""Which local files a CUDA C++ source includes, so the cache key changes when one does.

NVRTC has no dependency output (-M/-MD are refused), so this follows `#include "..."` and
`#include <...>` textually, resolving against the including file's directory and the -I list.
Headers it cannot find locally (cuda_fp16.h, ...) come from NVRTC's bundle, which the NVRTC
version in the key already covers. Over-approximation is safe: a conditional include that is
not compiled only costs a cache miss.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)


def local_includes(
    source: bytes, source_dir: Path | None, include_dirs: Iterable[Path]
) -> dict[str, bytes]:
    """Map every reachable local include (absolute path) to its bytes."""
    dirs = list(include_dirs)
    found: dict[str, bytes] = {}
    pending: list[tuple[bytes, Path | None]] = [(source, source_dir)]
    while pending:
        text, here = pending.pop()
        for name in _INCLUDE.findall(text):
            rel = name.decode(errors="replace")
            for base in ([here] if here else []) + dirs:
                candidate = (base / rel).resolve()
                if candidate.is_file():
                    key = str(candidate)
                    if key not in found:
                        try:
                            found[key] = candidate.read_bytes()
                        except OSError:
                            break
                        pending.append((found[key], candidate.parent))
                    break
    return found
