"""What Triton's own IR says about its loops, for the loop census (`loops/python.py`), and the
divisor measure every loop count uses.

Triton unrolls `tl.range(..., loop_unroll_factor=N)` in its own MLIR, before the PTX: its
`scf.for` loops say by how much (`sassview.parse.mlir`). The Python loop statements themselves
are read by `parse.python_loops.python_source_loops`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import NamedTuple

from sassview.parse.mlir import for_loops


def divides_most(values: list[int]) -> int:
    """The largest number that divides most (more than half) of `values`."""
    for g in sorted({d for c in values for d in range(1, c + 1) if c % d == 0}, reverse=True):
        if 2 * sum(1 for c in values if c % g == 0) > len(values):
            return g
    return 1


class TritonLoop(NamedTuple):
    """What Triton's own unroller (`tl.range(..., loop_unroll_factor=N)`) did to one `scf.for`,
    read off its MLIR before the PTX exists: the copies of its body in one trip, and whether
    it is the remainder loop the unroller put after the loop before it."""

    factor: int
    remainder: bool


def triton_loops(stages: Mapping[str, str], main: str | None) -> dict[int, list[TritonLoop]]:
    """Main-file line -> its `scf.for` loops in text order, as Triton unrolled them. TTIR is
    read: the unroller's copies are plain there (TTGIR's pipelining rewrites the body's ops);
    both stages hold the same loops. The copies are counted per op and location (each copy
    keeps the location of the op it copies), the loop's own line (its induction) left out. The
    remainder is a loop right after an unrolled one, on its line, not unrolled, with no op the
    unrolled one lacks."""
    text = stages.get("ttir") or stages.get("ttgir")
    if not text or main is None:
        return {}
    out: dict[int, list[TritonLoop]] = {}
    before: dict[int, tuple[int, set[tuple[str, str]], int]] = {}  # depth -> line, ops, factor
    for lp in for_loops(text):
        lines = {n for f, n in lp.frames if f == main}
        before = {d: v for d, v in before.items() if d <= lp.depth}
        if len(lines) != 1:
            before.pop(lp.depth, None)
            continue
        line = lines.pop()
        counts = Counter((op.name, op.loc) for op in lp.ops if (main, line) not in op.frames)
        factor = divides_most(list(counts.values())) if counts else 1
        prior = before.get(lp.depth)
        remainder = (
            prior is not None
            and prior[0] == line
            and prior[2] > 1
            and factor == 1
            and set(counts) <= prior[1]
        )
        out.setdefault(line, []).append(TritonLoop(factor, remainder))
        before[lp.depth] = (line, set(counts), factor)
    return out
