"""Every loop claim sassview makes on the recorded whole programs, labelled by hand from their
SASS: tests/data/analyses/sources/real_app.cu (a templated softmax with cooperative-groups
reductions, WMMA, cp.async), real_memory.cu (templates, an inlined helper, shuffles, shared
reductions) and warp_fallbacks.cu (warp-level reductions where ptxas adds a diverged-warp
copy). Loops in headers are cooperative groups' own: `coalesced_reduce.h` line 67 is
`for (int mask = TySize >> 1; mask > 0; mask >>= 1) out = op(out, group.shfl_xor(out, mask))`,
5 steps over a 32-thread tile, 4 over a 16-thread one.

Each label is the census' claim (`entry.claim`: the verdict and the request, what `check`
prints after the place), keyed by (kernel, file, line of the loop statement, the line of the
main file it is inlined at), each commented with the SASS that makes it true: the main loop's
addresses and what one trip runs, or the copies of a fully unrolled body. A kernel's claims
must be exactly these: a new one, a lost one or a changed one fails. The listings are read
offline (`json`: the parsers alone) and from the cubin (`recorded`: nvdisasm again).
"""

from __future__ import annotations

import pytest
from analyses_data import program
from helpers.loop_claims import FULL, Where, claims

from sassview.graph.cfg import ControlFlowGraph, build_cfg
from sassview.graph.divergence import fallbacks
from sassview.ir import SassInstruction
from sassview.parse.sass_text import parse_sass_text

CR = "coalesced_reduce.h"
WF = "warp_fallbacks.cu"
FALLBACK = ", plus a diverged-warp fallback at /*{:04x}*/ (not counted)"
FALLBACKS = ", plus {} diverged-warp fallbacks from /*{:04x}*/ (not counted)"
ROLLED_1 = "not unrolled (asked: #pragma unroll 1)"
X16 = "unrolled by 16 (x4 by NVVM, then x4 by ptxas), with a remainder loop"

REAL_APP: dict[Where, str] = {
    # m = fmaxf(m, row[c]), c += 256: NVVM x4 ($L__BB2_6: 4 ld.global.nc) and a remainder
    # loop ($L__BB2_3, 1); ptxas x4 again: /*03a0*/-/*05e0*/ runs 16 LDG and 16 FMNMX a trip,
    # /*01d0*/-/*0260*/ 1 (the remainder loop), then 8 and 4 straight-line (ptxas' tail).
    ("softmax_rows<256>", "real_app.cu", 21, None): X16,
    # s += __expf(row[c] - m): /*1030*/-/*1870*/ 16 LDG and 16 MUFU.EX2 a trip, the remainder
    # loop /*0e10*/-/*0ef0*/ 1, straight-line 8 and 4 after it; the PTX loop holds 4.
    ("softmax_rows<256>", "real_app.cu", 34, None): X16,
    # out[c] = __expf(...) / s: NVVM x4 only, /*2480*/-/*2a70*/ 4 LDG and 4 STG a trip (each
    # division's slow path a CALL), the remainder loop /*2160*/-/*2350*/ 1.
    ("softmax_rows<256>", "real_app.cu", 36, None): "unrolled by 4, with a remainder loop",
    # cg::reduce(warp, m, greater) at line 23: 5 SHFL.BFLY (0x10 .. 0x1) at /*0850*/-/*09c0*/,
    # each with its FSETP.GEU + FSEL; no branch around it, so no fallback.
    ("softmax_rows<256>", CR, 67, 23): FULL.format(5),
    # The same reduce inside `if (threadIdx.x < 32)`: BRA.DIV at /*0ad0*/; the fast path
    # /*0ae0*/-/*0bd0*/ is 5 SHFL.BFLY with 5 FSETP/FSEL. The diverged copy /*2a90*/-/*2cf0*/
    # (5 WARPSYNC.COLLECTIVE + SHFL, 4 FSETP/FSEL) jumps back to /*0bb0*/ for the 5th
    # combine. The division slow path after it (/*2d00*/ on, a subroutine line 36 calls)
    # has no line of its own: nvdisasm's table keeps this reduce's row (its 7 FFMA read as
    # copies: the census said "2 copies").
    ("softmax_rows<256>", CR, 67, 28): FULL.format(5) + FALLBACK.format(0x2A90),
    # cg::reduce(warp, s, plus) at line 35: 5 SHFL + 5 FADD at /*1f50*/-/*2010*/.
    ("softmax_rows<256>", CR, 67, 35): FULL.format(5),
    # The cp.async loop: /*01b0*/-/*06e0*/ 4 LDGSTS, 4 LDS.128, 4 STG.E.128 and 8 BAR.SYNC a
    # trip; the remainder loop /*0760*/-/*0960*/ 1 of each.
    ("staged_scale", "real_app.cu", 60, None): "unrolled by 4, with a remainder loop",
    # k += 16: /*02f0*/-/*0a20*/ 8 HMMA.16816.F32 (2 per mma_sync) a trip, the remainder loop
    # /*0b70*/-/*0d10*/ 2.
    ("wmma_gemm", "real_app.cu", 47, None): "unrolled by 4, with a remainder loop",
}

