"""Listings of a kernel as text: what FileCheck reads, what failure messages quote.

The SASS listing looks like nvdisasm's, one instruction a line, so checks written against
nvdisasm or cuobjdump output carry over:

    add_f4:
    .L_x_0:
            /*0170*/  BRA `(.L_x_0) ;  // vecadd.cu:10
            /*00d0*/  LDG.E.128.CONSTANT R12, desc[UR4][R2.64] ;  // vecadd.cu:7

Branch targets get `.L_x_N` labels (N in address order; a CALL's symbol keeps its name), and
each instruction ends in ` ;` and a comment with its source line (inlined code: the line, then
the call sites) and nvdisasm's marks such as SpillRefill. Everything here reads the model; the
same instruction prints the same way in a listing, a slice and a snapshot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePath

from sassview.ir import Kernel, OperandKind, Program, SassInstruction, SourceLoc
from sassview.memo import memoized


class Listing(str):
    """A rendered listing: a str the pytest plugin diffs line by line when a comparison fails."""

    __slots__ = ()


_SYMBOL = re.compile(r"^[$A-Za-z_.][\w$.@]*$")
Rename = Callable[[str], str]  # rewrites register names in an operand's text


def labels(kernel: Kernel) -> dict[int, str]:
    """Branch / call target address -> label name, for targets inside the kernel."""
    inside = {ins.address for ins in kernel.instructions}
    named: dict[int, str] = {}
    numbered: set[int] = set()
    for ins in kernel.instructions:
        t = ins.target
        if t is None or t not in inside:
            continue
        symbol = next(
            (
                op.text
                for op in ins.operands
                if op.kind is OperandKind.OTHER and _SYMBOL.match(op.text)
            ),
            None,
        )
        if symbol is not None and not any(op.kind is OperandKind.LABEL for op in ins.operands):
            named.setdefault(t, symbol)
        else:
            numbered.add(t)
    out = {t: f".L_x_{n}" for n, t in enumerate(sorted(numbered - set(named)))}
    out.update(named)
    return out


def instruction_text(
    ins: SassInstruction, names: dict[int, str], rename: Rename | None = None
) -> str:
    """The instruction as nvdisasm prints it, label operands as `(.L_x_N), registers renamed."""
    ops = []
    for op in ins.operands:
        if op.kind is OperandKind.LABEL and isinstance(op.value, int) and op.value in names:
            ops.append(f"`({names[op.value]})")
        else:
            ops.append(rename(op.text) if rename else op.text)
    body = ins.mnemonic + (" " + ", ".join(ops) if ops else "")
    if ins.guard is None:
        return body
    guard = str(ins.guard)
    return f"@{'!' if ins.guard_negated else ''}{rename(guard) if rename else guard} {body}"


def source_comment(ins: SassInstruction) -> str:
    parts = []
    if ins.source is not None:
        frames = [f"{PurePath(f.file).name}:{f.line}" for f in ins.source.frames()]
        parts.append(frames[0] + (f" (inlined at {', '.join(frames[1:])})" if frames[1:] else ""))
    parts.extend(ins.marks)
    return "  // " + " ".join(parts) if parts else ""


def sass_listing(kernel: Kernel, *, addresses: bool = True, source: bool = True) -> Listing:
    """The kernel's SASS, one instruction a line, with labels (see the module docstring)."""
    names = labels(kernel)
    header = kernel.name + ":"
    if kernel.display_name not in (kernel.name, kernel.name + "()"):
        header += f"  // {kernel.display_name}"
    out = [header]
    width = max(4, len(f"{kernel.instructions[-1].address:x}")) if kernel.instructions else 4
    for ins in kernel.instructions:
        label = names.get(ins.address)
        if label is not None:
            out.append(label + ":")
        where = f"/*{ins.address:0{width}x}*/  " if addresses else ""
        note = source_comment(ins) if source else ""
        out.append(f"        {where}{instruction_text(ins, names)} ;{note}")
    return Listing("\n".join(out) + "\n")


def program_listing(program: Program, *, addresses: bool = True, source: bool = True) -> Listing:
    """Every kernel of a program, in source order (the cubin keeps them in reverse), each
    under its `name:` label, which is what CHECK-LABEL picks a kernel by."""
    return Listing(
        "\n".join(
            sass_listing(k, addresses=addresses, source=source)
            for k in sorted(program.kernels, key=_source_order)
        )
    )


def _source_order(kernel: Kernel) -> tuple[str, int]:
    locs = [i.source.outermost for i in kernel.instructions if i.source is not None]
    first = min(locs, key=lambda loc: (loc.file, loc.line), default=None)
    return (first.file, first.line) if first is not None else ("\uffff", 0)


def ptx_listing(program: Program, kernel: Kernel | None = None) -> tuple[str, int]:
    """(PTX text, number of its first line in the module): the kernel's function, or the whole
    module when no kernel is given. Raises LookupError when the program kept no PTX."""
    ptx = program.artifacts.ptx
    if not ptx:
        raise LookupError(
            f"no PTX for {program.artifacts.source_path or 'this program'} "
            "(a cubin carries only SASS)"
        )
    if kernel is None:
        return ptx, 1
    fn = kernel.ptx or (program.ptx.function(kernel.name) if program.ptx else None)
    if fn is None:
        raise LookupError(f"no PTX function for kernel {kernel.name}")
    lines = ptx.split("\n")
    return "\n".join(lines[fn.start_line - 1 : fn.end_line]) + "\n", fn.start_line


@memoized(64)
def _file_lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8", errors="replace").split("\n"))
    except OSError:
        return ()


def source_line(program: Program, loc: SourceLoc) -> str:
    """The text of a source line, from the compiled source or (a header) from disk; "" if gone."""
    art = program.artifacts
    if art.source_text is not None and art.source_path and loc.file == art.source_path:
        lines: Sequence[str] = art.source_text.split("\n")
    else:
        lines = _file_lines(loc.file)
    return lines[loc.line - 1].strip() if 0 < loc.line <= len(lines) else ""


def render_slice(
    program: Program,
    kernel: Kernel,
    marked: Iterable[int],
    *,
    context: int = 2,
    limit: int = 24,
    windows: int = 8,
) -> str:
    """The instructions around the first `windows` marked addresses, grouped under their source
    lines, every marked one with `>`: the part of the listing a failure message should show."""
    marked = set(marked)
    index = {ins.address: i for i, ins in enumerate(kernel.instructions)}
    keep: set[int] = set()
    for a in sorted(marked)[:windows]:
        if a in index:
            i = index[a]
            keep.update(range(max(0, i - context), min(len(kernel.instructions), i + context + 1)))
    names = labels(kernel)
    out: list[str] = []
    previous: int | None = None
    where: SourceLoc | None = None
    order = sorted(keep)
    for shown, i in enumerate(order):
        if shown >= limit:
            rest = sum(kernel.instructions[j].address in marked for j in order[shown:])
            out.append(f"    ... ({rest} more marked)" if rest else "    ...")
            break
        ins = kernel.instructions[i]
        if previous is not None and i != previous + 1:
            out.append("    ...")
        if ins.source is not None and (where is None or ins.source[:2] != where[:2]):
            where = ins.source
            text = source_line(program, ins.source)
            label = f"{PurePath(ins.source.file).name}:{ins.source.line}"
            out.append(f"  {label}" + (f"  {text}" if text else ""))
        mark = ">" if ins.address in marked else " "
        out.append(f"  {mark} /*{ins.address:04x}*/  {instruction_text(ins, names)} ;")
        previous = i
    return "\n".join(out)
