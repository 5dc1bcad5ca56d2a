"""Coalescing and bank conflicts on a whole program written the way application code is
(tests/data/analyses/sources/real_memory.cu: host code, templates, an inlined helper, loop
nests, guards). Every count below was made by hand from the kernel's index arithmetic for warp
0 of the block main() launches it with (read from the file by the analyses: no --block), then
checked against the SASS; the PTX derivation agrees
too (tests/test_coalescing.py, case real_memory)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from analyses_data import program

from sassview.analyses import bank_conflicts, coalescing, memory_width
from sassview.analyses.base import AnalysisContext, Findings, Severity

ARCHS = ["sm_80", "sm_90a"]
MODES = ["recorded", "json"]  # the cubin nvcc built (a live compile needs a host compiler)
# The blocks main() launches them with, which the analyses read from the file themselves
LAUNCHED = {"sgemm_tiled<16>": "16x16x1", "transpose<32, 8, 0>": "32x8x1", "stencil": "16x16x1"}


def run(module: Any, mode: str, arch: str, kernel: str) -> Findings:
    prog = program(mode, "real_memory", arch)
    # The offline listings are not demangled: the recorded program knows the symbol.
    k = prog.kernel(program("recorded", "real_memory", arch).kernel(kernel).name)
    return module.run(AnalysisContext(prog, k, None, (), None))  # type: ignore[no-any-return, arg-type]


def counted(f: Findings, *keys: str) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(a[k] for k in keys) for a in f.facts["accesses"])


GLOBAL = ("direction", "active_lanes", "sectors", "min_sectors")
SHARED = ("direction", "bits", "wavefronts", "ideal")
# kernel -> {(direction, lanes running it, sectors, fewest for them): accesses}
SECTORS: dict[str, dict[tuple[Any, ...], int]] = {
    # two half-warp rows of 16 floats: 2 sectors each (the rows' starts taken 32-byte aligned)
    "sgemm_tiled<16>": {("load", 32, 4, 4): 2, ("store", 32, 4, 4): 1},
    "transpose<32, 8, 0>": {("load", 32, 4, 4): 4, ("store", 32, 4, 4): 4},  # ROWS 8: 4 copies
    "transpose<32, 8, 1>": {("load", 32, 4, 4): 4, ("store", 32, 4, 4): 4},
    "aos_scale": {("load", 32, 12, 4): 1, ("store", 32, 12, 4): 1},  # 4 bytes every 12
    "reduce_interleaved": {("load", 32, 4, 4): 1, ("store", 1, 1, 1): 1},  # out[] by tid 0
    "reduce_sequential": {("load", 32, 4, 4): 1, ("store", 1, 1, 1): 1},
    # bytes, stride 1: one sector; atomicAdd(&bins[b]) is a RED over 32 consecutive words
    "histogram": {("load", 32, 1, 1): 1, ("atomic", 32, 4, 4): 1},
    # the halo columns: lanes 0 and 16 (threadIdx.x == 0 in two rows), a sector each
    "stencil": {("load", 32, 4, 4): 1, ("load", 2, 2, 1): 2, ("store", 32, 4, 4): 1},
    # .x and .y of each float4: ptxas loads 8 bytes every 16; the stores 4 bytes every 16
    "half_float4": {("load", 32, 16, 8): 1, ("store", 32, 16, 4): 2},
    "row_max": {("load", 32, 4, 4): 1, ("store", 1, 1, 1): 1},
}
# kernel -> {(direction, bits, wavefronts, fewest): accesses}
WAVEFRONTS: dict[str, dict[tuple[Any, ...], int]] = {
    # As[ty][k..k+3] is one LDS.128 (lanes 0-15 one address, 16-31 the next row's): 4 phases
    # of 1; Bs[k][tx] is a broadcast across the two rows; the tile stores are rows.
    "sgemm_tiled<16>": {("store", 32, 1, 1): 2, ("load", 32, 1, 1): 16, ("load", 128, 4, 4): 4},
    # tile[threadIdx.x][threadIdx.y + j]: 32 lanes 128 bytes apart, all in one bank
    "transpose<32, 8, 0>": {("store", 32, 1, 1): 4, ("load", 32, 32, 1): 4},
    "transpose<32, 8, 1>": {("store", 32, 1, 1): 4, ("load", 32, 1, 1): 4},  # [32][33]
    # sdata[2*s*tid] over s = 1..128, the loop unrolled: stride 2 words is 2-way, 4 is 4-way,
    # 8 is 8-way; from s = 8 the guard index < 256 leaves 16, 8, 4, 2, 1 lanes: 8, 8, 4, 2, 1
    # ways. At s = 1 ptxas reads sdata[2t] and sdata[2t+1] as one LDS.64: 2 phases of 1.
    "reduce_interleaved": {
        ("store", 32, 1, 1): 2,  # sdata[tid] = in[...], and s = 128
        ("store", 32, 2, 1): 2,  # s = 1, 64
        ("store", 32, 4, 1): 2,  # s = 2, 32
        ("store", 32, 8, 1): 3,  # s = 4, 8, 16
        ("load", 64, 2, 2): 1,  # s = 1
        ("load", 32, 2, 1): 2,  # s = 64
        ("load", 32, 4, 1): 4,  # s = 2, 32
        ("load", 32, 8, 1): 6,  # s = 4, 8, 16
        ("load", 32, 1, 1): 3,  # s = 128, and sdata[0] by tid 0
    },
    "reduce_sequential": {("store", 32, 1, 1): 9, ("load", 32, 1, 1): 17},
    # local[in[i]]++ is an ATOMS at an address loaded from memory: unknown (a gather)
    "histogram": {("store", 32, 1, 1): 1, ("atomic", 32, None, 1): 1, ("load", 32, 1, 1): 1},
    # t[18][18] read by two rows of 16: rows 18 words apart share 2 banks (2-way); the halo
    # stores are 2 lanes in different banks
    "stencil": {("store", 32, 2, 1): 1, ("store", 32, 1, 1): 2, ("load", 32, 2, 1): 4},
}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kernel", sorted(LAUNCHED))
def test_the_block_is_the_launched_one(mode: str, arch: str, kernel: str) -> None:
    block = run(coalescing, mode, arch, kernel).facts["block"]
    assert block.startswith(f"one warp of a {LAUNCHED[kernel]} block (from the launch at ")
    assert block.endswith(")") and "real_memory.cu:1" in block


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kernel", sorted(SECTORS))
def test_sectors_counted_by_hand(mode: str, arch: str, kernel: str) -> None:
    assert counted(run(coalescing, mode, arch, kernel), *GLOBAL) == SECTORS[kernel]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kernel", sorted(WAVEFRONTS))
def test_wavefronts_counted_by_hand(mode: str, arch: str, kernel: str) -> None:
    assert counted(run(bank_conflicts, mode, arch, kernel), *SHARED) == WAVEFRONTS[kernel]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_gemv_one_row_a_thread_against_one_row_a_warp(mode: str, arch: str) -> None:
    # Row per thread: A[row * n + j] puts lanes n floats apart (a run-time stride: a sector
    # each) while x[j] is one address; ptxas unrolls j by 16 and leaves remainder loops,
    # entered from two places with pointers that differ by a uniform amount on paths chosen
    # by the trip count: every copy, the remainders' too, is counted alike.
    per_thread = run(coalescing, mode, arch, "gemv_row_per_thread")
    loads = counted(per_thread, *GLOBAL)
    assert set(loads) == {("load", 32, 32, 4), ("load", 32, 1, 4), ("store", 32, 4, 4)}
    assert loads[("load", 32, 32, 4)] == loads[("load", 32, 1, 4)] == 29
    (finding,) = [a for a in per_thread.annotations if a.kind == "uncoalesced"]
    assert finding.data["sectors"] == 32 and "in a loop" in finding.message
    # Row per warp: A[row * n + j], j = lane + 32 i: 4 sectors in every copy. The trip count
    # differs by lane (j < n); like a bounds check it is taken to send the warp one way,
    # true in all but the last iterations (graph/lane_guards.py says so).
    per_warp = run(coalescing, mode, arch, "gemv_row_per_warp")
    assert not [a for a in per_warp.annotations if a.kind == "uncoalesced"]
    assert counted(per_warp, *GLOBAL) == {("load", 32, 4, 4): 58, ("store", 1, 1, 1): 1}


ATOMICS = """
__global__ void atomics(unsigned* out) {
    __shared__ unsigned s[1024];
    s[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&s[threadIdx.x], 1u);       // every lane its own word, consecutive: 1 wavefront
    atomicAdd(&s[threadIdx.x * 32], 1u);  // every lane its own word, all in bank 0: 32-way
    atomicAdd(&s[threadIdx.x % 4], 1u);   // 8 lanes on each of 4 words: serialised, unknown
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
"""


@pytest.mark.compile
def test_shared_atomics_are_counted_by_bank_or_said_serialised() -> None:
    import sassview as sv

    prog = sv.compile(ATOMICS, arch="sm_90a")
    (k,) = prog.kernels
    facts = bank_conflicts.run(AnalysisContext(prog, k, None, (), None)).facts  # type: ignore[arg-type]
    atomics = [a for a in facts["accesses"] if a["direction"] == "atomic"]
    assert [(a["wavefronts"], a["ways"]) for a in atomics] == [(1, 1), (32, 32), (None, None)]
    assert "update one word" in (atomics[2]["unknown"] or "")


@pytest.mark.parametrize("arch", ARCHS)
def test_findings_point_at_what_can_be_fixed(arch: str) -> None:
    # An array of structures: the fix is a structure of arrays, not swapping thread roles.
    aos = run(coalescing, "recorded", arch, "aos_scale").annotations
    assert {a.kind for a in aos} == {"uncoalesced"}
    assert all("4 bytes of every 12" in a.hint and "structure of arrays" in a.hint for a in aos)
    # The stencil's halo columns (lanes 0 and 16, a sector each): info, not a note, and no
    # narrow-access note for them either; its 2-way bank conflicts stay notes.
    stencil = [
        *run(coalescing, "recorded", arch, "stencil").annotations,
        *run(memory_width, "recorded", arch, "stencil").annotations,
    ]
    halo = [a for a in stencil if a.kind == "uncoalesced"]
    assert halo and all(a.severity is Severity.INFO for a in halo)
    assert "a sector of their own" in halo[0].message
    assert not [a for a in stencil if a.kind == "narrow-access" and a.severity is Severity.NOTE]


INTERLEAVED = """
__global__ void interleaved(const float* __restrict__ a, float* __restrict__ out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = a[i];
    s += a[33 * i];
    s += a[i + 4096];
    s += a[33 * i + 1];
    s += a[i + 8192];
    s += a[33 * i + 2];
    out[i] = s;
}
"""


@pytest.mark.compile
def test_narrow_lines_interleaved_with_coalesced_ones_are_one_note() -> None:
    # Lines 4-9 alternate coalesced 32-bit loads (info: instructions, not traffic) and
    # uncoalesced ones (a note): one note for the three uncoalesced lines, one info for the
    # rest, as a generated kernel of thousands of such lines must read (not a note a line).
    import sassview as sv

    prog = sv.compile(INTERLEAVED, arch="sm_90a")
    (k,) = prog.kernels
    found = memory_width.run(AnalysisContext(prog, k, None, (), None)).annotations  # type: ignore[arg-type]
    narrow = [a for a in found if a.kind == "narrow-access"]
    notes = [a for a in narrow if a.severity is Severity.NOTE]
    infos = [a for a in narrow if a.severity is Severity.INFO]
    assert len(notes) == 1 and notes[0].message.startswith("3 lines (5-9): ")
    assert len(infos) == 1 and infos[0].data["lines"] and "coalesced" in infos[0].message


def app(module: Any, kernel: str) -> Findings:
    prog = program("recorded", "real_app", "sm_90a")
    k = prog.kernel(kernel)
    return module.run(AnalysisContext(prog, k, None, (), None))  # type: ignore[no-any-return, arg-type]


def test_library_shaped_kernels_counted_by_hand() -> None:
    # tests/data/analyses/sources/real_app.cu, warp 0 of main()'s launches.
    # softmax_rows<256>: row[c] and out[c], c = threadIdx.x + 256 i in three block-stride
    # loops (their remainder tests chosen by the trip count): 32 consecutive floats, 4
    # sectors, every one of the 68. The third loop's `/ s` calls the division slow path, a
    # subroutine ptxas puts after the kernel and calls from the remainder copy and from each
    # of the 4 unrolled copies: its RET's edges lead to every call's return site, a cycle
    # through both loops that is no loop; a return site now takes its registers from its
    # own call (graph/lane_calls.py; the subroutine writes none of the addresses'), and the
    # slow path's branch (FCHK, data) rejoins before the index is written. red[] by one lane
    # or 8 lanes in a row: no conflict.
    softmax = app(coalescing, "softmax_rows")
    assert softmax.facts["block"].endswith("(from the launch at real_app.cu:76)")
    assert counted(softmax, *GLOBAL) == {("load", 32, 4, 4): 63, ("store", 32, 4, 4): 5}
    shared = counted(app(bank_conflicts, "softmax_rows"), *SHARED)
    assert {ways for _, _, ways, _ in shared} == {1}
    # staged_scale: cp.async of a float4 a lane (16 of 16 sectors), the float4 stores alike,
    # LDS.128 of consecutive float4s: 4 phases of 8 lanes, 4 wavefronts.
    assert counted(app(coalescing, "staged_scale"), *GLOBAL) == {
        ("load", 32, 16, 16): 6,
        ("store", 32, 16, 16): 5,
    }
    assert counted(app(bank_conflicts, "staged_scale"), *SHARED) == {("load", 128, 4, 4): 5}
    # wmma_gemm: load_matrix_sync straight from global memory. Lane l holds rows l/4 and
    # l/4 + 8, columns 2(l%4) and +8, a 32-bit pair each: per LDG 8 rows of 4 lanes x 4
    # bytes, rows K halves apart: 8 sectors where 4 would do (the fix: stage through shared
    # memory). A's rows start at warpM * 16 * K, warpM = (blockIdx.x * 128 + threadIdx.x) /
    # 32, which ptxas computes as (gid >> 1) & 0x7ffffff0: the mask clears the lane bits and
    # bit 31, so the row is one value in the warp (lane_values._split_bits). 4 fragments of
    # A and 4 of B a step, 4 unrolled copies and a remainder: 40 loads. store_matrix_sync
    # (row-major, ldm N): rows l/4 of 4 lanes x 8 bytes, 32 bytes a row: 8 of 8, 4 stores.
    wmma = app(coalescing, "wmma_gemm")
    assert counted(wmma, *GLOBAL) == {("load", 32, 8, 4): 40, ("store", 32, 8, 8): 4}


def warps(module: Any, mode: str, arch: str, kernel: str, block: Any = None) -> Findings:
    prog = program(mode, "real_warps", arch)
    k = prog.kernel(program("recorded", "real_warps", arch).kernel(kernel).name)
    return module.run(AnalysisContext(prog, k, None, (), None, block))  # type: ignore[no-any-return, arg-type]


# tests/data/analyses/sources/real_warps.cu, warp 0 of main()'s launches (256 threads, 128 for
# wmma_shared).
WARP_SECTORS: dict[str, dict[tuple[Any, ...], int]] = {
    # warp = gid / 32 and lane = gid % 32 of the signed int gid = blockIdx.x * 256 +
    # threadIdx.x: ptxas adds (gid >> 31) >>> 27 before the shift, 0 for an index that is
    # not negative (lane_values.nonnegative), so warp is one value and lane 0..31.
    # a[warp * n + j], j = lane + 32 i: 32 consecutive floats, 4 sectors, in every copy of
    # the loop ptxas unrolls by 16 and its remainders (29 loads); out[warp] by lane 0 alone.
    "warp_rows": {("load", 32, 4, 4): 29, ("store", 1, 1, 1): 1},
    # x[gid]: 4 sectors; out[gid / 16] by each 16-thread tile's rank 0 (`LOP3.LUT P0, RZ,
    # R4, 0xf, RZ, 0xc0`: threadIdx.x & 15 != 0 exits): lanes 0 and 16, adjacent words, 1
    # sector of 1.
    "tile16_sums": {("load", 32, 4, 4): 1, ("store", 2, 1, 1): 1},
    # block_sum: in[i] and in[i + 256], i = blockIdx.x * 512 + threadIdx.x: 4 sectors each;
    # out[blockIdx.x] by thread 0, whose `ISETP.NE P1, tid, RZ` comes before the loops and
    # the tail and reaches the `@P1 EXIT` after them along every path: 1 lane, 1 sector.
    # (Its shared accesses, sdata[tid + s] for s = 128, 64, then 32 ... 1 through the
    # volatile pointer, and sdata[0]: 32 consecutive words or one, 1 wavefront each.)
    "block_sum": {("load", 32, 4, 4): 2, ("store", 1, 1, 1): 1},
    # a[e] and b[e], halves, e = lane + 32 i: 64 bytes, 2 sectors of 2 (14 loads: the loop
    # of 8 steps as ptxas splits it, 4 + 2 + 1 copies of the two). The stores of the
    # accumulator (ldm 16 floats): rows l/4 of 4 lanes x 8 bytes, 32 bytes each: 8 of 8.
    "wmma_shared": {("load", 32, 2, 2): 14, ("store", 32, 8, 8): 4},
}
# (warp_scale, the warp within the block from a signed threadIdx.x, was counted before: it
# is in the PTX derivation's comparison, tests/test_coalescing.py.)
WARP_WAVEFRONTS: dict[str, dict[tuple[Any, ...], int]] = {
    # As[warp][(e / 16) * 24 + e % 16] (signed e / 16 and e % 16 of e = lane + 32 i, after
    # the loop too, where e came either way): lanes 0-15 bytes 0-31 of a row, 16-31 bytes
    # 48-79 of the next (24 halves a row): words 0-7 and 12-19, no bank twice: 1 wavefront,
    # 14 stores. load_matrix_sync from the tiles (ldm 24 halves, 48 bytes) is one LDSM.x4:
    # 4 phases of 8 rows 48 bytes apart, rows of 4 banks at 0, 12, 24, 4, 16, 28, 8, 20: every
    # bank once, 4 wavefronts (matrix_a and matrix_b, col-major, alike).
    "wmma_shared": {("store", 16, 1, 1): 14, ("load", 128, 4, 4): 2},
}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kernel", sorted(WARP_SECTORS))
def test_warps_placed_by_their_own_index_counted_by_hand(mode: str, arch: str, kernel: str) -> None:
    assert counted(warps(coalescing, mode, arch, kernel), *GLOBAL) == WARP_SECTORS[kernel]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kernel", sorted(WARP_WAVEFRONTS))
def test_warps_shared_tiles_counted_by_hand(mode: str, arch: str, kernel: str) -> None:
    found = counted(warps(bank_conflicts, mode, arch, kernel), *SHARED)
    assert found == WARP_WAVEFRONTS[kernel]


@pytest.mark.parametrize("arch", ARCHS)
def test_a_warp_id_of_a_block_not_known_is_unknown_and_says_so(arch: str) -> None:
    # Without the launch (the default warp: 32 consecutive threadIdx.x), gid / 32 depends on
    # blockIdx.x * blockDim.x modulo 32: the lanes may straddle two warp ids. Unknown, with
    # the way out.
    from sassview.graph.lanes import DEFAULT_BLOCK

    facts = warps(coalescing, "recorded", arch, "warp_rows", DEFAULT_BLOCK).facts
    reasons = {a["unknown"] for a in facts["accesses"]}
    (reason,) = reasons
    assert reason is not None and "not known to be a multiple of 32" in reason
    assert "pass --block" in reason


@pytest.mark.parametrize("arch", ARCHS)
def test_a_bit_test_guard_splits_a_warp_but_does_not_drop_one(arch: str) -> None:
    # `if (t16.thread_rank() == 0)` is `LOP3.LUT P0, RZ, R4, 0xf, RZ, 0xc0, !PT` then
    # `@P0 EXIT`: lanes 0 and 16 store. A bit test the same in all of warp 0's lanes says
    # which warps, not which lanes: setmaxnreg.cu's consumers (`threadIdx.x / 128 != 0`, a
    # LOP3 against 0xffffff80) are warps 4-11, and their accesses are counted as warp 0's
    # would be (93 loads and 93 stores of in[threadIdx.x + 384 j], 4 sectors), not dropped.
    tile = counted(warps(coalescing, "recorded", arch, "tile16_sums"), *GLOBAL)
    assert tile[("store", 2, 1, 1)] == 1
    prog = program("recorded", "setmaxnreg", "sm_90a")
    k = prog.kernel("overcommitted")
    f = coalescing.run(AnalysisContext(prog, k, None, (), None))  # type: ignore[arg-type]
    assert counted(f, *GLOBAL) == {("load", 32, 4, 4): 93, ("store", 32, 4, 4): 93}
