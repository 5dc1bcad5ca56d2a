"""The lane-value rules the warp model's new forms rest on (sassview.graph.lane_values),
checked on values as the model builds them from SASS."""

from __future__ import annotations

import pytest

from sassview.graph.lane_values import (
    LaneValue,
    Unknown,
    add,
    bitwise,
    const,
    nonnegative,
    scale,
    symbol,
)
from sassview.ir import SassInstruction

LANES = LaneValue((), tuple(range(32)))
INS = SassInstruction(0x40, "LOP3", ("LUT",), (), None, False, None, None, (), False, None, ())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (add(symbol("SR_CTAID.X", 256), LANES), True),  # blockIdx.x * 256 + threadIdx.x
        (add(symbol("(ntid.x)*(SR_CTAID.X)@0040"), LANES), True),  # blockDim unknown
        (add(symbol("iteration@0210:R8*(ntid.x)"), LANES), True),  # i += blockDim.x
        (add(symbol("paths@05b0:R9", 128), LANES), True),  # after a loop, run or not
        (add(symbol("steps@0210:R8", 32), LANES), False),  # i -= 32: any count
        (add(symbol("c[0x0][0x220]"), LANES), False),  # a kernel argument: any int
        (add(symbol("SR_CTAID.X", -256), LANES), False),
        (add(symbol("SR_CTAID.X", 256), scale(LANES, -1)), False),  # lanes below zero
    ],
)
def test_an_index_is_known_not_negative_only_from_the_thread_s_place(
    value: LaneValue, expected: bool
) -> None:
    assert nonnegative(value) is expected


def test_a_mask_on_an_aligned_run_time_part_keeps_the_lanes_exact() -> None:
    # WMMA's warp row: (blockIdx.x * 128 + threadIdx.x) >> 1 & 0x7ffffff0. The lanes' part
    # (0..15) is cleared, the run-time part (64 * blockIdx.x) kept but for bit 31: one
    # uniform value, a multiple of 64.
    v = add(symbol("SR_CTAID.X", 64), LaneValue((), tuple(x >> 1 for x in range(32))))
    out = bitwise(0xC0, [v, const(0x7FFFFFF0), const(0)], INS)
    assert isinstance(out, LaneValue) and out.uniform and out.lanes == (0,) * 32
    ((_, coefficient),) = out.terms
    assert coefficient == 64
    # A mask that keeps every bit of it keeps it: (256 * blockIdx.x + lane) & ~31.
    v = add(symbol("SR_CTAID.X", 256), LANES)
    out = bitwise(0xC0, [v, const(0xFFFFFFE0), const(0)], INS)
    assert out == LaneValue((("SR_CTAID.X", 256),), (0,) * 32)
    # Lanes that reach the run-time part's bits (x ^ threadIdx.y, y unknown): unknown.
    out = bitwise(0x3C, [LANES, symbol("SR_TID.Y"), const(0)], INS)
    assert isinstance(out, Unknown) and "SR_TID.Y" in out.reason and "--block" in out.reason
