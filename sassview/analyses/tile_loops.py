"""What the tile languages' own source and IR say about their loops, for the unroll analysis.

Triton and the CuTe DSL are Python: their loop statements are read with `ast` (the CuTe DSL puts
the control of the loops it lowers at its function's line, and a loop's `unroll=` request is
a keyword of its `range` call). Triton unrolls `tl.range(..., loop_unroll_factor=N)` in its
own MLIR, before the PTX: its `scf.for` loops say by how much (`sassview.parse.mlir`).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from sassview.parse.mlir import for_loops


def divides_most(values: list[int]) -> int:
    """The largest number that divides most (more than half) of `values`."""
    for g in sorted({d for c in values for d in range(1, c + 1) if c % d == 0}, reverse=True):
        if 2 * sum(1 for c in values if c % g == 0) > len(values):
            return g
    return 1


class PythonLoops:
    """The `for` and `while` statements of a Python source, and its `def` and decorator lines
    (where Triton and the CuTe DSL put code they generate for no statement); the unrolling each
    `for ... in ...range(..., unroll=N)` asks for (`unroll_full=True`: "full"), and the trip
    count of each whose bounds are written as numbers."""

    def __init__(
        self,
        spans: list[tuple[int, int]],
        generated: frozenset[int],
        requests: Mapping[int, int | str] | None = None,
        trips: Mapping[int, int] | None = None,
    ) -> None:
        self.spans = spans  # (first, last line) of each loop statement
        self.generated = generated
        self.requests: Mapping[int, int | str] = requests or {}
        self.trips: Mapping[int, int] = trips or {}

    def depth(self, line: int) -> int:
        """How many loop statements the one on `line` is in, itself included."""
        return sum(1 for first, last in self.spans if first <= line <= last)

    def holding(self, lines: set[int]) -> int | None:
        """The line of the loop statement whose body holds most of `lines` (the innermost of
        equals); None when none holds any."""
        best: tuple[int, int, int] | None = None  # (lines held, -length, first line)
        for first, last in self.spans:
            held = sum(1 for n in lines if first < n <= last)
            if held and (best is None or (held, first - last) > best[:2]):
                best = (held, first - last, first)
        return best[2] if best else None


def python_loops(text: str) -> PythonLoops | None:

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    spans: list[tuple[int, int]] = []
    generated: set[int] = set()
    requests: dict[int, int | str] = {}
    trips: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.While | ast.AsyncFor):
            spans.append((node.lineno, node.end_lineno or node.lineno))
            asked = _unroll_keyword(node.iter) if isinstance(node, ast.For) else None
            if asked is not None:
                requests[node.lineno] = asked
            count = _trip_count(node.iter) if isinstance(node, ast.For) else None
            if count is not None:
                trips[node.lineno] = count
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            generated.update((node.lineno, *(d.lineno for d in node.decorator_list)))
    return PythonLoops(spans, frozenset(generated), requests, trips)


def _trip_count(call: Any) -> int | None:
    """len(range(a, b, c)) of a `...range(...)` call whose bounds are all written as numbers."""

    if not isinstance(call, ast.Call) or not _is_range(call) or not 1 <= len(call.args) <= 3:
        return None
    bounds = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
    if not all(type(b) is int and abs(b) < 1 << 31 for b in bounds) or bounds[2:3] == [0]:
        return None
    return len(range(*bounds))  # type: ignore[arg-type]


def _is_range(call: Any) -> bool:
    """A call of `range`, `cutlass.range`, `cutlass.range_constexpr`, `tl.range`,
    `tl.static_range`..."""

    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return isinstance(name, str) and (name.startswith("range") or name == "static_range")


def _unroll_keyword(call: Any) -> int | str | None:
    """N of `range(..., unroll=N)` (`cutlass.range`, `cute.range`...), "full" for
    `unroll_full=True`; None when the call asks nothing, or asks with a value only the run
    knows."""

    if not isinstance(call, ast.Call) or not _is_range(call):
        return None
    for kw in call.keywords:
        value = kw.value.value if isinstance(kw.value, ast.Constant) else None
        if kw.arg == "unroll_full" and value is True:
            return "full"
        if kw.arg == "unroll" and type(value) is int and value >= 0:
            return max(value, 1)  # "0 or 1 = no unrolling" (cutlass.range)
    return None


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


def pair_triton_loops(
    triton: dict[int, list[TritonLoop]],
    firsts: Mapping[tuple[Any, ...], int],
    main: str | None,
) -> dict[tuple[Any, ...], TritonLoop]:
    """The loop statements' SASS groups, keyed (file, line, PTX back branch) with the address
    each starts at, each with the Triton loop it comes from: on each line, the MLIR loops in
    text order and the groups in address order. LLVM may turn a remainder of at most one trip
    into straight-line code: when the numbers differ, the loops other than remainders are
    paired if their number is the groups'; otherwise the line gets none (LLVM also unswitches
    loops into versions, and fully unrolls constant trips)."""
    paired: dict[tuple[Any, ...], TritonLoop] = {}
    for line, found in triton.items():
        here = sorted((k for k in firsts if k[0] == main and k[1] == line), key=firsts.__getitem__)
        if len(here) != len(found):
            found = [t for t in found if not t.remainder]
        if len(here) == len(found):
            paired.update(zip(here, found, strict=True))
    return paired
