"""Code a warp runs only when it arrives diverged.

SASS, sm_70 and later. Where ptxas cannot prove that every lane of a warp-synchronous
sequence's mask is converged (`__shfl_*_sync`, `__reduce_*_sync`, cooperative groups' tile
`reduce` and `shfl`, inside a lane-dependent branch or a tile narrower than the warp), it
guards the fast sequence with `BRA.DIV mask, L`. The branch is taken when the warp is
diverged, to a second copy at L that ptxas lays out after the kernel's EXIT: each step
synchronised (`WARPSYNC.COLLECTIVE` ... `ENDCOLLECTIVE`, or on sm_80 a `CALL.REL` of ptxas'
own `__cuda_sm70_shflsync_*` subroutine), then a `BRA` back into the fast path after the step
it replaces. `BRA.CONV` is the same choice the other way round: taken when converged, the
slow path is its fall-through. A fallback is the blocks that only its branch leads to (those
its first block dominates, over jumps and fall-throughs), so it ends where it rejoins the
fast path. The two copies are one source statement run two ways, not two iterations.

ptxas' own subroutines (the shuffle helpers above, the division slow path) have no line rows
of their own: the model gives their instructions no source line (parse/sass_text), so no view
reads them as the code before them.

How it can be wrong: a BRA.DIV whose target is also reached another way is no fallback here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sassview.graph.cfg import ControlFlowGraph, EdgeKind
from sassview.graph.dominators import reachable
from sassview.ir import SassInstruction


@dataclass(frozen=True, slots=True)
class Fallback:
    """One diverged-warp copy: the branch choosing it and the blocks only it leads to."""

    branch: int  # address of the BRA.DIV (or BRA.CONV)
    first_address: int  # of the fallback's first instruction
    blocks: frozenset[int]
    instructions: tuple[int, ...]  # indices into the kernel's instruction sequence


def fallbacks(
    cfg: ControlFlowGraph, instructions: Sequence[SassInstruction]
) -> tuple[Fallback, ...]:
    """The diverged-warp copies of a kernel, in the order of their branches."""
    blocks = cfg.blocks
    succ: dict[int, list[int]] = {b.index: [] for b in blocks if b.reachable}
    preds: dict[int, set[int]] = {k: set() for k in succ}
    ways: dict[int, dict[EdgeKind, int]] = {}  # block -> its successor by each kind of edge
    roots = {cfg.entry}
    for e in cfg.edges:
        if e.src in succ and e.dst in succ:
            if e.kind in (EdgeKind.FALLTHROUGH, EdgeKind.TAKEN):
                succ[e.src].append(e.dst)
                preds[e.dst].add(e.src)
                ways.setdefault(e.src, {})[e.kind] = e.dst
            elif e.kind is EdgeKind.CALL:
                roots.add(e.dst)  # a subroutine is entered by its calls: its own start
    starts: dict[int, int] = {}  # first block of a fallback -> block of its branch
    for k, way in ways.items():
        ins = instructions[blocks[k].last]
        if ins.opcode != "BRA" or len(set(way.values())) != 2:
            continue
        if "DIV" in ins.modifiers:
            start = way[EdgeKind.TAKEN]  # taken when diverged
        elif "CONV" in ins.modifiers:
            start = way[EdgeKind.FALLTHROUGH]  # taken when converged
        else:
            continue
        if preds[start] == {k} and start not in roots:
            starts[start] = k
    if not starts:
        return ()
    # Blocks reached without passing through any fallback's start: no fallback holds them.
    common = reachable(succ, roots, avoid=starts)
    found = []
    for start, branch in sorted(starts.items(), key=lambda s: blocks[s[1]].start):
        own = reachable(succ, start, avoid=common)
        indices = tuple(i for k in sorted(own) for i in range(blocks[k].first, blocks[k].last + 1))
        found.append(
            Fallback(
                branch=instructions[blocks[branch].last].address,
                first_address=blocks[start].start,
                blocks=frozenset(own),
                instructions=indices,
            )
        )
    return tuple(found)


__all__ = ["Fallback", "fallbacks"]
