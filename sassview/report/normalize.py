"""Canonical listings for snapshots: what stays the same when nothing that matters changed.

A snapshot should change when the compiler makes different code, not when it picks R12 instead
of R8, when an instruction moves by 16 bytes, or when a comment line shifts the source. So:

- SASS (`normalize_sass`): addresses dropped; registers renamed per register file in order of
  first appearance (the first R seen becomes R0, the first UR becomes UR0, ...; RZ, URZ, PT,
  UPT stay); branch labels numbered in order (`.L_x_0`, ...); the padding after the last
  instruction (NOPs and the branch-to-self before them) dropped; source comments dropped unless
  asked for.
- PTX (`normalize_ptx`): `.loc`/`.file` lines, comments and blank lines dropped; virtual
  registers renamed per class in order of first appearance (%r12 -> %r0, %rd7 -> %rd0, ...);
  `$L__` labels numbered in order; blanks collapsed.

Immediates, constant-bank offsets, opcodes and modifiers are kept: they are the code.
"""

from __future__ import annotations

import re

from sassview.ir import Kernel, SassInstruction
from sassview.report.listing import Listing, instruction_text, labels, source_comment

_SASS_REGISTER = re.compile(r"(?<![\w.$])(UR|UP|R|P|B)([0-9]+)(?![\w$])")
_PTX_REGISTER = re.compile(r"%([a-z]+)([0-9]+)\b")
_PTX_LABEL = re.compile(r"\$L__\w+")
_PTX_DROP = re.compile(r"^\s*(?:\.loc\b|\.file\b|//|$)")


class _Renamer:
    """First-appearance renaming, one counter per register file (or PTX register class)."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, str], str] = {}
        self.counts: dict[str, int] = {}

    def name(self, file: str, index: str, spell: str = "{file}{n}") -> str:
        key = (file, index)
        found = self.names.get(key)
        if found is None:
            n = self.counts.get(file, 0)
            self.counts[file] = n + 1
            found = self.names[key] = spell.format(file=file, n=n)
        return found


def _padding(instructions: tuple[SassInstruction, ...]) -> int:
    """How many instructions to keep: the trailing NOPs and branch-to-self are padding."""
    keep = len(instructions)
    while keep and instructions[keep - 1].opcode == "NOP":
        keep -= 1
    if keep and keep < len(instructions):
        last = instructions[keep - 1]
        if last.opcode == "BRA" and last.target == last.address:
            keep -= 1
    return keep


def normalize_sass(kernel: Kernel, *, source: bool = False) -> Listing:
    """The kernel's listing in canonical form (see the module docstring)."""
    renamer = _Renamer()

    def rename(text: str) -> str:
        return _SASS_REGISTER.sub(lambda m: renamer.name(m.group(1), m.group(2)), text)

    names = labels(kernel)
    out = [kernel.name + ":"]
    for ins in kernel.instructions[: _padding(kernel.instructions)]:
        label = names.get(ins.address)
        if label is not None:
            out.append(label + ":")
        note = source_comment(ins) if source else ""
        out.append(f"  {instruction_text(ins, names, rename)} ;{note}")
    return Listing("\n".join(out) + "\n")


def normalize_ptx(text: str) -> Listing:
    """A PTX text (a module or one function) in canonical form (see the module docstring)."""
    renamer = _Renamer()
    out = []
    for line in text.split("\n"):
        if _PTX_DROP.match(line):
            continue
        line = line.split("//", 1)[0]
        line = _PTX_REGISTER.sub(
            lambda m: renamer.name("%" + m.group(1), m.group(2)), " ".join(line.split())
        )
        line = _PTX_LABEL.sub(lambda m: renamer.name("$L", m.group(0), "$L__{n}"), line)
        if line:
            out.append(line)
    return Listing("\n".join(out) + "\n")
