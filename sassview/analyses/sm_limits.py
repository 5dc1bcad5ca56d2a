"""What one SM of each architecture holds: the table the occupancy analysis divides by.

Two NVIDIA sources, both cited per field below:
- the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" (resident
  warps and threads per SM, registers per SM / block / thread, shared memory per SM and the
  per-block opt-in maximum, the 1 KB the system reserves per block from compute capability 8.0),
  and the Ampere / Hopper tuning guides for the shared-memory carveouts;
- `cuda_occupancy.h` as shipped in the CUDA 13 toolkit (the `nvidia-cuda-runtime` wheel), the
  calculator behind `cudaOccupancyMaxActiveBlocksPerMultiprocessor`'s documented arithmetic:
  resident blocks per SM (`cudaOccMaxBlocksPerMultiprocessor`), the register allocation unit
  and its per-warp granularity (`cudaOccRegAllocationGranularity`: 256 registers), four
  register-file sub-partitions (`cudaOccSubPartitionsPerMultiprocessor`), the shared-memory
  allocation unit (`cudaOccSMemAllocationGranularity`: 128 bytes from 8.x, 256 before), the
  carveout sizes (`cudaOccAlignUpShmemSizeVoltaPlus`) and the block-barrier budget from 9.0
  (`cudaOccMaxBlocksPerSMBlockBarrierLimit`: 2 per resident block on 9.0 and 10.0, 1 on the
  others).

Only architectures both sources describe are here: sm_75, sm_80, sm_86, sm_87, sm_89, sm_90,
sm_100, sm_103, sm_120, sm_121. sm_110 (Thor) is left out: the header has its block and barrier
counts, but the guide's row for it was not checked. Family suffixes (`a`, `f`) do not change
any of these numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

KB = 1024


@dataclass(frozen=True, slots=True)
class SmLimits:
    sm: int  # 90 for sm_90 / sm_90a
    max_warps: int  # resident warps per SM (guide)
    max_blocks: int  # resident blocks per SM (cuda_occupancy.h)
    shared_per_sm: int  # bytes, the largest carveout (guide)
    shared_per_block: int  # bytes a block may opt in to, not counting the reserved (guide)
    carveouts_kb: tuple[int, ...]  # shared-memory sizes an SM can be configured to (header)
    barriers_per_block_slot: int  # block barriers per resident-block slot, from 9.0 (header)
    shared_reserved: int = KB  # per block, by the system (guide: 1 KB from 8.0; 0 on 7.5)
    registers: int = 64 * KB  # 32-bit registers per SM (guide, every row)
    registers_per_block: int = 64 * KB  # (guide)
    registers_per_thread: int = 255  # (guide)
    register_unit: int = 256  # registers, allocated per warp (header)
    sub_partitions: int = 4  # register file quarters a warp's registers come from (header)
    shared_unit: int = 128  # bytes (header: 128 from 8.x)
    threads_per_block: int = 1024  # (guide)
    warp_size: int = 32

    @property
    def arch(self) -> str:
        return f"sm_{self.sm}"


_AMPERE_100 = (0, 8, 16, 32, 64, 100)  # 8.6, 8.9, 12.x
_AMPERE_164 = (*_AMPERE_100, 132, 164)  # 8.0, 8.7
_HOPPER = (*_AMPERE_164, 196, 228)  # 9.0, 10.0, 10.3

TABLE: dict[int, SmLimits] = {
    s.sm: s
    for s in (
        SmLimits(75, 32, 16, 64 * KB, 64 * KB, (32, 64), 0, shared_reserved=0, shared_unit=256),
        SmLimits(80, 64, 32, 164 * KB, 163 * KB, _AMPERE_164, 0),
        SmLimits(86, 48, 16, 100 * KB, 99 * KB, _AMPERE_100, 0),
        SmLimits(87, 48, 16, 164 * KB, 163 * KB, _AMPERE_164, 0),
        SmLimits(89, 48, 24, 100 * KB, 99 * KB, _AMPERE_100, 0),
        SmLimits(90, 64, 32, 228 * KB, 227 * KB, _HOPPER, 2),
        SmLimits(100, 64, 32, 228 * KB, 227 * KB, _HOPPER, 2),
        SmLimits(103, 64, 32, 228 * KB, 227 * KB, _HOPPER, 1),
        SmLimits(120, 48, 24, 100 * KB, 99 * KB, _AMPERE_100, 1),
        SmLimits(121, 48, 24, 100 * KB, 99 * KB, _AMPERE_100, 1),
    )
}


def sm_number(arch: str) -> int | None:
    """90 for "sm_90a", 100 for "sm_100f"; None for what is not an sm_ name."""
    digits = arch.removeprefix("sm_").rstrip("af")
    return int(digits) if arch.startswith("sm_") and digits.isdigit() else None


def limits_for(arch: str) -> SmLimits | None:
    number = sm_number(arch)
    return TABLE.get(number) if number is not None else None
