"""The fixes the width notes suggest (narrow-access, merge-candidate), in the words of the
kernel's language: its frontend's vocabulary (`sassview.frontends.registry`), else C++'s.

Not an analysis (no `run`). Its own module because two analyses say them: `memory_width` on
its notes, and `coalescing` on a line whose narrow accesses interleave (one wider access per
thread would be one request). Here, neither imports the other for them: `memory_width` reads
the coalescing measure, and that is the one way the two are joined.
"""

from __future__ import annotations

MERGE_HINT = (
    "use vector types (float4/int4/float2) on 16-byte aligned data (`__align__(16)`, "
    "`cudaMalloc` bases) and `__restrict__` pointers; in Triton, `tl.multiple_of` / "
    "divisibility hints let the compiler prove the alignment"
)
NARROW_HINT = (
    "load and store float4/int4 (or float2) per thread where the data is 16-byte aligned; "
    "`__restrict__ const` pointers and aligned sizes let the compiler vectorize"
)


def hints_for(kind: str) -> tuple[str, str]:
    """(narrow-access hint, merge-candidate hint) in the terms of the kernel's language: its
    frontend's vocabulary (frontends/registry.py), else the C++ words here."""
    from sassview.frontends.registry import words

    said = words(kind)
    return said.narrow or NARROW_HINT, said.merge or MERGE_HINT
