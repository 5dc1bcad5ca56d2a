"""Occupancy: how many blocks and warps of a kernel fit on one SM, and which resource decides.

For each kernel and block size it computes what `cudaOccupancyMaxActiveBlocksPerMultiprocessor`
computes, from the cubin alone: the blocks per SM each resource allows —
  registers   REGCOUNT × 32 per warp, rounded up to the 256-register unit, warps spread over
              the four register-file quarters (and 0 when one block cannot fit the 64K limit);
  shared      the kernel's static shared memory + the dynamic memory its launch asks for (when
              the frontend knows it) + the 1 KB the system reserves per block (sm_80 on),
              rounded up to the allocation unit, against the largest carveout;
  warps       resident warps per SM over the block's warps;
  blocks      the per-SM block limit;
  barriers    from sm_90: the block-barrier budget over the kernel's barrier count —
and takes the smallest. Every resource that reaches it is a limiter. The cliffs: the most
registers per thread, and the most shared memory per block, that would let one more block in
with the other resources unchanged (None when another limiter stands in the way).

Block sizes: the user's `--block` (as the memory analyses take it; reported as a launch),
`.reqntid` (exact), the launches in the kernel's own file (`<<<g, dim3(16, 16)>>>`,
analyses/launches.py: when they agree), `.maxntid` / `__launch_bounds__` (the largest the launch
may use: taken as the size), Triton's `num_warps` × 32 (from the compile's metadata); otherwise a
sweep over 64 … 1024 threads. The per-architecture numbers and their sources are in sm_limits.py.

How it can be wrong: the carveout is taken at its largest (what the runtime assumes without a
carveout preference; `carveout_kb` names the smallest that keeps the same blocks); dynamic shared
memory of a CUDA C++ launch is unknown here and counted as 0; on sm_90+ the 1 KB window at the
start of the kernel's shared section is the system's reservation, so it is not added twice;
Hopper/Blackwell kernels that change their register budget per warp group (setmaxnreg) are
counted at the cubin's REGCOUNT, which is what the launch allocates (register_budget.py reads
the split). Theoretical occupancy, not what a profiler measures.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from sassview.analyses.base import AnalysisContext, Findings
from sassview.analyses.launches import launched_block
from sassview.analyses.records import OccupancyFacts, OccupancyPoint
from sassview.analyses.sm_limits import SmLimits, limits_for
from sassview.ir import Kernel

UNLIMITED = 1 << 30  # what a resource the kernel does not use allows
SWEEP = (64, 128, 256, 512, 1024)
RESOURCES = ("registers", "shared", "warps", "blocks", "barriers")


@dataclass(frozen=True, slots=True)
class Usage:
    """What one block of the kernel takes from an SM."""

    threads: int
    registers: int  # per thread
    shared: int  # bytes per block the kernel asks for: static + dynamic, not the reservation
    barriers: int = 0


@dataclass(frozen=True, slots=True)
class Occupancy:
    threads: int
    blocks: int  # resident blocks per SM
    warps: int  # resident warps per SM
    percent: float  # of the SM's warp slots
    limiters: tuple[str, ...]  # every resource whose limit equals `blocks`
    limits: dict[str, int]  # blocks per SM each resource allows (UNLIMITED: not used)
    shared_allocated: int  # bytes per block as the SM allocates them, reservation included
    carveout_kb: int | None  # the smallest carveout that keeps `blocks`; None: none fits
    registers_for_next_block: int | None  # at most this many per thread: one more block
    shared_for_next_block: int | None  # at most this many bytes per block: one more block


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def registers_per_warp(sm: SmLimits, registers: int) -> int:
    """What one warp is allocated: `registers` per thread x 32, rounded up to the unit."""
    return _round_up(registers * sm.warp_size, sm.register_unit)


def _by_registers(sm: SmLimits, registers: int, warps: int) -> int:
    if registers == 0:
        return UNLIMITED
    per_warp = registers_per_warp(sm, registers)
    # The hardware checks a block as if its warps filled every quarter alike.
    if registers > sm.registers_per_thread or (
        per_warp * _round_up(warps, sm.sub_partitions) > sm.registers_per_block
    ):
        return 0
    per_quarter = (sm.registers // sm.sub_partitions) // per_warp
    return per_quarter * sm.sub_partitions // warps


def _shared_allocated(sm: SmLimits, shared: int) -> int:
    return _round_up(shared + sm.shared_reserved, sm.shared_unit)


def _by_shared(sm: SmLimits, shared: int, carveout: int | None = None) -> int:
    allocated = _shared_allocated(sm, shared)
    if allocated > sm.shared_per_block + sm.shared_reserved:
        return 0
    if allocated == 0:
        return UNLIMITED
    return (sm.shared_per_sm if carveout is None else carveout) // allocated


def _limits(sm: SmLimits, use: Usage, *, carveout: int | None = None) -> dict[str, int]:
    warps = -(-use.threads // sm.warp_size)
    fits = 0 < use.threads <= sm.threads_per_block
    barriers = UNLIMITED
    if sm.barriers_per_block_slot and use.barriers:
        barriers = sm.max_blocks * sm.barriers_per_block_slot // use.barriers
    return {
        "registers": _by_registers(sm, use.registers, warps) if fits else 0,
        "shared": _by_shared(sm, use.shared, carveout),
        "warps": sm.max_warps // warps if fits else 0,
        "blocks": sm.max_blocks,
        "barriers": barriers,
    }


def occupancy(sm: SmLimits, use: Usage) -> Occupancy:
    """The occupancy of blocks of `use` on one SM of `sm`: cuda_occupancy.h's arithmetic."""
    limits = _limits(sm, use)
    blocks = min(limits.values())
    warps = blocks * -(-use.threads // sm.warp_size)
    return Occupancy(
        threads=use.threads,
        blocks=blocks,
        warps=warps,
        percent=round(100 * warps / sm.max_warps, 1),
        limiters=tuple(name for name in RESOURCES if limits[name] == blocks),
        limits=limits,
        shared_allocated=_shared_allocated(sm, use.shared),
        carveout_kb=_smallest_carveout(sm, use, blocks),
        registers_for_next_block=_register_cliff(sm, use, blocks, limits),
        shared_for_next_block=_shared_cliff(sm, use, blocks, limits),
    )


def _smallest_carveout(sm: SmLimits, use: Usage, blocks: int) -> int | None:
    if blocks == 0:
        return None
    return next(
        (
            kb
            for kb in sm.carveouts_kb
            if min(_limits(sm, use, carveout=kb * 1024).values()) >= blocks
        ),
        None,
    )


def _register_cliff(sm: SmLimits, use: Usage, blocks: int, limits: dict[str, int]) -> int | None:
    """The most registers per thread with which `blocks + 1` blocks fit, all else unchanged."""
    if blocks == 0 or any(n <= blocks for name, n in limits.items() if name != "registers"):
        return None
    warps = -(-use.threads // sm.warp_size)
    for registers in range(use.registers - 1, 0, -1):
        if _by_registers(sm, registers, warps) > blocks:
            return registers
    return None


def _shared_cliff(sm: SmLimits, use: Usage, blocks: int, limits: dict[str, int]) -> int | None:
    """The most shared bytes per block (static + dynamic) with which one more block fits."""
    if blocks == 0 or any(n <= blocks for name, n in limits.items() if name != "shared"):
        return None
    allocated = sm.shared_per_sm // (blocks + 1) // sm.shared_unit * sm.shared_unit
    shared = allocated - sm.shared_reserved
    return shared if 0 <= shared < use.shared else None


def block_sizes(
    kernel: Kernel, num_warps: int | None = None, launched: int | None = None, given: bool = False
) -> tuple[tuple[int, ...], str]:
    """The block sizes to report and where they come from (`num_warps`: Triton's; `launched`:
    the threads of the block the kernel's own file launches it with, analyses/launches.py, or
    the user's `--block` when `given`: it comes first, as it does for the memory analyses
    (warp.block_shape), and reads as a launch)."""
    res = kernel.resources
    if given and launched:
        return (launched,), "launch"
    if res.reqntid:
        return (math.prod(res.reqntid),), "reqntid"
    if launched:  # what the program does, within what __launch_bounds__ allows
        return (launched,), "launch"
    if res.maxntid:
        return (math.prod(res.maxntid),), "maxntid"
    if num_warps:
        return (num_warps * 32,), "num_warps"
    return SWEEP, "sweep"


def _metadata_warps(ctx: AnalysisContext) -> int | None:
    """Triton's `num_warps`, from the compile's metadata."""
    meta = ctx.program.artifacts.stages.get("metadata")
    if not meta:
        return None
    try:
        value = json.loads(meta).get("num_warps")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value > 0 else None


def usage_of(kernel: Kernel, threads: int) -> Usage:
    res = kernel.resources
    return Usage(threads, res.registers, res.shared_user + (res.shared_dynamic or 0), res.barriers)


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    sm = limits_for(kernel.arch)
    if sm is None:
        return Findings(facts=OccupancyFacts(known=False, arch=kernel.arch, block_source=None))
    given = ctx.block if ctx.block is not None and ctx.block.known else None
    launched = given or launched_block(ctx)
    if launched is not None and not launched.known:  # launches that disagree: no one size
        launched = None
    threads = launched.threads if launched is not None else None
    sizes, source = block_sizes(kernel, _metadata_warps(ctx), threads, given is not None)
    points = [occupancy(sm, usage_of(kernel, n)) for n in sizes]
    where = launched.source if launched is not None else None
    if given is not None:  # the memory rows' block (warp.block_shape): the same words
        where = f"--block {given.x}x{given.y}x{given.z}"
    text = describe(points, source, sm, kernel.resources.registers, where)
    if any(ins.opcode == "USETMAXREG" for ins in kernel.instructions):
        # The launch allocates REGCOUNT for every thread; setmaxnreg only moves registers
        # between the block's warp groups (analyses/register_budget.py), so it changes no limit.
        text += "; registers as launched (setmaxnreg moves them within the block)"
    facts = OccupancyFacts(
        known=True,
        arch=sm.arch,
        block_source=source,
        max_warps=sm.max_warps,
        shared_dynamic_known=kernel.resources.shared_dynamic is not None,
        points=[_point(p) for p in points],
        text=text,
    )
    return Findings(facts=facts)


_SOURCE_WORDS = {
    "reqntid": "reqntid",
    "maxntid": "launch bounds",
    "launch": "as launched",
    "num_warps": "num_warps",
    "sweep": "block size unknown",
}


def describe_point(p: Occupancy, sm: SmLimits, registers: int) -> str:
    """`4 blocks of 256 threads: 32 of 64 warps (50%), limited by registers (64 per thread);
    <= 48 registers -> 5 blocks`: the one wording of an occupancy every view shows."""
    if p.blocks == 0:
        return f"{p.threads} threads: does not fit on an SM ({', '.join(p.limiters)})"
    limit = ", ".join(
        f"registers ({registers} per thread)" if name == "registers" else name
        for name in p.limiters
    )
    text = (
        f"{p.blocks} block{'s' if p.blocks != 1 else ''} of {p.threads} threads: "
        f"{p.warps} of {sm.max_warps} warps ({p.percent:g}%), limited by {limit}"
    )
    if p.registers_for_next_block is not None:
        text += f"; <= {p.registers_for_next_block} registers -> {p.blocks + 1} blocks"
    if p.shared_for_next_block is not None:
        text += f"; <= {p.shared_for_next_block} B shared -> {p.blocks + 1} blocks"
    return text


def describe(
    points: list[Occupancy], source: str, sm: SmLimits, registers: int, where: str | None = None
) -> str:
    """The occupancy line of `sassview check`: the block size's, or the sweep's in brief
    (`where`: the launch the size was read from, "the launch at app.cu:73")."""
    if source == "launch" and where:
        launched = where.replace("the launch", "launched", 1)
        return f"{describe_point(points[0], sm, registers)} (as {launched})"
    if source != "sweep":
        return f"{describe_point(points[0], sm, registers)} ({_SOURCE_WORDS[source]})"
    sweep = ", ".join(  # 0% would read as a launch that runs slowly: it does not run
        f"{p.threads}: {p.percent:g}%"
        if p.blocks
        else f"{p.threads}: cannot launch ({', '.join(p.limiters)})"
        for p in points
    )
    return f"{_SOURCE_WORDS[source]}; threads per block -> occupancy {sweep}"


def _point(p: Occupancy) -> OccupancyPoint:
    return OccupancyPoint(
        threads=p.threads,
        blocks=p.blocks,
        warps=p.warps,
        percent=p.percent,
        limiters=list(p.limiters),
        limits={k: (None if v == UNLIMITED else v) for k, v in p.limits.items()},
        shared_allocated=p.shared_allocated,
        carveout_kb=p.carveout_kb,
        registers_for_next_block=p.registers_for_next_block,
        shared_for_next_block=p.shared_for_next_block,
    )
