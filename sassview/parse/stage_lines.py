"""Which lines of an intermediate stage (Triton's TTIR, TTGIR, LLVM IR) come from a source line.

Each stage carries its own debug locations, the source lines its ops come from:
- MLIR (TTIR, TTGIR) ends an op with `loc(#loc12)`, an alias defined at the end of the text
  (read by `sassview.parse.mlir`);
- LLVM IR ends an instruction with `!dbg !12`, with `!12 = !DILocation(line: 40, column: 20,
  scope: !4, inlinedAt: !25)`, the scope naming a `file: !1`, `!1 = !DIFile(filename: "k.py",
  directory: "/src")`.
A line counts for every frame of its location, so the caller's line finds code inlined from
Triton's library (`tl.cdiv`) too. Text neither form: no lines (the stage shows as it is).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from sassview.parse.mlir import LOCATION, Frame, location_resolver

_LLVM_USE = re.compile(r"!dbg (![0-9]+)")
_LLVM_NODE = re.compile(r"^(![0-9]+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
_LLVM_FIELD = re.compile(r"(\w+): (!?[0-9]+|\"(?:[^\"\\]|\\.)*\")")


def _llvm_resolver(lines: list[str]) -> Callable[[str], frozenset[Frame]]:
    """A `!dbg` node (`!12`) -> the source frames it names, inlining frames included."""
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

    return frames


def rows_by_line(text: str, file: str) -> Mapping[int, list[int]]:
    """Source line of `file` -> the 0-based rows of `text` (a stage) whose location names that
    line in any frame, in order."""
    lines = text.splitlines()
    if "!dbg " in text:  # the definitions start their lines with `!`, in MLIR with `#`
        definition, use, resolve = "!", _LLVM_USE, _llvm_resolver(lines)
    else:
        definition, use, resolve = "#", LOCATION, location_resolver(lines)
    out: dict[int, list[int]] = {}
    for row, text_of_row in enumerate(lines):
        found = None if text_of_row.startswith(definition) else use.search(text_of_row)
        if found is not None:
            for path, line in resolve(found.group(1)):
                if path == file:
                    out.setdefault(line, []).append(row)
    return out