# real_memory.cu: the same claims on sm_80 and sm_90a (addresses: sm_80, then sm_90a).
REAL_MEMORY: dict[Where, str] = {
    # for (j = 0; j < 32; j += 8): 4 LDG + 4 STS (line 45), 4 LDS + 4 STG (line 49), no loop
    # in the SASS; both instantiations alike.
    ("transpose<32, 8, 0>", "real_memory.cu", 45, None): FULL.format(4),
    ("transpose<32, 8, 0>", "real_memory.cu", 49, None): FULL.format(4),
    ("transpose<32, 8, 1>", "real_memory.cu", 45, None): FULL.format(4),
    ("transpose<32, 8, 1>", "real_memory.cu", 49, None): FULL.format(4),
    # t < n / TILE: one SASS loop, /*01e0*/-/*04e0*/ (/*0270*/-/*0580*/), 2 LDG, 2 STS, 2
    # BAR.SYNC and the k loop's 16 FFMA a trip: one iteration.
    ("sgemm_tiled<16>", "real_memory.cu", 26, None): "not unrolled",
    # #pragma unroll over k < TILE = 16: the 16 FFMA inside the t loop, no loop of its own.
    ("sgemm_tiled<16>", "real_memory.cu", 31, None): FULL.format(16) + " (asked: #pragma unroll)",
    # s = 1 .. 128 doubling / 128 .. 1 halving: 8 FADD and 8 BAR.SYNC after the first, no loop.
    ("reduce_interleaved", "real_memory.cu", 65, None): FULL.format(8),
    ("reduce_sequential", "real_memory.cu", 79, None): FULL.format(8),
    # Three blockDim-stride loops, each a SASS loop of one iteration a trip: /*0090*/ 1 STS,
    # /*0120*/ 1 LDG.U8 + 1 ATOMS, /*01f0*/ 1 LDS + 1 RED (sm_90a /*00b0*/, /*0200*/,
    # /*02f0*/). On sm_80 the atomic loop's YIELD (/*0160*/) carries line 89's row: read as
    # its code the loop had no common statement ("a loop of inline asm or made by the
    # compiler", and line 91 "fully unrolled (1 copy)"); the same for line 94's (/*0210*/).
    ("histogram", "real_memory.cu", 89, None): "not unrolled",
    ("histogram", "real_memory.cu", 91, None): "not unrolled",
    ("histogram", "real_memory.cu", 94, None): "not unrolled",
    # j < n by 1: NVVM x4 (+ remainder), ptxas x4: /*01d0*/-/*0540*/ (/*01f0*/-/*0580*/) 16
    # FFMA + 32 LDG a trip; remainder loops of 4 and 1 FFMA and 8 straight-line.
    ("gemv_row_per_thread", "real_memory.cu", 102, None): X16,
    # j += 32: /*03b0*/-/*0710*/ (/*03d0*/-/*0740*/) 16 FFMA a trip, the remainder loop
    # /*01e0*/ (/*0200*/) 1, then 12 straight-line (8 + 4); the __shfl_down_sync butterfly
    # o = 16 .. 1: 5 SHFL.DOWN + 5 FADD, outside any branch (no fallback).
    ("gemv_row_per_warp", "real_memory.cu", 111, None): X16,
    ("gemv_row_per_warp", "real_memory.cu", 112, None): FULL.format(5),
    # i += blockDim.x: /*00f0*/-/*0170*/ (/*0110*/-/*0190*/) 1 LDG + 1 FMNMX a trip; the
    # __shfl_xor_sync butterfly 5 SHFL.BFLY + 5 FMNMX.
    ("row_max", "real_memory.cu", 143, None): "not unrolled",
    ("row_max", "real_memory.cu", 144, None): FULL.format(5),
}

