"""`assert_occupancy`: enough warps (or blocks, or percent) of the kernel fit on one SM.

Reads the occupancy analysis (sassview.analyses.occupancy) and quotes its one wording of the
result, with the resource that limits it and the cliff: how many registers per thread, or bytes
of shared memory per block, would let one more block in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sassview.analyses.occupancy import Occupancy, describe_point, occupancy, usage_of
from sassview.analyses.records import OccupancyFacts
from sassview.analyses.sm_limits import limits_for
from sassview.testing.failures import SassviewAssertionError, compose

if TYPE_CHECKING:
    from sassview.testing.subject import Subject


class OccupancyTooLow(SassviewAssertionError):
    """Fewer warps, blocks or percent of an SM than the test asks for (or none known)."""


def check_occupancy(
    k: Subject,
    *,
    min_warps: int | None,
    min_blocks: int | None,
    min_percent: float | None,
    threads: int | None,
) -> None:
    __tracebackhide__ = True
    asked = [
        f"{word} >= {bound}"
        for word, bound in (("warps", min_warps), ("blocks", min_blocks), ("%", min_percent))
        if bound is not None
    ]
    sm = limits_for(k.arch)
    if sm is None:
        raise OccupancyTooLow(
            compose(
                f"{k.describe()}: no occupancy table for {k.arch}",
                expected=", ".join(asked),
                hint="sassview/analyses/sm_limits.py lists the architectures it knows",
            )
        )
    facts = k.typed_facts(OccupancyFacts)
    if threads is None and facts.block_source == "sweep":
        raise OccupancyTooLow(
            compose(
                f"{k.describe()}: the block size is unknown (no .reqntid, launch bounds or "
                "num_warps)",
                expected=", ".join(asked),
                found=facts.text,
                hint="pass threads= to assert_occupancy, or give the kernel __launch_bounds__",
            )
        )
    size = threads if threads is not None else facts.points[0].threads
    point: Occupancy = occupancy(sm, usage_of(k.kernel, size))
    short = [
        text
        for text, bound, value in (
            (f"warps >= {min_warps}", min_warps, point.warps),
            (f"blocks >= {min_blocks}", min_blocks, point.blocks),
            (f"occupancy >= {min_percent}%", min_percent, point.percent),
        )
        if bound is not None and value < bound
    ]
    if short:
        raise OccupancyTooLow(
            compose(
                f"{k.describe()}: occupancy below {', '.join(short)} per SM",
                expected=", ".join(asked) + f" with {size} threads per block",
                found=describe_point(point, sm, k.resources.registers),
            )
        )
