"""Kernel parameters by name: `c[0x0][0x224]` is `cols`, so that a run-time stride reads
`lane stride 4*cols bytes` in every view (the facts carry the name; no view renames).

Where a parameter sits comes from the cubin (`Resources.param_offsets`: PARAM_CBANK's base
plus KPARAM_INFO's offset, by ordinal). Its name comes from the PTX `.param` list where that
names it (hand-written PTX); NVRTC and nvcc name every parameter `<kernel>_param_<n>`, so
for those the name is read from the `__global__` definition in the kernel's own source file,
taken only when it lists exactly as many parameters as the PTX. Anything else: no name, and
the `c[0x0][...]` form stays.

A Triton or Gluon kernel's PTX names them `<kernel>_param_<n>` too, and its Python `def` lists
constexprs the PTX does not take; its IR (`tt.func public @colsum(%X: ..., %stride_m: i32)`,
TTIR, else TTGIR) lists the run-time parameters in the PTX's order, after which Triton appends
parameters of its own (global and profile scratch): the IR's names go to the first offsets
(`program_param_names`, which needs the program's stages, not the kernel alone).

How it can be wrong: a source file edited since the compile (the definition read is today's),
or two `__global__` definitions of one name with the same parameter count (overloads): then
the first is read. A parameter pack or a macro-built signature fails the count and is unnamed.
An IR that numbers its arguments (`%arg0`, older Triton) names none.
"""

from __future__ import annotations

import re
from pathlib import Path

from sassview.ir import Kernel, Program

_GENERIC = re.compile(r".*_param_\d+")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_LARGEST_SOURCE = 4 << 20  # bytes: a generated file that large is not read for names
_IR_STAGES = ("ttir", "ttgir", "glir")  # Triton's and Gluon's IR, the parameters named
_IR_ARG = re.compile(r"%([A-Za-z_][\w$.-]*)\s*:")
_NUMBERED = re.compile(r"arg\d+")


def param_names(kernel: Kernel) -> dict[str, str]:
    """{"c[0x0][0x224]": "cols", ...} for each parameter whose name is known."""
    offsets = kernel.resources.param_offsets
    ptx = kernel.ptx.params if kernel.ptx is not None else ()
    if not offsets or len(offsets) != len(ptx):
        return {}
    names = list(ptx)
    if any(_GENERIC.fullmatch(n) for n in names):
        names = _source_names(kernel, len(names)) or []
    return {f"c[0x0][{off:#x}]": name for off, name in zip(offsets, names, strict=False)}


def program_param_names(program: Program, kernel: Kernel) -> dict[str, str]:
    """param_names, or for a Triton or Gluon kernel the names its IR gives the parameters."""
    found = param_names(kernel)
    if found:
        return found
    offsets = kernel.resources.param_offsets
    for stage in _IR_STAGES:
        names = _ir_names(program.artifacts.stages.get(stage) or "", kernel.name)
        if names is not None:
            if not names or len(names) > len(offsets):
                return {}
            return {f"c[0x0][{off:#x}]": name for off, name in zip(offsets, names, strict=False)}
    return {}


def _ir_names(ir: str, kernel: str) -> list[str] | None:
    """The argument names of `tt.func public @kernel(...)` in `ir`; [] where they are numbered
    (`%arg0`); None where the IR has no such function."""
    head = f"tt.func public @{kernel}("
    at = ir.find(head)
    if at < 0:
        return None
    end = ir.find("\n", at)
    line = ir[at + len(head) : end if end >= 0 else len(ir)]
    names = _IR_ARG.findall(line.split(") attributes", 1)[0])
    return [] if any(_NUMBERED.fullmatch(n) for n in names) else names


def named(text: str, names: dict[str, str]) -> str:
    """`text` with each parameter's constant-bank operand replaced by its name."""
    for operand, name in names.items():
        text = text.replace(operand, name)
    return text


def _source_names(kernel: Kernel, count: int) -> list[str] | None:
    files = {loc.outermost.file for loc in kernel.correspondence.sass_source.values()}
    bare = kernel.names()[3]
    for file in sorted(files):
        found = _signature_in(file, bare, count)
        if found is not None:
            return found
    return None


def _signature_in(file: str, bare: str, count: int) -> list[str] | None:
    path = Path(file)
    try:
        if not path.is_file() or path.stat().st_size > _LARGEST_SOURCE:
            return None
        text = path.read_text(errors="replace")
    except OSError:
        return None
    head = re.compile(r"__global__[^;{}()]*?\b" + re.escape(bare) + r"\s*\(")
    for match in head.finditer(text):
        names = _parameter_names(text, match.end())
        if names is not None and len(names) == count:
            return names
    return None


def _parameter_names(text: str, start: int) -> list[str] | None:
    """The names in the parameter list that opens at text[start - 1] ('('), or None."""
    depth, parts, begin = 0, [], start
    for i in range(start, min(len(text), start + 4096)):
        ch = text[i]
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}" and depth:
            depth -= 1
        elif ch == ")":
            parts.append(text[begin:i])
            break
        elif ch == "," and depth == 0:
            parts.append(text[begin:i])
            begin = i + 1
    else:
        return None
    names = []
    for part in parts:
        part = _COMMENT.sub(" ", part)
        declarator = part.split("=", 1)[0].split("[", 1)[0]
        idents = _IDENT.findall(declarator)
        if len(idents) < 2:  # a type alone: an unnamed parameter
            return None
        names.append(idents[-1])
    return names
