"""Calls in the warp model: a register's value after a `CALL` is its value before the call
when the subroutine does not write it.

Its own module because it is a fact of the control-flow graph that the graph does not state:
`sassview.graph.cfg` gives a RET a RETURN edge to the block after every CALL of its
subroutine, so a definition reaching one call's return site may come from another call site
(a path no execution takes) and, where the subroutine is called from inside a loop and from
after it, make a cycle that is no loop. ptxas places such subroutines after the kernel body:
the division slow path of `a / b` on floats (`__internal_0_$__cuda_sm3x_div_rn_noftz_f32_
slowpath`), called from each copy of an unrolled softmax loop. Here each return site is paired
with its own call: the warp model (`sassview.graph.lanes`) takes a register at a return site
from the end of the calling block alone (the CALL block's FALLTHROUGH edge), and says unknown
where the subroutine writes it (its value after the call is not followed); the active lanes
(`sassview.graph.lane_guards`) enter a return site with the calling block's lanes.

Computed here from the CFG's edges, not changed in it (the loop finder and the liveness read
the CFG as it is).

How it can be wrong: a subroutine that leaves by a branch into the kernel body instead of RET
is not one (its blocks reach the call block: then no return site is paired and the CFG's edges
stand); a subroutine's writes are those of its instructions, guarded or not, and of the
subroutines it calls in turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from sassview.graph.cfg import EdgeKind
from sassview.graph.dominators import immediate_dominators, reachable

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph


class ReturnSite(NamedTuple):
    """The block after a CALL, paired with its call."""

    call: int  # the calling block (its last instruction the CALL)
    returns: frozenset[int]  # the RET blocks whose RETURN edges reach the site
    subroutine: frozenset[int]  # the blocks the call may run (nested calls included)


def return_sites(cfg: ControlFlowGraph) -> dict[int, ReturnSite]:
    """Every return site of the kernel's CFG, by block; {} for a kernel without calls."""
    returns: dict[int, set[int]] = {}
    calls: dict[int, int] = {}  # calling block -> the subroutine's first block
    within: dict[int, list[int]] = {}  # block -> its successors by edges other than RETURN
    for e in cfg.edges:
        if e.kind is EdgeKind.RETURN:
            returns.setdefault(e.dst, set()).add(e.src)
            continue
        if e.kind is EdgeKind.CALL:
            calls[e.src] = e.dst
        within.setdefault(e.src, []).append(e.dst)
    if not returns:
        return {}
    out: dict[int, ReturnSite] = {}
    for site, rets in returns.items():
        call = site - 1
        target = calls.get(call)
        if target is None or site not in cfg.blocks[call].successors:
            continue
        body = reachable(within, target)  # without RETURN edges
        if call in body or site in body:  # not a subroutine that returns by RET alone
            continue
        out[site] = ReturnSite(call, frozenset(rets), frozenset(body))
    return out


class Body:
    """The kernel body's control flow with each paired call taken as a step from the calling
    block to its return site (the CALL and RETURN edges of paired calls left out), and its
    post-dominators; computed on first use. Without calls, the CFG's own edges."""

    def __init__(self, cfg: ControlFlowGraph) -> None:
        self._cfg = cfg
        self._sites: dict[int, ReturnSite] | None = None
        self._pred: dict[int, tuple[int, ...]] = {}
        self._succ: dict[int, tuple[int, ...]] | None = None
        self._ipdom: dict[int, int] | None = None

    @property
    def sites(self) -> dict[int, ReturnSite]:
        if self._sites is None:
            self._sites = return_sites(self._cfg)
        return self._sites

    def predecessors(self, b: int) -> tuple[int, ...]:
        preds = self._cfg.blocks[b].predecessors
        site = self.sites.get(b)
        if site is None:
            return preds
        found = self._pred.get(b)
        if found is None:
            found = self._pred[b] = tuple(p for p in preds if p not in site.returns)
        return found

    def successors(self) -> dict[int, tuple[int, ...]]:
        """Every block's successors in the body (a paired call block: its return site)."""
        if self._succ is not None:
            return self._succ
        sites = self.sites
        calls = {site.call: b for b, site in sites.items()}
        rets = {r for site in sites.values() for r in site.returns}
        succ: dict[int, tuple[int, ...]] = {}
        for block in self._cfg.blocks:
            b = block.index
            if b in calls:
                succ[b] = (calls[b],)
            elif b in rets:
                succ[b] = tuple(s for s in block.successors if s not in sites)
            else:
                succ[b] = block.successors
        self._succ = succ
        return succ

    def post_dominator(self, b: int) -> int | None:
        """The immediate post-dominator of block b in the body (None: the exit, or a block
        from which no path leaves the kernel, as a `BRA self` trap)."""
        if self._ipdom is None:
            exit_ = -1
            back: dict[int, list[int]] = {exit_: []}
            for src, dsts in self.successors().items():
                back.setdefault(src, [])
                if not dsts:
                    back[exit_].append(src)
                for d in dsts:
                    back.setdefault(d, []).append(src)
            self._ipdom = immediate_dominators(back, exit_)
        found = self._ipdom.get(b)
        return None if found is None or found < 0 else found
