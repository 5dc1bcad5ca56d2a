"""A Triton cache entry's constexprs (tile sizes), read back from its TTIR, for its label.

Triton's cache metadata (`NAME.json`) keeps num_warps and num_stages but not the constexprs an
autotune config set, so two configs of one kernel differ in their labels only by warps and
stages, or not at all. Their values are in the TTIR, as the shapes of the ops they made: a
`tl.arange(0, BLOCK_M)` is a `tt.make_range {end = 128}`, a `tl.zeros((BLOCK_M, BLOCK_N))` an
`arith.constant dense<...> : tensor<128x128xf32>`, each at the source location (line and
1-based column) of its call. Where the kernel's Python file is readable, those calls are found
in its source (ast) and matched to the ops by location, which names each value: BLOCK_M=128.
Where it is not (a cache copied from another machine), the first `tt.dot`'s operand shapes
give the tile: dot=128x128x64.

How it can be wrong: an op folded away (CSE merges two `tl.arange(0, X)` of one size into the
first) leaves a name unmatched, so it is left out, never guessed; a name matched to two values
is left out too. A source file edited since the compile may name another call at that place.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sassview.memo import memoized

_LOC_DEF = re.compile(r'^#(loc\d*) = loc\("([^"]+)":(\d+):(\d+)\)', re.M)
_LOC_ALIAS = re.compile(r'^#(loc\d*) = loc\("[^"]*"\(#(loc\d*)\)\)', re.M)
# an op of a library function (tl.zeros' body) at its call in the kernel: `callsite(#a at #b)`
_LOC_CALL = re.compile(r"^#(loc\d*) = loc\(callsite\(#loc\d* at #(loc\d*)\)\)", re.M)
_RANGE = re.compile(r"tt\.make_range \{end = (\d+) : i32, start = 0 : i32\}.*loc\(#(loc\d*)\)")
_DENSE = re.compile(r"arith\.constant dense<[^>]*> : tensor<((?:\d+x)+)\w+>.*loc\(#(loc\d*)\)")
_DOT = re.compile(r"tt\.dot [^:]*: tensor<(\d+)x(\d+)x\w+> \* tensor<\d+x(\d+)x\w+>")
_SHAPED = ("zeros", "full", "empty")  # tl.zeros((A, B)), tl.full((A, B), v), ...


def tile_values(ttir: str, source_path: str | None, kernel: str) -> dict[str, int | str]:
    """{constexpr name: value} for the entry, else {"dot": "MxNxK"}, else {}."""
    named = _named(ttir, source_path, kernel) if source_path else {}
    if named:
        return dict(named)
    dot = _DOT.search(ttir)
    return {"dot": f"{dot.group(1)}x{dot.group(3)}x{dot.group(2)}"} if dot else {}


def _named(ttir: str, source_path: str, kernel: str) -> dict[str, int]:
    calls = _calls(source_path, kernel)
    if not calls:
        return {}
    where = _locations(ttir, source_path)
    seen: dict[str, set[int]] = {}
    shapes = [(m.group(2), [int(m.group(1))]) for m in _RANGE.finditer(ttir)]
    shapes += [
        (m.group(2), [int(d) for d in m.group(1).split("x") if d]) for m in _DENSE.finditer(ttir)
    ]
    for loc, dims in shapes:
        names = calls.get(where.get(loc, (0, 0)))
        if names is None or len(names) != len(dims):
            continue
        for name, value in zip(names, dims, strict=True):
            if name is not None:
                seen.setdefault(name, set()).add(value)
    order = {n: i for i, n in enumerate(_params(source_path, kernel))}
    known = {n: next(iter(v)) for n, v in seen.items() if len(v) == 1}
    return dict(sorted(known.items(), key=lambda kv: order.get(kv[0], len(order))))


def _locations(ttir: str, source_path: str) -> dict[str, tuple[int, int]]:
    """#loc name -> (line, column) in `source_path`, through name aliases (`loc("x"(#loc7))`)."""
    direct = {m.group(1): (int(m.group(3)), int(m.group(4))) for m in _LOC_DEF.finditer(ttir)
              if m.group(2) == source_path}  # fmt: skip
    aliases = dict(_LOC_ALIAS.findall(ttir) + _LOC_CALL.findall(ttir))
    for _ in range(4):  # aliases of aliases, each pass one level deeper
        for alias, target in aliases.items():
            if target in direct and alias not in direct:
                direct[alias] = direct[target]
    return direct


def _parsed(source_path: str) -> ast.Module | None:
    try:
        stamp = Path(source_path).stat().st_mtime_ns
    except OSError:
        return None
    return _parsed_at(source_path, stamp)


@memoized(64)
def _parsed_at(source_path: str, stamp: int) -> ast.Module | None:
    """One parse per file and version: a cache's entries share a few source files."""
    try:
        return ast.parse(Path(source_path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None


def _function(source_path: str, kernel: str) -> ast.FunctionDef | None:
    tree = _parsed(source_path)
    found = (
        [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == kernel]
        if tree
        else []
    )
    return found[0] if len(found) == 1 else None


def _params(source_path: str, kernel: str) -> list[str]:
    fn = _function(source_path, kernel)
    return [a.arg for a in fn.args.args] if fn is not None else []


def _constexprs(fn: ast.FunctionDef) -> set[str]:
    def is_constexpr(node: ast.expr | None) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "constexpr") or (
            isinstance(node, ast.Name) and node.id == "constexpr"
        )

    return {a.arg for a in fn.args.args if is_constexpr(a.annotation)}


def _calls(source_path: str, kernel: str) -> dict[tuple[int, int], list[str | None]]:
    """(line, 1-based column) of each `tl.arange(0, X)` / `tl.zeros((X, Y))` in the kernel ->
    the constexpr names of its dimensions (None for a dimension that is no constexpr name)."""
    fn = _function(source_path, kernel)
    if fn is None:
        return {}
    names = _constexprs(fn)
    out: dict[tuple[int, int], list[str | None]] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        dims: list[ast.expr] = []
        if node.func.attr == "arange" and len(node.args) == 2:
            start = node.args[0]
            if isinstance(start, ast.Constant) and start.value == 0:
                dims = [node.args[1]]
        elif (
            node.func.attr in _SHAPED
            and node.args
            and isinstance(node.args[0], (ast.Tuple, ast.List))
        ):
            dims = list(node.args[0].elts)
        if dims:
            out[(node.lineno, node.col_offset + 1)] = [
                d.id if isinstance(d, ast.Name) and d.id in names else None for d in dims
            ]
    return out
