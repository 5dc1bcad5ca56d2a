"""What the coalescing and bank-conflict analyses share: the kernel's warp model, its block
shape, the addresses inside loops, and the grouping of findings by source line.

Not an analysis (no `run`). The warp model (`sassview.graph.lanes`) is built once per
inspection, by whichever analysis asks first (`memory_width` asks too: its narrow-access note
is kept for accesses the coalescing analysis does not prove coalesced).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from sassview.analyses.base import AnalysisContext
from sassview.analyses.launches import launched_block
from sassview.graph.lanes import DEFAULT_BLOCK, BlockShape, WarpModel
from sassview.ir import Kernel
from sassview.memo import memoized


def block_shape(ctx: AnalysisContext) -> BlockShape:
    """The block the lanes come from: the caller's (`--block`), else `.reqntid`, else the
    launches in the kernel's own source file (sassview.analyses.launches), else the default
    warp of 32 consecutive threadIdx.x."""
    if ctx.block is not None:
        return ctx.block
    kernel = ctx.kernel
    req = kernel.resources.reqntid or (kernel.ptx.reqntid if kernel.ptx is not None else None)
    if req:
        dims = [*req, 1, 1][:3]
        return BlockShape(dims[0], dims[1], dims[2], ".reqntid")
    return launched_block(ctx) or DEFAULT_BLOCK


def _holder(kernel: Kernel) -> dict[str, Any]:
    """A per-context box the warp analyses keep what they share in (see `ctx.shared`)."""
    return {}


def shared_box(ctx: AnalysisContext) -> dict[str, Any]:
    return ctx.shared(_holder)


def warp_model(ctx: AnalysisContext) -> WarpModel:
    """The kernel's WarpModel, built on first use (with a CFG and loops of its own where the
    context has none, as the analysis tests give)."""
    box = shared_box(ctx)
    model = box.get("model")
    if model is None:
        cfg, loops = ctx.cfg, ctx.loops
        if cfg is None:
            from sassview.graph.cfg import build_cfg
            from sassview.graph.loops import find_loops

            cfg = build_cfg(ctx.kernel.instructions)
            loops = find_loops(cfg, ctx.kernel.instructions)
        box["loops"] = loops
        model = box["model"] = WarpModel(
            ctx.kernel.instructions, cfg, loops, block_shape(ctx), ctx.effects
        )
    return model


def loop_addresses(ctx: AnalysisContext) -> frozenset[int]:
    """Every SASS address inside some loop."""
    box = shared_box(ctx)
    found = box.get("in_loop")
    if found is None:
        warp_model(ctx)
        found = box["in_loop"] = frozenset(a for lp in box["loops"] for a in lp.addresses)
    return found


def index_of(ctx: AnalysisContext) -> dict[int, int]:
    box = shared_box(ctx)
    found = box.get("index")
    if found is None:
        found = box["index"] = {ins.address: n for n, ins in enumerate(ctx.kernel.instructions)}
    return found


def stride_of(lanes: Sequence[int]) -> int | None:
    """The byte distance between consecutive lanes, when one distance holds for all."""
    if len(lanes) < 2:
        return 0
    steps = list(map(operator.sub, lanes[1:], lanes[:-1]))
    return steps[0] if steps.count(steps[0]) == len(steps) else None


@memoized(256)
def lanes_in(mask: int) -> tuple[int, ...]:
    """The lane numbers whose bits are set in `mask` (WarpModel.active's answer)."""
    return tuple(lane for lane in range(32) if mask >> lane & 1)


@memoized(1024)
def _stride_text(stride: int) -> str:
    return "one address for every lane" if stride == 0 else f"lane stride {stride} bytes"


def pattern_text(lanes: Sequence[int], stride: int | None = None) -> str:
    """How the lanes' addresses step, in words: 'lane stride 4 bytes', or for a 2-D warp
    'lane stride 4 bytes for 16 lanes, then +4036'. `stride`: stride_of(lanes), if known."""
    if stride is None:
        stride = stride_of(lanes)
    if stride is not None:
        return _stride_text(stride)
    step = lanes[1] - lanes[0]
    run = next(i for i in range(1, len(lanes)) if lanes[i] - lanes[i - 1] != step)
    return f"lane stride {step} bytes for {run} lanes, then {lanes[run] - lanes[run - 1]:+d}"
