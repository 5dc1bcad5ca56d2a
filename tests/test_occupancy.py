"""Occupancy, against cases worked by hand from NVIDIA's tables (sassview/analyses/sm_limits.py).

Each case says how it was worked: registers per warp = regs x 32 rounded up to 256, warps per
register-file quarter = 16384 // that, blocks = 4 x quarters' warps // warps per block; shared =
(bytes + 1 KB reserved) rounded up to 128 B, into the largest carveout; warps = max warps //
warps per block; blocks capped per SM; from sm_90 the block barriers.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from sassview.analyses.occupancy import Usage, block_sizes, occupancy
from sassview.analyses.sm_limits import limits_for, sm_number
from sassview.build import build_program
from sassview.inspection import inspect_program
from sassview.ir import Artifacts

KB = 1024

# (arch, usage, blocks, warps, percent, limiters, registers_for_next_block, shared_for_next)
CASES = [
    # sm_80: 64 regs = 2048 per warp, 8 warps per quarter, 32 warps: 4 blocks of 8 warps.
    # One more needs 40 warps, 10 per quarter: <= 1638 per warp -> 1536 -> 48 registers.
    ("sm_80", Usage(256, 64, 0), 4, 32, 50.0, ("registers",), 48, None),
    # sm_80: 48 KB + 1 KB = 50176 B; 167936 // 50176 = 3. Four need <= 41984 B - 1 KB = 40 KB.
    ("sm_80", Usage(128, 32, 48 * KB), 3, 12, 18.8, ("shared",), None, 40 * KB),
    # sm_80: 1024 threads are 32 warps; 64 // 32 = 2 (16 regs allow 4).
    ("sm_80", Usage(1024, 16, 0), 2, 64, 100.0, ("warps",), None, None),
    # sm_80: one-warp blocks: 64 warps would allow 64, the SM holds 32 blocks.
    ("sm_80", Usage(32, 16, 0), 32, 32, 50.0, ("blocks",), None, None),
    # sm_80: 128 regs x 32 warps = 131072 > 65536 registers per block: no block fits.
    ("sm_80", Usage(1024, 128, 0), 0, 0, 0.0, ("registers",), None, None),
    # sm_86: 48 warps, 16 blocks: 2-warp blocks stop at 16 blocks.
    ("sm_86", Usage(64, 32, 0), 16, 32, 66.7, ("blocks",), None, None),
    # sm_86: 16-warp blocks: 48 // 16 = 3 (registers allow 4).
    ("sm_86", Usage(512, 32, 0), 3, 48, 100.0, ("warps",), None, None),
    # sm_86: 40 KB + 1 KB = 41984 B; 102400 // 41984 = 2. Three: 34133 -> 34048 - 1 KB = 33024.
    ("sm_86", Usage(256, 32, 40 * KB), 2, 16, 33.3, ("shared",), None, 33024),
    # sm_86: 128 regs = 4096 per warp, 4 per quarter, 16 warps / 4 = 4 blocks. Five need 20
    # warps, 5 per quarter: <= 3276 -> 3072 per warp -> 96 registers.
    ("sm_86", Usage(128, 128, 0), 4, 16, 33.3, ("registers",), 96, None),
    # sm_87: 48 warps; 24-warp blocks: 2 (16 regs: 32 warps per quarter allow 5).
    ("sm_87", Usage(768, 16, 0), 2, 48, 100.0, ("warps",), None, None),
    # sm_89: 24 blocks per SM.
    ("sm_89", Usage(32, 16, 0), 24, 24, 50.0, ("blocks",), None, None),
    # sm_90: 100 KB + 1 KB = 103424 B; 233472 // 103424 = 2. Three: 77824 - 1 KB = 76800.
    ("sm_90a", Usage(128, 32, 100 * KB), 2, 8, 12.5, ("shared",), None, 76800),
    # sm_90: 228 KB + 1 KB is more than a block may have (227 KB + 1 KB).
    ("sm_90a", Usage(128, 32, 228 * KB), 0, 0, 0.0, ("shared",), None, None),
    # sm_90: 2 barriers per block slot x 32 = 64; 16 per block -> 4 blocks.
    ("sm_90", Usage(64, 16, 0, barriers=16), 4, 8, 12.5, ("barriers",), None, None),
    # sm_90: 128 regs, 8-warp blocks: 16 warps -> 2 blocks; 3 need 6 per quarter: <= 2730 ->
    # 2560 per warp -> 80 registers.
    ("sm_90", Usage(256, 128, 0), 2, 16, 25.0, ("registers",), 80, None),
    # sm_100: 168 regs = 5376 per warp (x 12 warps = 64512 <= 65536), 3 per quarter: 12 warps,
    # 1 block. Two need 6 per quarter: 80 registers.
    ("sm_100a", Usage(384, 168, 0), 1, 12, 18.8, ("registers",), 80, None),
    # sm_103: 1 barrier per block slot: 32 // 16 = 2.
    ("sm_103", Usage(64, 16, 0, barriers=16), 2, 4, 6.2, ("barriers",), None, None),
    # sm_120: 48 warps, 24 blocks.
    ("sm_120", Usage(32, 16, 0), 24, 24, 50.0, ("blocks",), None, None),
    # sm_120: 1 barrier per block slot: 24 // 4 = 6.
    ("sm_120", Usage(64, 16, 0, barriers=4), 6, 12, 25.0, ("barriers",), None, None),
    # sm_120: 99 KB + 1 KB = 100 KB: exactly one block, two at <= 51200 - 1 KB = 50176 B;
    # 100 KB + 1 KB is over the per-block limit.
    ("sm_120", Usage(128, 32, 99 * KB), 1, 4, 8.3, ("shared",), None, 50176),
    ("sm_120", Usage(128, 32, 100 * KB), 0, 0, 0.0, ("shared",), None, None),
    # sm_75: no reservation, 256-byte unit: 20000 -> 20224 B; 65536 // 20224 = 3. Four: 16384.
    ("sm_75", Usage(128, 32, 20000), 3, 12, 37.5, ("shared",), None, 16384),
]


@pytest.mark.parametrize(
    ("arch", "use", "blocks", "warps", "percent", "limiters", "registers", "shared"),
    CASES,
    ids=[f"{c[0]}-{c[1].threads}t-{c[1].registers}r-{c[1].shared}B" for c in CASES],
)
def test_occupancy_worked_by_hand(
    arch: str,
    use: Usage,
    blocks: int,
    warps: int,
    percent: float,
    limiters: tuple[str, ...],
    registers: int | None,
    shared: int | None,
) -> None:
    sm = limits_for(arch)
    assert sm is not None
    got = occupancy(sm, use)
    assert (got.blocks, got.warps, got.percent) == (blocks, warps, percent)
    assert got.limiters == limiters
    assert got.registers_for_next_block == registers
    assert got.shared_for_next_block == shared
    if registers is not None:  # the cliff is exact: one more register loses the block again
        assert occupancy(sm, replace(use, registers=registers)).blocks == blocks + 1
        assert occupancy(sm, replace(use, registers=registers + 1)).blocks == blocks
    if shared is not None:
        assert occupancy(sm, replace(use, shared=shared)).blocks == blocks + 1
        assert occupancy(sm, replace(use, shared=shared + 1)).blocks == blocks


def test_the_smallest_carveout_that_keeps_the_blocks() -> None:
    sm = limits_for("sm_80")
    assert sm is not None
    # 3 blocks of 49 KB need 147 KB: 164 KB; 2 KB blocks x 16 (warps) = 48 KB: 64 KB.
    assert occupancy(sm, Usage(128, 32, 48 * KB)).carveout_kb == 164
    assert occupancy(sm, Usage(128, 32, 2 * KB)).carveout_kb == 64
    # Without shared memory the reservation alone: 16 x 1 KB fits in 16 KB.
    assert occupancy(sm, Usage(128, 32, 0)).carveout_kb == 16


def test_architecture_names() -> None:
    assert sm_number("sm_90a") == 90
    assert sm_number("sm_100f") == 100
    assert sm_number("compute_90") is None
    assert limits_for("sm_110") is None  # not in the table: no occupancy is invented
    assert limits_for("sm_121") is not None


CORPUS = Path(__file__).parent / "corpus"


def _inspect(case: str):  # type: ignore[no-untyped-def]
    arch = case.split("/")[1]
    art = Artifacts(kind="cubin", arch=arch, cubin=(CORPUS / case / "kernel.cubin").read_bytes())
    return inspect_program(build_program(art))


def test_launch_bounds_give_the_block_size() -> None:
    (insp,) = _inspect("bounds/sm_100a")  # __launch_bounds__(128): 12 registers
    assert block_sizes(insp.kernel) == ((128,), "maxntid")
    facts = insp.facts("occupancy")
    (point,) = facts["points"]
    # 4-warp blocks: 64 // 4 = 16 blocks, 64 warps (registers allow 40 per quarter).
    assert (point["blocks"], point["warps"], point["limiters"]) == (16, 64, ["warps"])
    assert facts["text"] == (
        "16 blocks of 128 threads: 64 of 64 warps (100%), limited by warps (launch bounds)"
    )


def test_without_a_block_size_the_sweep_is_reported() -> None:
    insps = _inspect("vecadd/sm_120")
    facts = next(i for i in insps if i.kernel.name == "add_scalar").facts("occupancy")
    assert facts["block_source"] == "sweep"
    assert [p["threads"] for p in facts["points"]] == [64, 128, 256, 512, 1024]
    # 1024 threads are 32 warps: one block of the 48 warp slots.
    assert facts["points"][-1]["percent"] == 66.7
    assert facts["text"].endswith("512: 100%, 1024: 66.7%")


def test_assert_occupancy_passes_and_fails_with_the_reason() -> None:
    from sassview.testing import KernelUnderTest, OccupancyTooLow

    (insp,) = _inspect("bounds/sm_100a")
    k = KernelUnderTest(insp)
    k.assert_occupancy(min_warps=64, min_blocks=16, min_percent=100)
    # 1024 threads: 32-warp blocks, 64 // 32 = 2 blocks.
    k.assert_occupancy(min_blocks=2, threads=1024)
    with pytest.raises(OccupancyTooLow) as failure:
        k.assert_occupancy(min_blocks=3, threads=1024)
    assert "found:    2 blocks of 1024 threads: 64 of 64 warps (100%), limited by warps" in str(
        failure.value
    )


def test_assert_occupancy_needs_a_block_size() -> None:
    from sassview.testing import KernelUnderTest, OccupancyTooLow

    insps = _inspect("vecadd/sm_120")
    k = KernelUnderTest(next(i for i in insps if i.kernel.name == "add_scalar"))
    with pytest.raises(OccupancyTooLow, match="block size is unknown"):
        k.assert_occupancy(min_warps=32)
    k.assert_occupancy(min_warps=48, threads=256)  # 6 blocks of 8 warps


FAT = """
__global__ void fat(float* p, int n) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = p[threadIdx.x + i * n];
  float s = 0;
#pragma unroll
  for (int j = 0; j < 96; ++j) for (int i = 0; i < 96; ++i) s += acc[i] * acc[(i + j) % 96];
  p[threadIdx.x] = s;
}
"""


@pytest.mark.compile
def test_a_block_size_the_kernel_cannot_launch_is_said_so_not_zero_percent(
    tmp_path: Path,
) -> None:
    """Over 64 registers a thread, 1024 threads need more than the SM's 64k registers: the
    launch fails, which `1024: 0%` hid (it read as a slow launch)."""
    from click.testing import CliRunner

    from sassview.views.cli import cli

    path = tmp_path / "fat.cu"
    path.write_text(FAT)
    done = CliRunner().invoke(cli, ["check", str(path)])
    assert done.exit_code == 0, done.output
    (line,) = [x for x in done.output.splitlines() if x.lstrip().startswith("occupancy")]
    assert "1024: cannot launch (registers)" in line and ": 0%" not in line
