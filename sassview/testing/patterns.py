"""Opcode patterns: how a test names the instructions it counts.

A pattern is matched against an instruction's whole mnemonic (opcode and modifiers, as nvdisasm
prints them: `LDG.E.128.CONSTANT`), case-sensitively:

- `*` matches any run of characters, dots included: `LDG.E.128*` matches LDG.E.128 and
  LDG.E.128.CONSTANT; `HGMMA.64x*` every HGMMA with M=64; `*.128*` any 128-bit access.
- `?` matches one character: `HMMA.1688?F32*` (rarely needed).
- A pattern without `*`, `?` or `.` names an opcode and matches it with any modifiers: `LDG`
  counts LDG, LDG.E and LDG.E.128 alike. Write `LDG.E` for exactly LDG.E.
"""

from __future__ import annotations

import re

from sassview.ir import SassInstruction
from sassview.memo import memoized


@memoized(1024)
def compile_opcode_pattern(pattern: str) -> re.Pattern[str]:
    if not pattern or any(c.isspace() for c in pattern):
        raise ValueError(f"opcode pattern {pattern!r}: expected e.g. 'LDG.E.128*' or 'HGMMA.64x*'")
    if not any(c in pattern for c in "*?."):
        return re.compile(re.escape(pattern) + r"(?:\..*)?")
    parts = []
    for c in pattern:
        parts.append(".*" if c == "*" else "." if c == "?" else re.escape(c))
    return re.compile("".join(parts))


def matches(pattern: str, ins: SassInstruction) -> bool:
    return compile_opcode_pattern(pattern).fullmatch(ins.mnemonic) is not None


def opcode_of(pattern: str) -> str:
    """The opcode a pattern names, when it names one (LDG for LDG.E.128*), else ""."""
    head = pattern.split(".", 1)[0]
    return "" if any(c in head for c in "*?") else head