# warp_fallbacks.cu, per architecture: ptxas' fallbacks differ (sm_80 one BRA.DIV per step
# and CALLs of its __cuda_sm70_shflsync_* subroutine; sm_90a one for the sequence, with
# WARPSYNC.COLLECTIVE steps). The fast path's steps are the copies.
WARP_FALLBACKS: dict[str, dict[Where, str]] = {
    "sm_80": {
        # `if (threadIdx.x < 32)` became `@P0 EXIT`: the warp left is converged, no BRA.DIV;
        # 5 SHFL + 5 FADD.
        ("tile32_in_branch", CR, 67, 14): FULL.format(5),
        # a 16-thread tile: 4 SHFL.BFLY (0x8 .. 0x1, mask 0x101f) each behind a BRA.DIV
        # (/*0100*/, /*01c0*/, /*0280*/, /*0340*/), each fallback a CALL (/*0430*/ on).
        ("tile16_in_branch", CR, 67, 24): FULL.format(4) + FALLBACKS.format(4, 0x430),
        # the hand-written o = 16 .. 1 butterfly in a branch: 5 SHFL + 5 FADD on the fast
        # path; BRA.DIV /*0090*/ -> /*01a0*/ (step 1) and /*00c0*/ -> /*0200*/ (steps 2-5,
        # 3 FADD, back to /*0140*/ for the 5th): the census said 8 copies.
        ("shfl_loop_in_branch", WF, 33, None): FULL.format(5) + FALLBACKS.format(2, 0x1A0),
        # #pragma unroll 1 around __shfl_down_sync: /*00c0*/-/*0140*/ 1 FADD a trip; the
        # BRA.CONV /*00e0*/ falls through to a CALL for a diverged warp (/*00f0*/).
        ("shfl_runtime_loop", WF, 43, None): ROLLED_1 + FALLBACK.format(0xF0),
        # r < 3 around __reduce_add_sync: 3 REDUX.SUM, BRA.DIV /*0090*/ -> /*0180*/ and
        # /*00c0*/ -> /*01c0*/.
        ("redux_in_branch", WF, 52, None): FULL.format(3) + FALLBACKS.format(2, 0x180),
        # c < chunks: /*01c0*/-/*09a0*/ 4 LDG and 4 reductions a trip (10 fallbacks inside
        # the SASS loop, laid out after the EXIT from /*0c70*/, jumping back into it), the
        # remainder loop /*0a20*/-/*0c50*/ 1; the tile-16 reduce 4 SHFL + 4 FADD per chunk.
        ("reduce_per_chunk", WF, 61, None): "unrolled by 4, with a remainder loop",
        ("reduce_per_chunk", CR, 67, 63): FULL.format(4) + FALLBACKS.format(10, 0xC70),
        # an 8-lane tile outside any branch: 3 SHFL.BFLY (mask 0x181f) + 3 FADD, each step
        # behind a BRA.DIV (/*00e0*/, /*0190*/, /*0240*/), the fallbacks CALLs from /*0320*/.
        ("tile8_reduce", CR, 67, 71): FULL.format(3) + FALLBACKS.format(3, 0x320),
        # coalesced_threads() after a data-dependent branch: all 32 lanes take the tile path,
        # 5 SHFL.BFLY + 5 FADD at /*03e0*/-/*0470*/; otherwise the scan over the mask, a run-time
        # loop /*0170*/-/*03a0*/ (1 SHFL.IDX + 1 FADD a trip) around a binary search
        # /*0210*/-/*0310*/ (POPC). No BRA.DIV: the group is the lanes that are there.
        ("coalesced_reduce", CR, 67, 81): FULL.format(5),
        ("coalesced_reduce", "coalesced_scan.h", 87, 81): "not unrolled",
        ("coalesced_reduce", "coalesced_scan.h", 97, 81): "not unrolled",
        # CUB: i += 128 is NVVM x4, ptxas x4 (16 LDG a trip from /*02c0*/, a 1-LDG remainder
        # loop before it); BlockReduce's warp reduction is inline asm by template recursion (no
        # statement); its `for (warp_idx = 1; warp_idx < warps; ...)` over 4 warps is the 3
        # FADD after the BAR.SYNC (one LDS.64 + one LDS of the other warps' sums).
        ("cub_block_sum", WF, 93, None): X16,
        ("cub_block_sum", "block_reduce_warp_reductions.cuh", 162, 94): FULL.format(3),
        # o = 16 .. 1 by o >>= 1: 5 iterations from the header; two shuffles a step on one
        # line (10 SHFL.BFLY, 2 per offset, 10 FADD from /*0070*/): read as 10 copies before.
        ("two_sums", WF, 101, None): FULL.format(5),
        # cg::reduce of a float2: 10 SHFL.BFLY (2 per offset 0x10 .. 0x1) and 10 FADD on
        # Add2's line: 5 steps of two values (read as 10 copies before); of a Welford triple:
        # 5 steps, each a division (5 FCHK from /*0080*/, 5 CALLs of its slow path) and 5
        # FFMA; its m2 and n shuffles partly folded (18 SHFL for both reduces, not 25).
        ("struct_reduces", CR, 67, 118): FULL.format(5),
        ("struct_reduces", CR, 67, 119): FULL.format(5),
    },
    "sm_90a": {
        ("tile32_in_branch", CR, 67, 14): FULL.format(5),
        # one BRA.DIV (/*0120*/) for the 4 steps; the 4th FSETP/FSEL sits after the
        # thread_rank test (/*0290*/). Its lane masks (MATCH, REDUX.OR) are computed once:
        # a REDUX read as memory made this "1 copy".
        ("tile16_in_branch", CR, 67, 24): FULL.format(4) + FALLBACK.format(0x2E0),
        # 5 SHFL + 5 FADD; the fallback /*01c0*/-/*03e0*/ 5 WARPSYNC.COLLECTIVE steps and 4
        # FADD, back to /*0150*/ (the census said 9 copies).
        ("shfl_loop_in_branch", WF, 33, None): FULL.format(5) + FALLBACK.format(0x1C0),
        # WARPSYNC.ALL + SHFL.DOWN in the loop /*00b0*/-/*0100*/: no fallback on sm_90a.
        ("shfl_runtime_loop", WF, 43, None): ROLLED_1,
        ("redux_in_branch", WF, 52, None): FULL.format(3) + FALLBACK.format(0x190),
        # /*01f0*/-/*0870*/ 4 LDG a trip, the remainder loop /*0920*/-/*0ad0*/ 1.
        ("reduce_per_chunk", WF, 61, None): "unrolled by 4, with a remainder loop",
        ("reduce_per_chunk", CR, 67, 63): FULL.format(4) + FALLBACKS.format(5, 0xAF0),
        # one BRA.DIV (/*0100*/) for the 3 steps, the fallback at /*0260*/.
        ("tile8_reduce", CR, 67, 71): FULL.format(3) + FALLBACK.format(0x260),
        # coalesced_threads() after a data-dependent branch: all 32 lanes take the tile path,
        # 5 SHFL.BFLY + 5 FADD at /*03e0*/-/*0470*/; otherwise the scan over the mask, a run-time
        # loop /*0170*/-/*03a0*/ (1 SHFL.IDX + 1 FADD a trip) around a binary search
        # /*0210*/-/*0310*/ (POPC). No BRA.DIV: the group is the lanes that are there.
        ("coalesced_reduce", CR, 67, 81): FULL.format(5),
        ("coalesced_reduce", "coalesced_scan.h", 87, 81): "not unrolled",
        ("coalesced_reduce", "coalesced_scan.h", 97, 81): "not unrolled",
        # CUB: i += 128 is NVVM x4, ptxas x4 (16 LDG a trip from /*02c0*/, a 1-LDG remainder
        # loop before it); BlockReduce's warp reduction is inline asm by template recursion (no
        # statement); its `for (warp_idx = 1; warp_idx < warps; ...)` over 4 warps is the 3
        # FADD after the BAR.SYNC (/*0960*/) (one LDS.64 + one LDS of the other warps' sums).
        ("cub_block_sum", WF, 93, None): X16,
        ("cub_block_sum", "block_reduce_warp_reductions.cuh", 162, 94): FULL.format(3),
        # o = 16 .. 1 by o >>= 1: 5 iterations from the header; two shuffles a step on one
        # line (10 SHFL.BFLY, 2 per offset, 10 FADD from /*0070*/): read as 10 copies before.
        ("two_sums", WF, 101, None): FULL.format(5),
        # cg::reduce of a float2: 10 SHFL.BFLY (2 per offset 0x10 .. 0x1) and 10 FADD on
        # Add2's line: 5 steps of two values (read as 10 copies before); of a Welford triple:
        # 5 steps, each a division (5 FCHK from /*0080*/, 5 CALLs of its slow path) and 5
        # FFMA; its m2 and n shuffles partly folded (18 SHFL for both reduces, not 25).
        ("struct_reduces", CR, 67, 118): FULL.format(5),
        ("struct_reduces", CR, 67, 119): FULL.format(5),
    },
}

