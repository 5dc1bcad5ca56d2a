"""The loop statements of Python kernel source (Triton, the CuTe DSL), read with `ast`: what
parse/source_loops.py reads of C++, for the loop census (sassview/analyses/loops) — each
statement's lines, nesting, the unroll its range call asks for and a trip count written as
numbers.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sassview.memo import memoized
from sassview.parse.cxx_templates import split_top
from sassview.parse.source_loops import SourceLoop, constant_expression

# range call name -> how its request is written (LoopEntry.requested_by)
_STATIC = {"static_range": "static_range", "range_constexpr": "range_constexpr"}


@memoized(64)
def python_source_loops(text: str) -> tuple[SourceLoop, ...]:
    """The `for`/`while` statements of Python source text, in source order, with nesting, the
    request of each range call and the trip count of bounds written as numbers."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    out: list[SourceLoop] = []

    def visit(node: ast.AST, parent: int | None, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.For | ast.AsyncFor | ast.While):
                out.append(_loop(child, parent, depth))
                here = len(out) - 1
                visit(child, here, depth + 1)
                _own(out, here)
            else:
                visit(child, parent, depth)

    visit(tree, None, 1)
    return tuple(out)


def _loop(node: ast.For | ast.AsyncFor | ast.While, parent: int | None, depth: int) -> SourceLoop:
    first = node.body[0].lineno if node.body else node.lineno
    statement = frozenset(range(node.lineno, max(first, node.lineno + 1)))
    end = node.end_lineno or node.lineno
    call = node.iter if isinstance(node, ast.For | ast.AsyncFor) else None
    requested, by, static = _request(call)
    trips = _trip_count(call)
    header = _bounds_text(call) if trips is None or _step(call) is None else ""
    return SourceLoop(
        node.lineno,
        statement,
        (node.lineno, end),
        frozenset(),  # filled by _own once the nested loops are known
        parent,
        depth,
        requested,
        trips,
        requested_by=by,
        static=static or (requested == "full" and trips is not None),
        step=_step(call),
        header=header,
    )


def _own(loops: list[SourceLoop], i: int) -> None:
    """Fill in the body lines of loop `i` outside its statement and its nested loops."""
    s = loops[i]
    nested = {n for t in loops[i + 1 :] if t.span[0] <= s.span[1] for n in range(*_lines(t))}
    own = set(range(s.span[0], s.span[1] + 1)) - s.statement - nested
    loops[i] = SourceLoop(
        s.line,
        s.statement,
        s.span,
        frozenset(own),
        s.parent,
        s.depth,
        s.requested,
        s.trip_count,
        requested_by=s.requested_by,
        static=s.static,
        step=s.step,
        header=s.header,
    )


def _bounds_text(call: Any) -> str:
    """A range call's positional bounds as written (`0, K, BLOCK_K`), to be read again with
    the constexprs the kernel was compiled with (`bound_python`); "" for another call."""
    if _range_name(call) is None or not 1 <= len(call.args) <= 3:
        return ""
    return ", ".join(ast.unparse(a) for a in call.args)


def bound_python(loop: SourceLoop, names: Mapping[str, int]) -> SourceLoop:
    """The loop with its range bounds read with `names` (a Triton kernel's constexprs as
    compiled: `tl.static_range(STAGES)` with STAGES=3 has 3 iterations, `range(0, K,
    BLOCK_K)` with BLOCK_K=32 steps by 32); as it was where a bound is no constant."""
    if not loop.header:
        return loop
    values = [constant_expression(p, names) for p in split_top(loop.header)]
    trips, step = loop.trip_count, loop.step
    if step is None and len(values) == 3 and values[2]:
        step = abs(values[2])
    if trips is None and all(v is not None for v in values) and values[2:3] != [0]:
        trips = len(range(*values))  # type: ignore[arg-type]
    if (trips, step) == (loop.trip_count, loop.step):
        return loop
    # A loop unrolled in NVVM for constant bounds (unroll_full=True) is never a SASS loop's.
    static = loop.static or (loop.requested == "full" and trips is not None)
    return replace(loop, trip_count=trips, step=step, static=static)


def _lines(s: SourceLoop) -> tuple[int, int]:
    return s.span[0], s.span[1] + 1


def _range_name(call: Any) -> str | None:
    """`range`, `static_range`, `range_constexpr`... of a range call, else None."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    ok = isinstance(name, str) and (name.startswith("range") or name == "static_range")
    return name if ok else None


def _request(call: Any) -> tuple[int | str | None, str, bool]:
    """(request, how it is written, unrolled while tracing) of a loop's range call."""
    name = _range_name(call)
    if name is None:
        return None, "pragma", False
    if name in _STATIC:
        return "full", _STATIC[name], True
    for kw in call.keywords:
        value = kw.value.value if isinstance(kw.value, ast.Constant) else None
        if kw.arg == "unroll_full" and value is True:
            return "full", "range", False
        if kw.arg == "unroll" and type(value) is int and value >= 0:
            return max(value, 1), "range", False  # "0 or 1 = no unrolling" (cutlass.range)
        if kw.arg == "loop_unroll_factor" and type(value) is int and value >= 1:
            return value, "loop_unroll_factor", False
    return None, "pragma", False


def _numbers(call: Any) -> list[int] | None:
    """The positional bounds of a range call, when all are written as int literals."""
    if _range_name(call) is None or not 1 <= len(call.args) <= 3:
        return None
    bounds = [a.value if isinstance(a, ast.Constant) else None for a in call.args]
    if not all(type(b) is int and abs(b) < 1 << 31 for b in bounds) or bounds[2:3] == [0]:
        return None
    return bounds  # type: ignore[return-value]


def _trip_count(call: Any) -> int | None:
    bounds = _numbers(call)
    return len(range(*bounds)) if bounds is not None else None


def _step(call: Any) -> int | None:
    """The induction's step: 1 for `range(n)` and `range(a, b)`, the literal third argument."""
    if _range_name(call) is None:
        return None
    if len(call.args) < 3:
        return 1
    third = call.args[2]
    return (
        abs(third.value) if isinstance(third, ast.Constant) and type(third.value) is int else None
    )
