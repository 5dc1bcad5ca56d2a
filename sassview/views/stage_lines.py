"""Which lines of an intermediate stage (Triton's TTIR, TTGIR, LLVM IR) come from a source line.

Each stage carries its own debug locations, the source lines its ops come from:
- MLIR (TTIR, TTGIR) ends an op with `loc(#loc12)` or `loc("file":line:col)`, and defines the
  aliases at the end: `#loc12 = loc("/k.py":40:20)`, a named one `loc("acc"(#loc3))`, an
  inlined call `loc(callsite(#callee at #caller))`, a merge `loc(fused[#a, #b])`;
- LLVM IR ends an instruction with `!dbg !12`, with `!12 = !DILocation(line: 40, column: 20,
  scope: !4, inlinedAt: !25)`, the scope naming a `file: !1`, `!1 = !DIFile(filename: "k.py",
  directory: "/src")`.
A line counts for every frame of its location, so the caller's line finds code inlined from
Triton's library (`tl.cdiv`) too. Text neither form: no lines (the stage shows as it is).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

Frame = tuple[str, int]  # (file, line)

_MLIR_USE = re.compile(r'loc\((#loc\d*|"[^"]*":\d+:\d+)\)\s*$')
_MLIR_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
_MLIR_PLACE = re.compile(r'"([^"]*)":([0-9]{1,20}):[0-9]+')  # past 20 digits: no line
_MLIR_REF = re.compile(r"#loc\d*\b")
_LLVM_USE = re.compile(r"!dbg (![0-9]+)")
_LLVM_NODE = re.compile(r"^(![0-9]+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
_LLVM_FIELD = re.compile(r"(\w+): (!?[0-9]+|\"(?:[^\"\\]|\\.)*\")")


def _mlir_frames(lines: list[str]) -> dict[int, frozenset[Frame]]:
    aliases: dict[str, str] = {}
    for text in lines:
        if text.startswith("#loc"):
            found = _MLIR_ALIAS.match(text)
            if found:
                aliases[found.group(1)] = found.group(2)
    memo: dict[str, frozenset[Frame]] = {}

    def resolve(name: str, depth: int = 0) -> frozenset[Frame]:
        if name in memo:
            return memo[name]
        body = aliases.get(name, "")
        out: set[Frame] = {(f, int(n)) for f, n in _MLIR_PLACE.findall(body)}
        if depth < 64:  # aliases refer backwards; the cap only guards a damaged text
            for ref in _MLIR_REF.findall(body):
                out |= resolve(ref, depth + 1)
        memo[name] = frozenset(out)
        return memo[name]

    rows: dict[int, frozenset[Frame]] = {}
    for row, text in enumerate(lines):
        if text.startswith("#"):
            continue
        use = _MLIR_USE.search(text)
        if use is None:
            continue
        where = use.group(1)
        if where.startswith('"'):
            rows[row] = frozenset((f, int(n)) for f, n in _MLIR_PLACE.findall(where))
        else:
            rows[row] = resolve(where)
    return rows


def _llvm_frames(lines: list[str]) -> dict[int, frozenset[Frame]]:
    nodes: dict[str, tuple[str, dict[str, str]]] = {}
    for text in lines:
        if text.startswith("!"):
            found = _LLVM_NODE.match(text)
            if found:
                nodes[found.group(1)] = (found.group(2), dict(_LLVM_FIELD.findall(found.group(3))))

    def file_of(scope: str | None, depth: int = 0) -> str | None:
        if scope is None or scope not in nodes or depth > 64:
            return None
        kind, fields = nodes[scope]
        if kind == "DIFile":
            name = fields.get("filename", '""')[1:-1]
            folder = fields.get("directory", '""')[1:-1]
            return name if name.startswith("/") or not folder else f"{folder}/{name}"
        return file_of(fields.get("file") or fields.get("scope"), depth + 1)

    memo: dict[str, frozenset[Frame]] = {}

    def frames(loc: str, depth: int = 0) -> frozenset[Frame]:
        if loc in memo:
            return memo[loc]
        kind, fields = nodes.get(loc, ("", {}))
        out: set[Frame] = set()
        if kind == "DILocation" and depth < 64:
            path = file_of(fields.get("scope"))
            number = fields.get("line", "")
            if path is not None and number.isdigit() and len(number) <= 20:
                out.add((path, int(number)))
            if "inlinedAt" in fields:
                out |= frames(fields["inlinedAt"], depth + 1)
        memo[loc] = frozenset(out)
        return memo[loc]

    rows: dict[int, frozenset[Frame]] = {}
    for row, text in enumerate(lines):
        if text.startswith("!"):
            continue
        use = _LLVM_USE.search(text)
        if use is not None:
            rows[row] = frames(use.group(1))
    return rows


def rows_by_line(text: str, file: str) -> Mapping[int, list[int]]:
    """Source line of `file` -> the 0-based rows of `text` (a stage) whose location names that
    line in any frame, in order."""
    lines = text.splitlines()
    frames = _llvm_frames(lines) if "!dbg " in text else _mlir_frames(lines)
    out: dict[int, list[int]] = {}
    for row, found in frames.items():
        for path, line in found:
            if path == file:
                out.setdefault(line, []).append(row)
    return out
