"""Loop claims on kernels whose trip counts come from the constants the compiler saw, and on
pipelined K loops, labelled by hand from their SASS (tests/data/analyses/sources/
loop_constants.cu, loop_override.cu, loop_pipelines.cu; sm_80 and sm_90a). Keyed and read as
tests/test_real_loops.py keys and reads its cases (`claims`: the recorded cubin disassembled
again, and the recorded listings through the parsers alone, whose kernel names are mangled).

Before the constants were read as the compiler reads them, of these 75 claims 58 were right,
6 wrong and 11 unknown read from the cubin (45, 18 and 12 offline): every loop of
`cfg_sgemm<GemmCfg>` ('copies unknown': `Cfg::BK` was no constant; on sm_90a the k loop 'not
unrolled'), the -D file's 16 copies (the compiler used the file's 32), the offline listings'
template loops (no arguments in a mangled name), the wgmma K loop ('not unrolled': the HGMMA
of one k-step carry three lines) and the mbarrier pipeline's K loop offline (the bulk copy's
elect loop took its entry, the K loop read as compiler-made).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from analyses_data import program
from helpers.loop_claims import FULL, Where, claims

from sassview.analyses.base import AnalysisContext
from sassview.analyses.loops import census
from sassview.graph.cfg import build_cfg
from sassview.graph.loops import find_loops

LC = "loop_constants.cu"
LP = "loop_pipelines.cu"
ROLLED_2 = "unrolled by 2, with a straight-line remainder"


def _tiles(kernel: str, tm: int, tn: int) -> dict[Where, str]:
    """tile_sgemm<TM, TN>: the K loop (line 42, `k < K`) is a SASS loop of two iterations a
    trip (2 x TM*TN FFMA on line 47 between its back-edge at /*0730*/ (sm_90a, <4, 4>) and
    its head) and one straight-line iteration after it (TM*TN FFMA more); the nests
    `m < TM`, `n < TN` are fully unrolled: TM LDG on line 44, TN on line 45, TM*TN FFMA."""
    return {
        (kernel, LC, 42, None): ROLLED_2,
        **{(kernel, LC, line, None): FULL.format(tm) for line in (44, 46, 49)},
        **{(kernel, LC, line, None): FULL.format(tn) for line in (45, 47, 50)},
    }


def _constants(arch: str) -> dict[Where, str]:
    cfg = "cfg_sgemm<GemmCfg>"
    # sm_80: `k < Cfg::BK` (8) fully unrolled inside the k0 loop: 256 FFMA on line 29 (8 x
    # 8 x 4), 16 LDS on line 26 and 8 on 27 (LDS.128: TM = 8 floats in 2, TN = 4 in 1, per
    # k). sm_90a: NVVM leaves it rolled (its PTX loop $L__BB0_4 holds 32 fma), ptxas unrolls
    # it by 4: /*04e0*/-/*0de0*/ 128 FFMA, 8 + 4 LDS a trip, two trips.
    k_loop = (
        FULL.format(8) if arch == "sm_80" else "unrolled by 4 (x4 by ptxas)"
    )  # fmt: skip
    return {
        # k0 += Cfg::BK over a run-time K: one SASS loop, one iteration a trip (2 LDG, 2 STS,
        # 2 BAR.SYNC at lines 22-24, 31).
        (cfg, LC, 21, None): "not unrolled",
        (cfg, LC, 25, None): k_loop,
        # Cfg::TM = 8 and Cfg::TN = 4 through the type parameter: 8 and 4 copies each.
        **{(cfg, LC, line, None): FULL.format(8) for line in (26, 28, 33)},
        **{(cfg, LC, line, None): FULL.format(4) for line in (27, 29, 34)},
        # shapes: 12 LDG (line 62, constexpr kItems); i += 4 over 12: 3 FFMA + 3 FMUL (63);
        # kRows = 6 (enum): 6 MUFU.EX2 (64); sizeof(float4) / sizeof(float) with a uint j:
        # 4 FMNMX (67); 1 <= i <= kVec: 4 FFMA (68); 11 down to 6: 6 FADD (69); kItems /
        # kVec = 3 with an unsigned i: 3 MUFU.SIN (70).
        ("shapes", LC, 62, None): FULL.format(12),
        ("shapes", LC, 63, None): FULL.format(3),
        ("shapes", LC, 64, None): FULL.format(6),
        ("shapes", LC, 67, None): FULL.format(4),
        ("shapes", LC, 68, None): FULL.format(4),
        ("shapes", LC, 69, None): FULL.format(6),
        ("shapes", LC, 70, None): FULL.format(3),
        **_tiles("tile_sgemm<4, 4>", 4, 4),
        **_tiles("tile_sgemm<8, 2>", 8, 2),
    }


# -DTILE=16 -DSTEPS=3: the file's `#define TILE 32` replaces the -D (32 LDG, 32 MUFU.EX2 and
# 32 FADD on line 10); its #ifndef-guarded STEPS takes the -D's 3 (3 MUFU.SIN on line 11).
OVERRIDE: dict[Where, str] = {
    ("tile_sum", "loop_override.cu", 10, None): FULL.format(32),
    ("tile_sum", "loop_override.cu", 11, None): FULL.format(3),
}

# double_buffered, both archs: the K loop (line 23) is NVVM's x2 (kt % 2 made constant): two
# tiles a trip, each an LDGSTS.E.BYPASS.128, a DEPBAR.LE, 2 BAR.SYNC and 8 LDS.128 (line
# 31); one more tile straight-line after the loop (the odd last one). The read loop (line 30):
# 8 LDS.128 per tile.
DOUBLE_BUFFERED: dict[Where, str] = {
    ("double_buffered", LP, 23, None): ROLLED_2,
    ("double_buffered", LP, 30, None): FULL.format(8),
}

PIPELINES_SM90: dict[Where, str] = {
    **DOUBLE_BUFFERED,
    # mbarrier_pipeline: the init loop over kStages = 2 is 2 SYNCS.EXCH.64 (line 73); the K
    # loop /*0300*/-/*05f0*/ one iteration a trip (1 LDS + 1 FFMA on line 89); the try_wait
    # spin (line 87) its own loop: SYNCS.PHASECHK.TRYWAIT at /*0560*/, then the retry loop
    # /*0640*/-/*0650*/ out of line. Each bulk copy (line 61) is wrapped by ptxas in an
    # elect-one-lane loop (ELECT, UBLKCP, BRA.U.ANY back): /*0200*/-/*0240*/ for the first
    # stage (call at line 77), /*0470*/-/*04b0*/ inside the K loop (call at line 85).
    ("mbarrier_pipeline", LP, 73, None): FULL.format(2),
    ("mbarrier_pipeline", LP, 80, None): "not unrolled",
    ("mbarrier_pipeline", LP, 87, None): "not unrolled",
    **{
        ("mbarrier_pipeline", LP, 61, site): "no statement: line 61 (loop_pipelines.cu, "
        f"inlined at line {site}, asm/compiler loop): a loop of inline asm or made by the "
        "compiler (no loop "
        "statement)"
        for site in (77, 85)
    },
    # wgmma_k_loop: the peeled first tile is 4 HGMMA (line 108: /*00a0*/, /*0130*/, /*0180*/,
    # /*0190*/). The K loop (line 110) is NVVM's x4: /*0290*/-/*0970*/ 16 HGMMA a trip (their
    # rows say lines 113, 111 and 110), the remainder loop /*09d0*/-/*0b90*/ 4 HGMMA (one
    # tile). The k-step loop (line 112) 4 HGMMA per tile; the write-out 4 STG (line 118).
    ("wgmma_k_loop", LP, 108, None): FULL.format(4),
    ("wgmma_k_loop", LP, 110, None): "unrolled by 4, with a remainder loop",
    ("wgmma_k_loop", LP, 112, None): FULL.format(4),
    ("wgmma_k_loop", LP, 118, None): FULL.format(4),
}

CASES = [
    ("loop_constants", "sm_80", _constants("sm_80")),
    ("loop_constants", "sm_90a", _constants("sm_90a")),
    ("loop_override", "sm_80", OVERRIDE),
    ("loop_override", "sm_90a", OVERRIDE),
    ("loop_pipelines", "sm_80", DOUBLE_BUFFERED),
    ("loop_pipelines", "sm_90a", PIPELINES_SM90),
]


@pytest.mark.parametrize("mode", ["recorded", "json"])
@pytest.mark.parametrize(("case", "arch", "labels"), CASES, ids=[f"{c}-{a}" for c, a, _ in CASES])
def test_every_loop_claim_is_the_hand_labelled_one(
    mode: str, case: str, arch: str, labels: dict[Where, str]
) -> None:
    assert claims(mode, case, arch) == labels


def _run(mode: str, case: str, arch: str, kernel: str) -> census.Findings:
    prog = program(mode, case, arch)
    k = next(k for k in prog.kernels if kernel in k.name)
    cfg = build_cfg(k.instructions)
    ctx = AnalysisContext(prog, k, cfg, find_loops(cfg, k.instructions), None)  # type: ignore[arg-type]
    return census.run(ctx)


@pytest.mark.parametrize("mode", ["recorded", "json"])
def test_a_define_replacing_a_d_option_is_a_warning_at_its_line(mode: str) -> None:
    found = _run(mode, "loop_override", "sm_80", "tile_sum")
    (note,) = [a for a in found.annotations if a.kind == "macro-override"]
    assert note.message == (
        "-D TILE=16 has no effect: the file's own `#define TILE 32` at line 3 of "
        "loop_override.cu replaces it, and the compiler used 32 (so do these loop claims)"
    )
    assert [(Path(s.file).name, s.line) for s in note.source] == [("loop_override.cu", 3)]


def test_tensor_cores_are_counted_in_the_loop_that_holds_them() -> None:
    # The peeled tile's fully unrolled loop holds 4 HGMMA (/*00a0*/-/*0190*/, /*0130*/ with
    # line 110's row; the export's loop table said 0, counting SASS loops only); one trip of
    # the K loop 16 (four tiles of the k-step loop's 4, whichever of lines 110-113 their rows
    # name); the k-step loop's copies 20 (16 in the main loop, 4 in the remainder loop); the
    # write-out none.
    entries = _run("recorded", "loop_pipelines", "sm_90a", "wgmma").facts.entries
    by_line = {e.line: e.tensor_ops for e in entries}
    assert (by_line[108], by_line[110], by_line[112], by_line[118]) == (4, 16, 20, 0)