CASES = [
    ("real_app", "sm_90a", REAL_APP),
    ("real_memory", "sm_80", REAL_MEMORY),
    ("real_memory", "sm_90a", REAL_MEMORY),
    ("warp_fallbacks", "sm_80", WARP_FALLBACKS["sm_80"]),
    ("warp_fallbacks", "sm_90a", WARP_FALLBACKS["sm_90a"]),
]


@pytest.mark.parametrize("mode", ["recorded", "json"])
@pytest.mark.parametrize(("case", "arch", "labels"), CASES, ids=[f"{c}-{a}" for c, a, _ in CASES])
def test_every_loop_claim_is_the_hand_labelled_one(
    mode: str, case: str, arch: str, labels: dict[Where, str]
) -> None:
    assert claims(mode, case, arch) == labels


def test_the_diverged_copy_is_found() -> None:
    # softmax_rows: BRA.DIV /*0ad0*/ -> /*2a90*/ .. the BRA back at /*2cf0*/; the division
    # slow path after it has no source line (tests/test_subroutines.py).
    k = program("recorded", "real_app", "sm_90a").kernel("softmax_rows")
    ins = k.instructions
    cfg = build_cfg(ins)
    (found,) = fallbacks(cfg, ins)
    assert (found.branch, found.first_address) == (0xAD0, 0x2A90)
    assert ins[found.instructions[-1]].address == 0x2CF0


