"""What the census measures, on either side of ptxas: the SASS listing (`sass_listing`) or
NVVM's PTX (`ptx_listing`), each with its CFG, its loops, its weights and where each of its
instructions comes from. Apart from the measuring because the two sides differ only here: the
SASS side gives each instruction the inline chain of the PTX instruction it came from
(`chained_sources`) and sets aside the code that is placed but never counted (`_uncounted`:
a diverged warp's fallback copy, scheduling hints; ptxas' own subroutines have no source
line in the model, parse/sass_text), so the measuring reads one record and never asks which
side it is on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sassview.analyses.base import AnalysisContext
from sassview.analyses.loops.files import SourceFiles
from sassview.analyses.loops.weights import ptx_weight, weight
from sassview.graph.cfg import ControlFlowGraph, build_ptx_cfg
from sassview.graph.divergence import Fallback, fallbacks
from sassview.graph.loops import Loop, find_ptx_loops, loop_candidates
from sassview.ir import Kernel, PtxInstruction, SassInstruction, SourceLoc


@dataclass(frozen=True, slots=True)
class Listing:
    """What the census measures: the SASS (ptxas' side) or the PTX (NVVM's side)."""

    instructions: Sequence[SassInstruction] | Sequence[PtxInstruction]
    cfg: ControlFlowGraph
    loops: tuple[Loop, ...]
    weight: Callable[[Any], tuple[int, int]]
    # The source locations that may name a loop's statement, best first (SASS: the back-edge
    # compare's; PTX: none, the deepest entry holding the loop's code decides).
    candidates: Callable[[Loop], list[SourceLoc]]
    # The PTX line of each instruction (SASS: the one it came from), to tell inline asm's code
    ptx_lines: Sequence[int | None] = ()
    # Each instruction's location with its inline chain (SASS: see `chained_sources`)
    sources: Sequence[SourceLoc | None] = ()
    # Instructions that are no copy of their statement (`_uncounted`): placed, never counted
    uncounted: frozenset[int] = frozenset()
    # The diverged-warp copies (SASS: graph/divergence.py), named on the entry holding them
    fallbacks: tuple[Fallback, ...] = ()


def sass_listing(ctx: AnalysisContext, files: SourceFiles) -> Listing:
    ins = ctx.kernel.instructions
    # Most big kernels are straight-line code of a source with no loop statement at all.
    looped = any(files.loops(f) for f in files.names)
    diverged = fallbacks(ctx.cfg, ins) if looped else ()
    return Listing(
        ins,
        ctx.cfg,
        ctx.loops,
        weight,
        lambda lp: loop_candidates(lp, ctx.cfg, ins),
        [i.ptx_line for i in ins],
        ctx.shared(chained_sources),
        _uncounted(ins, diverged) if looped else frozenset(),
        diverged,
    )


# ptxas' scheduling hints and padding: their line is whatever row was in force (a YIELD in a
# histogram's atomic loop named the line of the loop before it, which hid the loop).
_HINTS = frozenset(("YIELD", "NOP"))


def _uncounted(ins: Sequence[SassInstruction], diverged: tuple[Fallback, ...]) -> frozenset[int]:
    """Instructions no copy of their statement: a diverged warp's second copy of code the
    fast path holds (cooperative groups' `reduce` in a branch: 5 shuffle steps, and 5 again
    after the EXIT), scheduling hints. They still make their statement's entry, but neither
    place a SASS loop nor count as copies."""
    out = {i for f in diverged for i in f.instructions}
    out.update(i for i, x in enumerate(ins) if x.opcode in _HINTS)
    return frozenset(out)


def chained_sources(kernel: Kernel) -> list[SourceLoc | None]:
    """Each SASS instruction's location, with the inline chain of the PTX instruction it came
    from where ptxas' line table gives another: ptxas names the code of a helper inlined at two
    call sites (or two instantiations of one template) by the first site's chain, the PTX's
    `.loc ... inlined_at` tells them apart. Only where the innermost line agrees: with the file
    too, the call sites are the PTX's; with another file, the whole location is (ptxas starts
    a row of its line table where the line number changes, not the file: a header's loop at
    line 4 inlined at a call on line 4 of the main file reads as the call's line, its chain
    lost). Read through `AnalysisContext.shared`: computed once per kernel."""
    ptx = kernel.ptx
    by_line = {p.line: p.source for p in ptx.instructions if p.source} if ptx else {}
    mma_lines = _mma_lines(kernel)
    out: list[SourceLoc | None] = []
    for n, i in enumerate(kernel.instructions):
        src = i.source
        if n in mma_lines and (moved := by_line.get(mma_lines[n])) is not None:
            out.append(_plain_chain(moved))
            continue
        there = by_line.get(i.ptx_line) if i.ptx_line is not None else None
        if src is not None and there is not None and there.line == src.line:
            src = _from_ptx(src, there)
        out.append(src)
    return out


def _from_ptx(src: SourceLoc, there: SourceLoc) -> SourceLoc:
    """`src` (ptxas' row) with what the PTX's `.loc` of the same line says instead."""
    if there.file != src.file:  # a row ptxas did not start: the PTX's place, its own chain
        return SourceLoc(there.file, there.line, src.column, _plain(there.inlined_at))
    if there.inlined_at is not None and _sites(there) != _sites(src):
        return src._replace(inlined_at=_plain(there.inlined_at))
    return src


def _mma_lines(kernel: Kernel) -> dict[int, int]:
    """SASS index -> PTX line, for the MMA instructions ptxas' line table gives the line of
    another PTX instruction (the first HGMMA of a tile given the line of a descriptor add of
    the next k-step, so its k-step read as one of the loop's; or each HGMMA of a tile the
    line of the one after it). wgmma issue in PTX order (ptxas does not reorder them; it
    interleaves independent mma.sync chains), so where the SASS holds as many HGMMA as the
    PTX wgmma (ptxas copied none), the n-th in address order is the n-th PTX one; else each
    MMA off the PTX's MMA lines takes the one such line no other SASS MMA came from between
    the PTX lines of the MMAs before and after it. Left as they are where none or several
    fit."""
    from sassview.analyses.tensor_cores import path_of

    ptx = kernel.ptx
    if ptx is None:
        return {}
    lines = sorted(p.line for p in ptx.instructions if _ptx_mma(p))
    mmas = [(n, i.ptx_line) for n, i in enumerate(kernel.instructions) if path_of(i.opcode)]
    if not lines or not mmas:
        return {}
    ordered = all(path_of(kernel.instructions[n].opcode) == "wgmma" for n, _ in mmas)
    if ordered and len(lines) == len(mmas):
        return {n: want for (n, line), want in zip(mmas, lines, strict=True) if line != want}
    return _free_mma_lines(lines, mmas)


def _free_mma_lines(lines: list[int], mmas: list[tuple[int, int | None]]) -> dict[int, int]:
    from bisect import bisect_left, bisect_right

    known = set(lines)
    taken = {line for _, line in mmas if line in known}
    out: dict[int, int] = {}
    for at, (n, line) in enumerate(mmas):
        if line in known:
            continue
        before = next((ln for _, ln in reversed(mmas[:at]) if ln in known), None)
        after = next((ln for _, ln in mmas[at + 1 :] if ln in known), None)
        lo = bisect_right(lines, before) if before is not None else 0
        hi = bisect_left(lines, after) if after is not None else len(lines)
        free = [ln for ln in lines[lo:hi] if ln not in taken]
        if len(free) == 1:
            out[n] = free[0]
            taken.add(free[0])
    return out


def _ptx_mma(p: PtxInstruction) -> bool:
    """A PTX tensor-core MMA: mma.sync, wgmma.mma_async, tcgen05.mma."""
    first = p.modifiers[0] if p.modifiers else ""
    return (
        p.opcode == "mma"
        or (p.opcode == "wgmma" and first == "mma_async")
        or (p.opcode == "tcgen05" and first.startswith("mma"))
    )


def _plain_chain(loc: SourceLoc) -> SourceLoc:
    return SourceLoc(loc.file, loc.line, loc.column, _plain(loc.inlined_at))


def _sites(loc: SourceLoc) -> tuple[tuple[str, int], ...]:
    return tuple((f.file, f.line) for f in loc.frames())[1:]


def _plain(loc: SourceLoc | None) -> SourceLoc | None:
    """A chain of call sites without columns (ptxas' line table has none: pairs stay equal)."""
    if loc is None:
        return None
    return SourceLoc(loc.file, loc.line, 0, _plain(loc.inlined_at))


def ptx_listing(ctx: AnalysisContext) -> Listing | None:
    function = ctx.kernel.ptx
    if function is None or not function.instructions:
        return None
    cfg = build_ptx_cfg(function)
    return Listing(
        function.instructions,
        cfg,
        find_ptx_loops(cfg, function),
        ptx_weight,
        lambda lp: [],
        [i.line for i in function.instructions],
    )
