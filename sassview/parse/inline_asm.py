"""The source line of code inside inline asm: the asm statement's own, not LLVM's offset.

LLVM (the backend of Triton and the CuTe DSL) writes a `.loc` before lines of an inline-asm
string, numbered from the asm statement's `.loc`: the k-th line of the string gets line + k,
same file and column. In a kernel.py those lines belong to nothing in the asm: they fall on
comments, blank lines or the next statements. (hopper_gemm.py: `consumer_wait` at line 149 is an
mbarrier wait loop whose lines showed at 151-155, on a comment and on `consumer_release`.)
ptxas copies them into the cubin's line table, so the SASS of the asm carries them too.
Triton's asm goes the same way when it has more than one line: the Triton frontend gives
every `.loc` of a block the block's first before ptxas runs
(`frontends.triton.collapse_inline_asm_locs`), but that first one may be an offset too (the
wgmma wait starts with a comment line, so it shows on the line after `tl.dot`). NVRTC writes no
`.loc` inside inline asm. The rule below moves only a line past the statement's, in its
file, by less than the block's length; code up to the next `.loc` after a block goes back too,
as the block's last `.loc` holds there.

The blocks are found in the PTX text by the comments NVVM and LLVM put around inline asm,
`// begin inline asm` and `// end inline asm`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence

from sassview.ir import AsmBlock, SourceLoc

BEGIN = "// begin inline asm"
_END = "// end inline asm"
# What moves the `.loc` in force between blocks: a `.loc` (file, line, column) outside a
# block, a function header (no `.loc` is in force at its start), and the two block comments.
_MARKS = re.compile(
    r"^[ \t]*\.loc[ \t]+([0-9]{1,20})[ \t]+([0-9]{1,20})(?:[ \t]+([0-9]{1,20}))?"
    r"|^[ \t]*(?:\.(?:visible|extern|weak)[ \t]+)*\.(?:entry|func)\b"
    rf"|{re.escape(BEGIN)}|{re.escape(_END)}",
    re.MULTILINE,
)


def asm_blocks(ptx: str, files: Mapping[int, str]) -> list[AsmBlock]:
    """The blocks of `ptx` that have a `.loc` in force at their start, in line order; `files`
    is the module's `.file` table."""
    if BEGIN not in ptx:
        return []
    blocks: list[AsmBlock] = []
    loc: tuple[int, int] | None = None  # (file id, line) of the statement `.loc` in force
    begun = 0  # line of the open block's BEGIN
    ended: tuple[int, int] | None = None  # (first, last) of a block whose reach is not known
    line, pos = 1, 0

    def close(reach: int) -> None:
        nonlocal ended
        if ended is not None and loc is not None and loc[0] in files:
            blocks.append(AsmBlock(*ended, files[loc[0]], loc[1], reach))
        ended = None

    for mark in _MARKS.finditer(ptx):
        line += ptx.count("\n", pos, mark.start())
        pos = mark.start()
        text = mark.group()
        if text == BEGIN:
            close(line)
            begun = line
        elif text == _END:
            ended, begun = ((begun, line) if begun else None), 0
        elif mark.group(1) is None:  # a function header
            close(line)
            loc, begun = None, 0
        elif not begun:  # inside a block: LLVM's offsets, not the statement's line
            close(line)
            loc = (int(mark.group(1)), int(mark.group(2)))
    close(line + ptx.count("\n", pos) + 1)
    return blocks


class CallSites:
    """The blocks of one module, looked up by PTX line."""

    def __init__(self, blocks: Sequence[AsmBlock]) -> None:
        self.blocks = blocks
        self.firsts = [b.first for b in blocks]

    def __bool__(self) -> bool:
        return bool(self.blocks)

    def at(self, ptx_line: int) -> AsmBlock | None:
        i = bisect_right(self.firsts, ptx_line) - 1
        if i >= 0 and ptx_line < self.blocks[i].reach:
            return self.blocks[i]
        return None

    def inside(self, ptx_line: int) -> bool:
        """Whether `ptx_line` is inside a block (between its two comments)."""
        block = self.at(ptx_line)
        return block is not None and block.first < ptx_line < block.last

    def fix(self, loc: SourceLoc | None, ptx_line: int | None) -> SourceLoc | None:
        """The source of code at `ptx_line`, with an offset line inside a block put back."""
        if loc is None or ptx_line is None:
            return loc
        block = self.at(ptx_line)
        return loc if block is None else block.call_site(loc)
