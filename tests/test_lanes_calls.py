"""Calls in the warp model (sassview.graph.lane_calls): each return site paired with its own
CALL, on the recorded softmax (tests/data/analyses/sources/real_app.cu), whose `/ s` calls the
float division slow path from the remainder copy of its last loop and from each of the 4
unrolled copies."""

from __future__ import annotations

from analyses_data import program

from sassview.graph.cfg import build_cfg
from sassview.graph.lane_calls import Body, return_sites
from sassview.graph.lane_values import BlockShape
from sassview.graph.lanes import LaneValue, Unknown, WarpModel
from sassview.graph.loops import find_loops

SOFTMAX = "_Z12softmax_rowsILi256EEvPKfPfi"


def softmax() -> tuple[WarpModel, list[int]]:
    k = program("recorded", "real_app", "sm_90a").kernel(SOFTMAX)
    cfg = build_cfg(k.instructions)
    model = WarpModel(k.instructions, cfg, find_loops(cfg, k.instructions), BlockShape(256, 1, 1))
    return model, [cfg.blocks[b].first for b in sorted(return_sites(cfg))]


def test_each_return_site_is_paired_with_its_own_call() -> None:
    k = program("recorded", "real_app", "sm_90a").kernel(SOFTMAX)
    cfg = build_cfg(k.instructions)
    sites = return_sites(cfg)
    assert len(sites) == 5  # the remainder copy and the 4 unrolled ones
    body = Body(cfg)
    (subroutine,) = {site.subroutine for site in sites.values()}  # one slow path
    for b, site in sites.items():
        call = k.instructions[cfg.blocks[site.call].last]
        assert call.opcode == "CALL" and site.call == b - 1
        # The call, and a branch around it where there is one: not the RET (whose edges lead
        # to every call's return site).
        assert site.call in body.predecessors(b)
        assert not site.returns & set(body.predecessors(b))
        assert site.returns <= set(cfg.blocks[b].predecessors)
        assert not subroutine & {b, site.call}
        assert body.successors()[site.call] == (b,)


def test_a_register_the_subroutine_does_not_write_comes_from_the_call() -> None:
    model, firsts = softmax()
    # R10 (the row pointer of the remainder copy) is not the slow path's: at the first return
    # site it is the calling block's, a lane stride of 4 bytes; R19 is the quotient the slow
    # path returns: not followed, and said so.
    first = firsts[0]
    pointer = model.before("R10", first)
    assert isinstance(pointer, LaneValue)
    assert {b - a for a, b in zip(pointer.lanes, pointer.lanes[1:], strict=False)} == {4}
    quotient = model.before("R19", first)
    assert isinstance(quotient, Unknown)
    assert "written by the subroutine called at /*22a0*/" in quotient.reason
