"""The rolled variant of a CUDA C++ source: every loop statement under `#pragma unroll 1`.

The loop census asks the compiler how many copies of a loop body it made by compiling the
source twice (analyses/loops/rolled.py): as written, and with every loop kept rolled, where one
trip of each loop runs its body once. This module writes the second text: `_Pragma("unroll 1")`
goes right before each `for`, `while` and `do` keyword on its own line (so no line number
moves: the two line tables name the same lines), and each `#pragma unroll` / `#pragma
nounroll` already there is blanked (two unroll requests on one loop are an error), as is a
`_Pragma("unroll ...")` already written. Either every loop is rolled, or those of one
parity of nesting depth (the others as written): a level left as written between two rolled
ones shows its own copies, one trip of the loop around it holding them all.

How it can be wrong: loops are found by `source_loops`' line scan, so a loop written by a macro
expansion is not rolled (the census then finds its copies in both builds and says so by a
ratio of 1 or none); a `do` whose body is a single statement without braces still takes the
pragma (the operator precedes a statement, which a `do` is).
"""

from __future__ import annotations

import re

from sassview.parse.source_loops import loop_keywords, source_loops

ROLL = '_Pragma("unroll 1") '
_REQUEST = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+(?:unroll|nounroll)\b[^\n]*", re.M)
_OPERATOR = re.compile(r'_Pragma\(\s*"(?:unroll|nounroll)[^"]*"\s*\)')


def rolled_source(text: str, parity: int | None = None) -> str:
    """`text` with its loop statements kept rolled, its line numbers unchanged: every one, or
    those whose nesting depth in the file is odd (`parity` 1) or even (0). The others keep
    what was written, their requests included."""
    starts = loop_keywords(text)
    depths = [s.depth for s in source_loops(text)]
    if len(depths) != len(starts):  # the two scans disagree: roll nothing rather than misplace
        return text
    chosen = [s for s, d in zip(starts, depths, strict=True) if parity is None or d % 2 == parity]
    # The requests on the loops rolled are blanked first (same length: the offsets hold).
    plain = _blank_requests(text, chosen)
    parts: list[str] = []
    done = 0
    for start in chosen:
        parts += [plain[done:start], ROLL]
        done = start
    parts.append(plain[done:])
    return "".join(parts)


def _blank_requests(text: str, starts: list[int]) -> str:
    """`text` with the unroll requests of the loops at `starts` blanked: a `#pragma unroll`
    line between the loop and the code before it, a `_Pragma` on its own line."""
    out = list(text)
    for start in starts:
        line_start = text.rfind("\n", 0, start) + 1
        for op in _OPERATOR.finditer(text, line_start, start):
            out[op.start() : op.end()] = " " * (op.end() - op.start())
        end = line_start - 1
        while end > 0:
            begin = text.rfind("\n", 0, end) + 1
            line = text[begin:end]
            if _REQUEST.match(line):
                out[begin : begin + len(line)] = " " * len(line)
            elif line.strip() and not line.strip().startswith("//"):
                break
            end = begin - 1
    return "".join(out)


def has_loops(text: str) -> bool:
    """Whether the text holds a loop statement the variant would roll."""
    return bool(loop_keywords(text))
