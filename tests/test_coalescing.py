"""Coalescing and bank conflicts on kernels whose every access is known by construction
(tests/data/analyses/sources/coalescing.cu: each kernel's comment gives its answer).

Every check runs on the four models of analyses_data (live NVRTC, marked `compile`; the
recorded cubin; the recorded -json and text listings, no tool at all), on sm_80 and sm_90a,
whose address arithmetic differs (sm_80: c[0x0][0x160] pointers, [R0.X4] shared forms;
sm_90a: LDC.64 pointers, the shared window's base from SR_CgaCtaId, [R+UR] forms).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from analyses_data import MODES, program, rec

from sassview.analyses import bank_conflicts, coalescing
from sassview.analyses.base import AnalysisContext, Findings, Severity
from sassview.analyses.warp import stride_of
from sassview.graph.lanes import BlockShape, parse_block
from sassview.inspection import inspect_program
from sassview.testing import BankConflictFound, CoalescingMismatch, KernelUnderTest

ARCHS = ["sm_80", "sm_90a"]
SOURCE = rec.source_path("coalescing").read_text().splitlines()


def line_of(text: str, kernel: str | None = None) -> int:
    """The 1-based source line holding `text` (in `kernel`, when given), so no test
    hard-codes a line number."""
    start = 0 if kernel is None else line_of(f"void {kernel}(")
    found = [n for n, line in enumerate(SOURCE, 1) if n > start and text in line]
    assert found and (kernel is not None or len(found) == 1), text
    return found[0]


def run(
    module: Any,
    mode: str,
    arch: str,
    kernel: str,
    block: str | None = None,
    case: str = "coalescing",
) -> Findings:
    prog = program(mode, case, arch)
    shape = parse_block(block) if block else None
    ctx = AnalysisContext(prog, prog.kernel(kernel), None, (), None, shape)  # type: ignore[arg-type]
    return module.run(ctx)  # type: ignore[no-any-return]


def shapes(f: Findings, *keys: str) -> set[tuple[Any, ...]]:
    return {tuple(a[k] for k in keys) for a in f.facts["accesses"]}


GLOBAL = ("direction", "sectors", "min_sectors", "stride")
# kernel -> every (direction, sectors, fewest sectors, lane stride in bytes) of its accesses
SECTORS: dict[str, set[tuple[Any, ...]]] = {
    "stride1": {("load", 4, 4, 4), ("store", 4, 4, 4)},
    "stride2": {("load", 8, 4, 8), ("store", 4, 4, 4)},
    "stride32": {("load", 32, 4, 128), ("store", 4, 4, 4)},
    "rows": {("load", 4, 4, 4), ("store", 4, 4, 4)},
    "columns": {("load", 32, 4, 4096), ("store", 32, 4, 4096)},
    "vec2": {("load", 8, 8, 8), ("store", 8, 8, 8)},
    "vec4": {("load", 16, 16, 16), ("store", 16, 16, 16)},
    "misaligned": {("load", 5, 4, 4), ("store", 4, 4, 4)},
    "broadcast": {("load", 1, 4, 0), ("store", 4, 4, 4)},
    "gather": {("load", 4, 4, 4), ("load", None, 4, None), ("store", 4, 4, 4)},
    # A[row*N + k]: row from threadIdx.x, 4096 bytes a lane; B[k*N + col]: 4 bytes a lane;
    # C[row*N + col]: both from threadIdx.x, 4100 bytes a lane.
    "naive_gemm": {("load", 32, 4, 4096), ("load", 4, 4, 4), ("store", 32, 4, 4100)},
}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_sectors_per_warp_follow_the_index_arithmetic(mode: str, arch: str) -> None:
    for kernel, expected in SECTORS.items():
        f = run(coalescing, mode, arch, kernel)
        assert shapes(f, *GLOBAL) == expected, kernel
        assert f.facts["block"].startswith("one warp of 32 consecutive threadIdx.x")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_block_shape_changes_which_threads_share_a_warp(mode: str, arch: str) -> None:
    # 16x16: a warp is two rows of 16 threads. A row walk is two 64-byte runs, 4096 bytes
    # apart (4 sectors, coalesced, no single stride); a column walk has threadIdx.y pairs
    # (t, t+16) in one sector: 16 sectors.
    f = run(coalescing, mode, arch, "rows", "16x16")
    assert shapes(f, "sectors", "stride", "coalesced") == {(4, None, True)}
    (pattern,) = shapes(f, "pattern")
    assert pattern == ("lane stride 4 bytes for 16 lanes, then +4036",)
    f = run(coalescing, mode, arch, "columns", "16x16")
    assert shapes(f, "sectors", "coalesced") == {(16, False)}
    assert f.facts["block"] == "one warp of a 16x16x1 block (from --block)"
    # A block smaller than a warp: 8 lanes of 4 bytes are one sector.
    f = run(coalescing, mode, arch, "stride1", "8")
    assert shapes(f, "sectors", "min_sectors", "active_lanes") == {(1, 1, 8)}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_unknown_addresses_say_why_and_count_nothing(mode: str, arch: str) -> None:
    f = run(coalescing, mode, arch, "gather")
    (unknown,) = [a for a in f.facts["accesses"] if a["sectors"] is None]
    assert "a gather" in unknown["unknown"] and unknown["coalesced"] is None
    assert f.facts["unknown"] == 1 and not f.annotations
    # The XOR swizzle mixes threadIdx.x with threadIdx.y, which the default warp leaves
    # symbolic: unknown, not a guess; with the block known it is exact (below).
    f = run(bank_conflicts, mode, arch, "tile_swizzled")
    assert {a["ways"] for a in f.facts["accesses"]} == {None}
    assert all("LOP3" in a["unknown"] for a in f.facts["accesses"])


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_the_alignment_assumption_is_said(mode: str, arch: str) -> None:
    f = run(coalescing, mode, arch, "stride1")
    assert all(a["assumption"] == coalescing.ALIGNMENT_ASSUMPTION for a in f.facts["accesses"])
    f = run(coalescing, mode, arch, "broadcast")  # one address: no alignment matters
    (load,) = [a for a in f.facts["accesses"] if a["direction"] == "load"]
    assert load["assumption"] is None


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_uncoalesced_findings_name_the_line_the_stride_and_the_fix(mode: str, arch: str) -> None:
    f = run(coalescing, mode, arch, "naive_gemm")
    a_line, c_line = line_of("acc += A[row * N + k]"), line_of("C[row * N + col] = acc")
    load, store = f.annotations
    assert load.kind == "uncoalesced" and load.severity is Severity.WARNING  # in the k loop
    assert load.data["line"] == a_line and load.data["stride"] == 4096
    assert load.data["accesses"] == 16  # the loop is unrolled by 16: one finding for the line
    assert load.message.startswith(f"line {a_line}: global load touches 32 sectors per warp")
    assert "threadIdx.x" in load.hint and "shared memory" in load.hint
    assert store.severity is Severity.NOTE and store.data["line"] == c_line
    f = run(coalescing, mode, arch, "misaligned")
    (note,) = f.annotations
    assert note.data["sectors"] == 5 and "32-byte boundary" in note.hint
    for kernel in ("stride1", "rows", "vec2", "vec4", "broadcast"):
        assert run(coalescing, mode, arch, kernel).annotations == (), kernel


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_stride_known_only_at_run_time_is_counted_with_its_condition(
    mode: str, arch: str
) -> None:
    # The naive SGEMM with run-time k and n: A[x*k + i] and C[x*n + y] stride 4k and 4n
    # bytes a lane (32 sectors once k, n are large enough, which the fact says); B[i*n + y]
    # is one address for the warp.
    f = run(coalescing, mode, arch, "sgemm_runtime")
    known = {s for s in shapes(f, *GLOBAL) if s[1] is not None}
    assert known == {("load", 32, 4, None), ("load", 1, 4, 0), ("store", 32, 4, None)}
    strided = [a for a in f.facts["accesses"] if a["sectors"] == 32]
    assert all("a run-time value" in a["pattern"] for a in strided)
    assert all("is taken as at least 9" in a["assumption"] for a in strided)
    # Where ptxas enters the remainder loop from two places, the index's values disagree on
    # the paths: unknown, with that reason (sm_80's code), never a guess.
    assert all("disagree" in a["unknown"] for a in f.facts["accesses"] if a["sectors"] is None)
    load, store = f.annotations
    assert load.severity is Severity.WARNING and load.data["sectors"] == 32
    assert load.data["line"] == line_of("acc += A[x * k + i]")
    assert store.data["line"] == line_of("C[x * n + y] = acc")


BANKS = ("direction", "wavefronts", "ideal", "ways")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_bank_conflicts_follow_the_hardware_rule(mode: str, arch: str) -> None:
    # With a 32x32 block a warp is one row: threadIdx.y is 0 in it.
    f = run(bank_conflicts, mode, arch, "tile_rows_cols", "32x32")
    assert shapes(f, *BANKS) == {("store", 1, 1, 1), ("load", 1, 1, 1), ("load", 32, 1, 32)}
    (finding,) = f.annotations
    assert finding.kind == "bank-conflict" and finding.data["ways"] == 32
    assert finding.data["line"] == line_of("tile[threadIdx.y][threadIdx.x] + tile[threadIdx.x]")
    assert "[32][33]" in finding.hint
    for kernel in ("tile_padded", "tile_swizzled"):
        f = run(bank_conflicts, mode, arch, kernel, "32x32")
        assert shapes(f, "ways") == {(1,)}, kernel
        assert f.annotations == (), kernel
    # 64-bit: two half-warp phases; float2 at a 16-byte stride is 2-way in each.
    f = run(bank_conflicts, mode, arch, "shared64")
    assert shapes(f, *BANKS) == {("store", 2, 2, 1), ("load", 2, 2, 1), ("load", 4, 2, 2)}
    # 128-bit: four quarter-warp phases; float4 at a 32-byte stride is 2-way in each.
    f = run(bank_conflicts, mode, arch, "shared128")
    assert shapes(f, *BANKS) == {("store", 4, 4, 1), ("load", 4, 4, 1), ("load", 8, 4, 2)}
    assert f.facts["worst_ways"] == 2 and f.facts["conflicted"] == 1


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_ldmatrix_is_counted_by_its_row_addresses(mode: str, arch: str) -> None:
    # 16x16 halves: rows 32 bytes apart, rows r and r + 4 of each 8x8 matrix share banks.
    f = run(bank_conflicts, mode, arch, "ldmatrix_rows32")
    (ldsm,) = [a for a in f.facts["accesses"] if a["opcode"].startswith("LDSM")]
    assert (ldsm["wavefronts"], ldsm["ideal"], ldsm["ways"]) == (8, 4, 2)
    (finding,) = f.annotations
    assert finding.data["ways"] == 2 and finding.data["line"] == line_of(
        "ldmatrix_tile<16>(a, out)"
    )  # the call site: outermost
    # Rows padded to 48 bytes: each matrix's 8 rows cover the 32 banks once.
    f = run(bank_conflicts, mode, arch, "ldmatrix_rows48")
    assert shapes(f, "ways") == {(1,)} and f.annotations == ()
    assert {a["wavefronts"] for a in f.facts["accesses"] if a["opcode"].startswith("LDSM")} == {4}


def test_the_phase_rule_on_addresses_written_out() -> None:
    lanes = [4 * t for t in range(32)]
    assert bank_conflicts.wavefronts(lanes, 4, 32) == [1]
    assert bank_conflicts.wavefronts([0] * 32, 4, 32) == [1]  # a broadcast
    assert bank_conflicts.wavefronts([128 * t for t in range(32)], 4, 32) == [32]
    assert bank_conflicts.wavefronts([132 * t for t in range(32)], 4, 32) == [1]  # padded
    # LDSM.x4: 32 row addresses of 16 bytes, 8 rows a matrix; rows 128 bytes apart conflict.
    assert bank_conflicts.phases("LDSM", 128, 32) == (16, 8, 32)
    assert bank_conflicts.wavefronts([16 * t for t in range(32)], 16, 8) == [1, 1, 1, 1]
    assert bank_conflicts.wavefronts([128 * t for t in range(32)], 16, 8) == [8, 8, 8, 8]


def _under_test(arch: str, kernel: str, block: BlockShape | None = None) -> KernelUnderTest:
    (insp,) = inspect_program(program("json", "coalescing", arch), kernel, block=block)
    return KernelUnderTest(insp)


@pytest.mark.parametrize("arch", ARCHS)
def test_matchers_pass_on_coalesced_code_and_explain_the_rest(arch: str) -> None:
    _under_test(arch, "stride1").assert_coalesced()
    _under_test(arch, "stride2").assert_coalesced(direction="store")
    k = _under_test(arch, "stride32")
    k.assert_sectors(line=line_of("out[i] = a[32 * i]"), max=32)
    with pytest.raises(CoalescingMismatch) as err:
        k.assert_coalesced(lines=line_of("out[i] = a[32 * i]"))
    assert "32 sectors, min 4 (lane stride 128 bytes)" in str(err.value)
    with pytest.raises(CoalescingMismatch, match="touch more than 4"):
        k.assert_sectors(line=line_of("out[i] = a[32 * i]"), max=4)
    with pytest.raises(CoalescingMismatch, match="a gather"):
        _under_test(arch, "gather").assert_coalesced()


@pytest.mark.parametrize("arch", ARCHS)
def test_bank_conflict_matcher(arch: str) -> None:
    block = BlockShape(32, 32, 1, "--block")
    _under_test(arch, "tile_padded", block).assert_no_bank_conflicts()
    k = _under_test(arch, "tile_rows_cols", block)
    k.assert_no_bank_conflicts(
        lines=line_of("tile[threadIdx.y][threadIdx.x] = a[", "tile_rows_cols")
    )
    with pytest.raises(BankConflictFound) as err:
        k.assert_no_bank_conflicts()
    assert "32-way, 32 wavefronts where 1 would do" in str(err.value)
    with pytest.raises(BankConflictFound, match="unknown"):
        _under_test(arch, "tile_swizzled").assert_no_bank_conflicts()


def test_check_prints_and_reports_memory_use_for_a_block() -> None:
    cubin = rec.HERE / "coalescing" / "sm_80" / "kernel.cubin"
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "check", str(cubin), "--block", "32x32", "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (prog,) = json.loads(done.stdout)["programs"]
    use = {k["name"]: k["analysis"]["memory_use"] for k in prog["kernels"]}
    assert use["tile_rows_cols"]["text"] == (
        "global: 2 of 2 accesses coalesced; shared: 1 32-way conflict"
    )
    assert use["tile_padded"]["shared"] == {"conflicted": 0, "unknown": 0, "worst_ways": 1}
    assert use["stride32"]["global"] == {"coalesced": 1, "uncoalesced": 1, "unknown": 0}
    assert {a["sectors"] for a in use["stride32"]["global_accesses"]} == {4, 32}
    assert use["stride1"]["block"] == "one warp of a 32x32x1 block (from --block)"
    text = subprocess.run(
        [sys.executable, "-m", "sassview", "check", str(cubin), "-k", "gather"],
        capture_output=True, text=True, timeout=300,
    ).stdout  # fmt: skip
    assert (  # a row of the kernel's report, with the block shape the counts assume
        "  memory use     global: 2 of 3 accesses coalesced (1 unknown); shared: none\n"
        "                 assumes one warp of 32 consecutive threadIdx.x (no --block)\n" in text
    )
    long = subprocess.run(
        [sys.executable, "-m", "sassview", "check", str(cubin), "-k", "tile_swizzled"],
        capture_output=True, text=True, timeout=300,
    ).stdout.splitlines()  # fmt: skip
    start = next(n for n, line in enumerate(long) if line.startswith("  memory use"))
    row = long[start : start + 3]  # global, shared and the assumption: too long for one line
    assert row[1].strip() == "shared: 2 accesses, all unknown"  # not "no conflicts in 2"
    assert row[2].strip().startswith("assumes ")
    assert all(len(line) <= 80 for line in row), row  # fits an 80-column terminal


def same_widths(
    sass: set[tuple[Any, ...]], ptx: set[tuple[Any, ...]]
) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """Both sides' shapes of the (direction, width) pairs both have. ptxas merges neighbouring
    PTX accesses into wider ones (real_memory's sgemm: four `ld.shared.f32` of As[ty][k..k+3]
    are one LDS.128) and narrows ones partly used (half_float4: `ld.global.v4.f32` of which
    two lanes' words are read becomes LDG.E.64): a width only one side has is not compared."""
    widths = {(d, bits) for d, bits, *_ in sass} & {(d, bits) for d, bits, *_ in ptx}
    return (
        {s for s in sass if (s[0], s[1]) in widths},
        {s for s in ptx if (s[0], s[1]) in widths},
    )


@pytest.mark.parametrize("case", ["coalescing", "lane_forms", "real_memory", "real_warps"])
@pytest.mark.parametrize("block", [None, "32x32", "16x16"])
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", ["recorded", "json"])
def test_the_ptx_derivation_agrees_on_every_recorded_kernel(
    mode: str, arch: str, block: str | None, case: str
) -> None:
    # The PTX's own arithmetic (tests/ptx_lanes.py), walked independently of the SASS model,
    # must give every kernel the same sectors and wavefronts, unknowns included.
    import ptx_lanes

    from sassview.analyses.warp import block_shape
    from sassview.graph.lanes import instances

    prog = program(mode, case, arch)
    for k in prog.kernels:
        assert k.ptx is not None
        # No --block: the shape the analyses take (.reqntid, the file's launches, the default)
        context = AnalysisContext(prog, k, None, (), None)  # type: ignore[arg-type]
        shape = parse_block(block) if block else block_shape(context)
        from_ptx = ptx_lanes.accesses(k.ptx, shape)
        glob, shared = set(), set()
        for a in from_ptx:
            if a.space == "global":
                if a.lanes is None or not a.mask:  # not followed, or no lane runs it
                    glob.add((a.direction, a.bits, None, None))
                    continue
                lanes = [x for n, x in enumerate(a.lanes.lanes) if a.mask >> n & 1]
                stride = None if a.lanes.scaled else stride_of(lanes)
                count = coalescing.warp_sectors(a.lanes, a.bits // 8, a.mask)
                if isinstance(count, str):  # a wrapped index whose count depends on r
                    count = stride = None
                glob.add((a.direction, a.bits, count, stride))
            else:
                if a.lanes is None or a.lanes.scaled or not a.mask:
                    shared.add((a.direction, a.bits, None, None))
                    continue
                opcode = "LDSM" if a.matrix else "LDS"
                nbytes, per_phase, part = bank_conflicts.phases(opcode, a.bits, 32)
                mask = ptx_lanes.ALL if a.matrix else a.mask
                every = instances(a.lanes, 4) or []
                counts = {
                    tuple(bank_conflicts.wavefronts(lanes[:part], nbytes, per_phase, mask))
                    for lanes in every
                }
                if len(counts) != 1:
                    shared.add((a.direction, a.bits, None, None))
                    continue
                (per,) = counts
                shared.add((a.direction, a.bits, sum(per), max(per)))
        # The PTX walk takes each register's last definition in the text, so it does not see
        # paths whose values disagree (a remainder loop entered from two places): the SASS
        # model's unknowns of that kind are left out of the comparison, nothing else.
        f = run(coalescing, mode, arch, k.name, block, case)
        on_paths = {
            (a["direction"], a["bits"], None, None)
            for a in f.facts["accesses"]
            if a["unknown"] and "disagree" in a["unknown"]
        }
        found, glob = same_widths(shapes(f, "direction", "bits", "sectors", "stride"), glob)
        assert found - on_paths == glob - on_paths, k.name
        f = run(bank_conflicts, mode, arch, k.name, block, case)
        found, shared = same_widths(shapes(f, "direction", "bits", "wavefronts", "ways"), shared)
        assert found == shared, k.name
        assert len(from_ptx) > 0, k.name


@pytest.mark.compile
def test_a_guarded_load_follows_definitions_under_its_own_guard() -> None:
    # The shared-memory SGEMM example loads its tiles as `@!P1 MOV R8, R16; @!P1 MOV R9, R7;
    # @!P1 LDG [R8.64]` (a bounds check): where the load runs, so did the moves.
    import sassview

    root = rec.ROOT / "examples" / "matmul"
    (insp,) = inspect_program(sassview.compile(path=root / "02_smem_tiled.cu", arch="sm_90a"))
    glob = insp.facts("coalescing")
    assert glob["unknown"] == 0 and glob["coalesced"] == len(glob["accesses"]) == 3
    assert insp.facts("bank_conflicts")["unknown"] == 0


@pytest.mark.compile
def test_a_counter_zeroed_with_its_neighbour_by_cs2r_is_followed() -> None:
    # sm_90a starts `acc` and `i` of `acc = fmaf(s[(threadIdx.x + i) % 512], s[i % 512], acc)`
    # with one `CS2R R2, SRZ`, both registers zero: every read of s, the unrolled copies' and
    # the remainder's, is 32 consecutive words wrapping at 512 or one word, 1 wavefront.
    import sassview

    prog = sassview.compile(path=rec.ROOT / "tests/corpus/sources/mma.cu", arch="sm_90a")
    k = prog.kernel("_Z13cp_async_ffmaPKfPfi")
    assert any(i.opcode == "CS2R" and i.operands[-1].text == "SRZ" for i in k.instructions)
    facts = bank_conflicts.run(AnalysisContext(prog, k, None, (), None)).facts  # type: ignore[arg-type]
    assert len(facts["accesses"]) == 10
    assert {(a["wavefronts"], a["unknown"]) for a in facts["accesses"]} == {(1, None)}


@pytest.mark.compile
def test_a_tile_loaded_by_a_block_stride_loop_divides_its_index() -> None:
    # tests/corpus/sources/real/gemm_runner: As[i] = A[(row0 + i / BK) * K + k0 + i % BK] for
    # i = threadIdx.x + blockDim.x * j, signed (`LEA.HI.SX32`). With the block known
    # (--block 256 for <128, 128, 8, 8>) warp 0 reads 4 rows of 8 floats: 4 sectors, and B's
    # row of 32; the launch's block is a template expression, so without --block i's step is
    # blockDim.x, unknown modulo 8: unknown, and the reason says to pass --block.
    import sassview

    path = rec.ROOT / "tests/corpus/sources/real/gemm_runner/runner.cu"
    prog = sassview.compile(path=path, arch="sm_90a")
    k = prog.kernel("_Z11sgemm_tiledILi128ELi128ELi8ELi8EEviiiPKfS1_Pf")
    ctx = AnalysisContext(prog, k, None, (), None, parse_block("256"))  # type: ignore[arg-type]
    loads = [a for a in coalescing.run(ctx).facts["accesses"] if a["direction"] == "load"]
    assert [(a["sectors"], a["min_sectors"]) for a in loads] == [(4, 4), (4, 4)]
    assert loads[0]["pattern"].startswith("4 groups of lanes")
    ctx = AnalysisContext(prog, k, None, (), None)  # type: ignore[arg-type]
    loads = [a for a in coalescing.run(ctx).facts["accesses"] if a["direction"] == "load"]
    assert all(a["sectors"] is None and "pass --block" in a["unknown"] for a in loads)
