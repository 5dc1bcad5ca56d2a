"""Read the MLIR that Triton keeps of a kernel (TTIR, TTGIR): the source lines of its ops, and
its `scf.for` loops.

Debug locations. An op ends with `loc(#loc12)` or `loc("file":line:col)`. The aliases are
defined at the end of the text: `#loc12 = loc("/k.py":40:20)`, a named one
`loc("acc"(#loc3))`, an inlined call `loc(callsite(#callee at #caller))`, a merge
`loc(fused[#a, #b])`. A location stands for every frame it names, so code Triton inlines from
its library (`tl.cdiv`) counts for the calling line too.

Loops. The printer puts one op on a line and opens a region with a line that ends in `{`
(`scf.for ... {`, `"tt.reduce"(...) ({`); the region closes on a line that starts with `}`
(`} else {` closes one and opens the next). A loop's own location and attributes are on its
closing line: `} {tt.loop_unroll_factor = 1 : i32} loc(#loc21)`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

Frame = tuple[str, int]  # (file, line)

# An op's location as written, at the end of its line: `loc(#loc12)` or `loc("k.py":40:20)`.
LOCATION = re.compile(r'loc\((#loc\d*|"[^"]*":\d+:\d+)\)\s*$')
_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
_PLACE = re.compile(r'"([^"]*)":([0-9]{1,20}):[0-9]+')  # past 20 digits: no line
_REF = re.compile(r"#loc\d*\b")
_OP = re.compile(r'^\s*(?:%[^=]*=\s*)?("?[A-Za-z_][\w.$]*"?)')
_FOR = re.compile(r"^\s*(?:%[^=]*=\s*)?scf\.for\b")
_ATTRIBUTES = re.compile(r"^\s*\}\s*(\{.*\})?\s*loc\(")


class LoopOp(NamedTuple):
    """One op of a loop's body: its name, its location as written (`#loc25`, copies made by
    unrolling share it) and the source frames that location names."""

    name: str
    loc: str
    frames: frozenset[Frame]


class ForLoop(NamedTuple):
    """An `scf.for`: the 0-based row of its first line, how many loops enclose it, the frames
    of its location, the attributes on its closing line (`{tt.num_stages = 1 : i32}` or ""),
    and the ops of its body, nested loops' bodies left out."""

    row: int
    depth: int
    frames: frozenset[Frame]
    attributes: str
    ops: tuple[LoopOp, ...]


def for_loops(text: str) -> list[ForLoop]:
    """The `scf.for` loops of a TTIR or TTGIR text, in text order (outer before inner). An op
    with regions of its own (`scf.if`, `tt.reduce`) counts for the loop at its closing line,
    where its location is; the ops inside count too. Regions left open at the end of a damaged
    text are dropped with the loops they belong to."""
    lines = text.splitlines()
    resolve = location_resolver(lines)
    # One entry per open region: the loop's (row, ops) for a loop body, else the op's name.
    stack: list[tuple[int, list[LoopOp]] | str] = []
    found: list[ForLoop] = []

    def body() -> list[LoopOp] | None:
        return next((s[1] for s in reversed(stack) if not isinstance(s, str)), None)

    for row, line in enumerate(lines):
        if line.startswith("#"):
            continue
        stripped = line.strip()
        use = LOCATION.search(stripped)
        opened: tuple[int, list[LoopOp]] | str | None = None
        if stripped.startswith("}") and stack:
            closed = stack.pop()
            if isinstance(closed, str):
                if stripped.endswith("{"):
                    opened = closed  # `} else {`: the same op's next region
                elif use is not None and (ops := body()) is not None:
                    ops.append(LoopOp(closed, use.group(1), resolve(use.group(1))))
            else:
                attrs = _ATTRIBUTES.match(stripped)
                start, ops_of_loop = closed
                found.append(
                    ForLoop(
                        start,
                        sum(1 for s in stack if not isinstance(s, str)),
                        resolve(use.group(1)) if use else frozenset(),
                        (attrs.group(1) or "") if attrs else "",
                        tuple(ops_of_loop),
                    )
                )
        elif stripped and not stripped.startswith("^"):  # ^bb0(...): a block label, no op
            name = _OP.match(stripped)
            op = name.group(1).strip('"') if name else "?"
            if stripped.endswith("{"):
                opened = (row, []) if _FOR.match(stripped) else op
            elif use is not None and (ops := body()) is not None:
                ops.append(LoopOp(op, use.group(1), resolve(use.group(1))))
        if opened is not None:
            stack.append(opened)
    return sorted(found)


def location_resolver(lines: list[str]) -> Callable[[str], frozenset[Frame]]:
    """A location as written (group 1 of `LOCATION`) -> the source frames it names, through
    the `#loc` aliases that `lines` define."""
    aliases: dict[str, str] = {}
    for text in lines:
        if text.startswith("#loc"):
            found = _ALIAS.match(text)
            if found:
                aliases[found.group(1)] = found.group(2)
    return _Resolve(aliases)


class _Resolve:
    """A location as written (an alias, or a place in quotes) -> the frames it names."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self.memo: dict[str, frozenset[Frame]] = {}

    def __call__(self, where: str, depth: int = 0) -> frozenset[Frame]:
        if where.startswith('"'):
            return frozenset((f, int(n)) for f, n in _PLACE.findall(where))
        if where in self.memo:
            return self.memo[where]
        body = self.aliases.get(where, "")
        out: set[Frame] = {(f, int(n)) for f, n in _PLACE.findall(body)}
        if depth < 64:  # aliases refer backwards; the cap only guards a damaged text
            for ref in _REF.findall(body):
                out |= self(ref, depth + 1)
        self.memo[where] = frozenset(out)
        return self.memo[where]