def _listing(body: str) -> tuple[tuple[SassInstruction, ...], ControlFlowGraph]:
    """A CFG from listing lines `ADDR TEXT` (hex address, then the instruction or a label)."""
    lines = ['\t.section\t.text.k,"ax",@progbits', "k:"]
    for row in body.strip().splitlines():
        address, text = row.split(None, 1)
        lines.append(text if text.endswith(":") else f"        /*{int(address, 16):04x}*/ {text} ;")
    ins = parse_sass_text("\n".join(lines) + "\n").functions[0].instructions
    return ins, build_cfg(ins)


# ptxas' shape: the fast step, the EXIT, then the diverged copy jumping back to the join.
DIVERGED = """
    00 {first}
    10 BRA.DIV UR4, `(.L_div)
    20 SHFL.BFLY PT, R3, R0, 0x10, 0x1f
    30 .L_join:
    30 FADD R0, R0, R3
    40 EXIT
    50 .L_div:
    50 WARPSYNC.COLLECTIVE R8, 0x70
    60 SHFL.BFLY P0, R3, R0, R13, R15
    70 ENDCOLLECTIVE
    80 BRA `(.L_join)
    90 BRA 0x90
"""


def test_a_diverged_copy_is_the_blocks_only_its_branch_leads_to() -> None:
    ins, cfg = _listing(DIVERGED.format(first="NOP"))
    (found,) = fallbacks(cfg, ins)
    assert (found.branch, found.first_address) == (0x10, 0x50)
    assert [ins[i].address for i in found.instructions] == [0x50, 0x60, 0x70, 0x80]
    # The same code entered another way too is no fallback: nothing proves it the copy.
    ins, cfg = _listing(DIVERGED.format(first="@P1 BRA `(.L_div)"))
    assert fallbacks(cfg, ins) == ()


def test_a_convergence_branch_falls_through_to_its_diverged_copy() -> None:
    # sm_80's rolled __shfl_down_sync loop: BRA.CONV jumps to the fast SHFL when converged,
    # else falls through to the CALL of ptxas' shuffle subroutine.
    ins, cfg = _listing("""
        00 .L_top:
        00 BRA.CONV ~URZ, `(.L_fast)
        10 MOV R2, 0x30
        20 CALL.REL.NOINC `(.L_sub)
        30 BRA `(.L_join)
        40 .L_fast:
        40 SHFL.DOWN PT, R0, R5, 0x1, 0x1f
        50 .L_join:
        50 FADD R5, R0, R5
        60 @!P0 BRA `(.L_top)
        70 EXIT
        80 .L_sub:
        80 WARPSYNC 0xffffffff
        90 SHFL.DOWN PT, R0, R5, 0x1, 0x1f
        a0 RET.REL.NODEC R2 `(k)
        b0 BRA 0xb0
    """)
    (found,) = fallbacks(cfg, ins)
    assert (found.branch, found.first_address) == (0x00, 0x10)
    assert [ins[i].address for i in found.instructions] == [0x10, 0x20, 0x30]
