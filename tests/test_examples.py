"""Every example does what its comment claims: compiled live, read through sassview."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import sassview

pytestmark = pytest.mark.compile
EXAMPLES = Path(__file__).parents[1] / "examples"


@pytest.fixture(scope="module")
def matmul() -> dict[tuple[str, str], sassview.Program]:
    kernel_file, programs = sassview.load_kernel_file(EXAMPLES / "matmul" / "kernel.py")
    assert not kernel_file.undeclared
    return {(p.artifacts.label, p.arch): p for p in programs}


def facts(program: sassview.Program):  # type: ignore[no-untyped-def]
    (insp,) = sassview.analyze(program)
    return insp


def test_vecadd_float4_kernel_moves_128_bits_and_scalar_kernel_32() -> None:
    by_name = {i.kernel.name: i for i in sassview.inspect(EXAMPLES / "vecadd.cu", arch="sm_90a")}
    assert by_name["add_f4"].facts("memory")["max_global_load_bits"] == 128
    assert by_name["add_f4"].facts("memory")["max_global_store_bits"] == 128
    assert by_name["add_scalar"].facts("memory")["max_global_load_bits"] == 32


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_naive_matmul_reads_global_memory_32_bits_at_a_time(matmul, arch: str) -> None:  # type: ignore[no-untyped-def]
    insp = facts(matmul[("01_naive.cu", arch)])
    assert insp.facts("memory")["max_global_load_bits"] == 32
    assert insp.facts("memory")["max_shared_load_bits"] is None
    assert insp.facts("tensor_cores")["path"] == "none"
    assert insp.kernel.opcode_counts().get("FFMA", 0) > 0


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_tiled_matmul_stages_tiles_in_shared_memory(matmul, arch: str) -> None:  # type: ignore[no-untyped-def]
    insp = facts(matmul[("02_smem_tiled.cu", arch)])
    ops = insp.kernel.opcode_counts()
    assert ops["LDS"] > 0 and ops["STS"] == 2 and ops["BAR"] == 2
    assert insp.kernel.resources.shared_user == 2 * 32 * 32 * 4
    # ptxas merges the As[ty][k] row reads of the unrolled k loop into 128-bit LDS.
    assert insp.facts("memory")["max_shared_load_bits"] == 128
    inner = next(e for e in insp.facts("unroll")["loops"] if e["source_line"] == 16)
    assert not inner["has_back_edge"] and inner["achieved_factor"] == 32


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_tile_loops_that_load_and_use_in_one_trip_are_named_not_the_tma_one(
    matmul, arch: str
) -> None:  # type: ignore[no-untyped-def]
    # 02-04 load each tile with LDG and store it to shared memory a few cycles later, in the
    # same trip (none prefetches the next tile); 01's loop is load-bound (little math share);
    # 05 loads through TMA into an mbarrier pipeline (sm_90a only).
    def exposed(step: str) -> list[str]:
        insp = facts(matmul[(step, arch)])
        return [a.message for a in insp.annotations if a.kind == "exposed-load"]

    for step, line in (("02_smem_tiled.cu", 11), ("03_register_blocking.cu", 21),
                       ("04_warp_tiling.cu", 23)):  # fmt: skip
        (note,) = exposed(step)
        assert note.startswith(f"line {line}: a trip waits on LDG.E"), step
    assert exposed("01_naive.cu") == []
    if arch == "sm_90a":
        assert exposed("05_wgmma_tma.cu") == []


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("step", ["03_register_blocking.cu", "04_warp_tiling.cu"])
def test_register_blocked_matmuls_use_128_bit_loads_and_do_not_spill(
    matmul, step: str, arch: str
) -> None:  # type: ignore[no-untyped-def]
    insp = facts(matmul[(step, arch)])
    mem = insp.facts("memory")
    assert mem["max_global_load_bits"] == 128 and mem["max_shared_load_bits"] == 128
    assert not insp.facts("spills")["spills"]
    per_k = 64 if step.startswith("03") else 64
    k_steps = 8 if step.startswith("03") else 16
    assert insp.kernel.opcode_counts()["FFMA"] >= per_k * k_steps


def test_warp_tiling_needs_its_launch_bounds_to_keep_accumulators_in_registers() -> None:
    source = (EXAMPLES / "matmul" / "04_warp_tiling.cu").read_text()
    capped = source.replace("__launch_bounds__(256, 1)", "__launch_bounds__(256)")
    program = sassview.compile(capped, arch="sm_90a")
    assert program.kernels[0].resources.registers <= 128
    assert program.kernels[0].resources.spills  # what the comment in the example explains


def test_hopper_matmul_runs_on_wgmma_fed_by_tma(matmul) -> None:  # type: ignore[no-untyped-def]
    insp = facts(matmul[("05_wgmma_tma.cu", "sm_90a")])
    tc = insp.facts("tensor_cores")
    assert tc["path"] == "wgmma"
    assert {op["mnemonic"] for op in tc["ops"]} == {"HGMMA.64x64x16.F32.BF16"}
    assert tc["fences"] > 0 and tc["waits"] > 0
    ops = insp.kernel.opcode_counts()
    assert ops["UTMALDG"] > 0 and ops["SYNCS"] > 0
    assert insp.facts("memory")["max_global_store_bits"] == 64  # the float2 stores of C
    assert not insp.facts("spills")["spills"]


def test_knobs_example_maxrregcount_spills_and_pragma_unroll_factors() -> None:
    _, programs = sassview.load_kernel_file(EXAMPLES / "knobs" / "kernel.py")
    by_label = {p.artifacts.label: sassview.analyze(p)[0] for p in programs}
    capped = by_label["accumulate [-maxrregcount=32]"]
    assert capped.facts("spills")["spills"] and capped.kernel.resources.registers <= 32
    assert not by_label["accumulate [-maxrregcount=128]"].facts("spills")["spills"]
    for n in (1, 2, 4, 8):
        (loop,) = by_label[f"strided_sum [UNROLL={n}]"].facts("unroll")["loops"]
        # `#pragma unroll UNROLL` with -DUNROLL=n: the macro is resolved to the request.
        assert (loop["requested_factor"], loop["achieved_factor"]) == (n, n)
        assert not loop["remainder"]  # an exit test after each copy, as the docstring says


def test_triton_examples_vectorize_and_use_the_tensor_cores_of_each_arch() -> None:
    pytest.importorskip("triton")
    _, programs = sassview.load_kernel_file(EXAMPLES / "triton" / "kernel.py")
    by = {(p.artifacts.label, p.arch): sassview.analyze(p)[0] for p in programs}
    for arch in ("sm_80", "sm_90a"):
        mem = by[("add", arch)].facts("memory")
        assert mem["max_global_load_bits"] == mem["max_global_store_bits"] == 128
    # Two declarations of `matmul` (one per arch), labelled by the BLOCK_K that tells them apart.
    assert by[("matmul(BLOCK_K=32)", "sm_80")].facts("tensor_cores")["path"] == "mma.sync"
    assert by[("matmul(BLOCK_K=64)", "sm_90a")].facts("tensor_cores")["path"] == "wgmma"
    for label, arch in (("matmul(BLOCK_K=32)", "sm_80"), ("matmul(BLOCK_K=64)", "sm_90a")):
        matmul = by[(label, arch)]
        assert matmul.facts("async_copy")["cp_async"] > 0  # num_stages=3 pipelines with cp.async
        assert not matmul.facts("spills")["spills"]
        lines = {i.source.outermost.line for i in matmul.kernel.instructions if i.source}
        path = str(EXAMPLES / "triton" / "kernel.py")
        assert {i.source.outermost.file for i in matmul.kernel.instructions if i.source} == {path}
        assert min(lines) >= 27  # inside `def matmul`
    # The autotuned kernel: one program per config, labelled by its values; maxnreg reaches PTX.
    tuned = {p.artifacts.label: p for p in programs if p.artifacts.label.startswith("scale")}
    assert list(tuned) == [
        "scale [BLOCK=512, num_warps=4, num_stages=1]",
        "scale [BLOCK=256, num_warps=4, num_stages=1, maxnreg=32]",
    ]
    assert [".maxnreg 32" in p.artifacts.ptx for p in tuned.values()] == [False, True]


def test_cute_example_compiles_for_each_arch_with_lines_in_the_file() -> None:
    pytest.importorskip("cutlass")
    _, programs = sassview.load_kernel_file(EXAMPLES / "cute" / "kernel.py")
    assert sorted(p.arch for p in programs) == ["sm_100a", "sm_90a"]
    for p in programs:
        (insp,) = sassview.analyze(p)
        assert insp.kernel.opcode_counts().get("FADD") == 1
        files = {i.source.outermost.file for i in insp.kernel.instructions if i.source}
        assert files == {str(EXAMPLES / "cute" / "kernel.py")}


def test_cute_hopper_gemm_runs_on_wgmma_fed_by_tma_through_an_mbarrier_pipeline() -> None:
    pytest.importorskip("cutlass")
    path = EXAMPLES / "cute" / "hopper_gemm.py"
    _, programs = sassview.load_kernel_file(path)
    assert [p.arch for p in programs] == ["sm_90a"]
    (insp,) = sassview.analyze(programs[0])
    tc = insp.facts("tensor_cores")
    assert tc["path"] == "wgmma"
    assert {op["mnemonic"] for op in tc["ops"]} == {"HGMMA.64x128x16.F32.BF16"}
    assert sum(op["count"] for op in tc["ops"]) == 16  # 8 per k-tile: peeled tile + loop body
    assert tc["waits"] == 2  # wait_group(1) in the loop and (0) after it: not serialized
    ops = insp.kernel.opcode_counts()
    assert ops["UTMALDG"] == 4 and ops["SYNCS"] > 0
    assert ops["F2FP"] == ops["STG"] == 64  # the epilogue: bf16x2 pairs, stored from registers
    assert insp.facts("memory")["max_global_store_bits"] == 32
    # A and B arrive by TMA only: no per-thread width, shown as bulk copies, not as none.
    assert insp.facts("memory")["max_global_load_bits"] is None
    assert insp.facts("memory")["bulk_global_loads"] == 4
    from sassview.report.summary import kernel_summary
    from sassview.views.render import render_kernel

    assert "global load bulk copies, store 32-bit" in render_kernel(kernel_summary(insp))
    assert not insp.facts("spills")["spills"]
    # The stages are dynamic shared memory, sized by the DSL after the traced MLIR: read from
    # the launch config of the lowered host code (4 x 32 KiB, and the pipeline's mbarriers).
    stages = 4 * (128 + 128) * 64 * 2
    assert insp.kernel.resources.shared_user == 0
    assert stages < (insp.kernel.resources.shared_dynamic or 0) <= stages + 1024
    files = {i.source.outermost.file for i in insp.kernel.instructions if i.source}
    assert files == {str(path)}
    # LLVM numbers the lines of inline asm from the calling statement (consumer_wait's mbarrier
    # loop showed on the comment below it): put back, every line shown holds code.
    lines = path.read_text().splitlines()
    shown = {i.source.line for i in insp.kernel.instructions if i.source}
    assert all(lines[n - 1].strip() and lines[n - 1].strip()[0] != "#" for n in shown)
    # Every SASS loop is in the loop list: the two `cutlass.range(..., unroll=1)` loops (the
    # prologue's and the main loop), at their `for` lines although the DSL puts their control at
    # its @cute.jit line, and the inline-asm mbarrier wait loops, one per call; and the plain
    # Python loop of the mma_k_tile helper, unrolled while tracing (its copies unknown).
    loops = insp.facts("unroll")["loops"]
    assert len([e for e in loops if e["kind"] == "rolled"]) == len(insp.loops) == 6
    (helper,) = [e for e in loops if e["kind"] == "full"]
    assert (
        helper["source_line"] == lines.index(next(t for t in lines if "range(cute.size" in t)) + 1
    )
    asked = [e for e in loops if e["requested_factor"] == 1]
    assert all(e["achieved_factor"] == 1 and e["statement"] for e in asked)
    ranges = [n for n, text in enumerate(lines, 1) if "in cutlass.range(" in text]
    assert [e["source_line"] for e in asked] == ranges and len(ranges) == 2
    waits = [e for e in loops if not e["statement"]]  # all their code is inline asm
    assert len(waits) == 4 and not any(e in asked for e in waits)
    # Each PTX try_wait is a .TRYWAIT check and a plain one that retries it: no test_wait.
    mbar = insp.facts("async_copy")
    assert mbar["ptx_mbarrier_ops"]["try_wait"] == mbar["mbarrier_ops"]["try_wait"] == 4
    assert mbar["mbarrier_ops"]["try_wait_retry"] == 4 and "test_wait" not in mbar["mbarrier_ops"]


def test_gluon_example_widens_with_the_layouts_elements_per_thread() -> None:
    pytest.importorskip("triton.experimental.gluon")
    kernel_file, programs = sassview.load_kernel_file(EXAMPLES / "gluon" / "kernel.py")
    assert not kernel_file.undeclared
    bits = {
        p.artifacts.label: sassview.analyze(p)[0].facts("memory")["max_global_load_bits"]
        for p in programs
    }
    assert bits == {"axpy [PER_THREAD=1]": 32, "axpy [PER_THREAD=4]": 128}


def test_cutile_example_softmax_and_a_matmul_on_tcgen05() -> None:
    pytest.importorskip("cuda.tile")
    kernel_file, programs = sassview.load_kernel_file(EXAMPLES / "cutile" / "kernel.py")
    assert not kernel_file.undeclared
    by = {p.artifacts.label or p.kernels[0].name: sassview.analyze(p)[0] for p in programs}
    softmax = next(i for k, i in by.items() if "softmax_rows" in k)
    matmul = next(i for k, i in by.items() if "matmul" in k)
    assert softmax.kernel.opcode_counts().get("MUFU", 0) > 0  # the exp
    assert softmax.facts("tensor_cores")["path"] == "none"
    assert matmul.facts("tensor_cores")["path"] == "tcgen05"
    assert "UTCHMMA" in matmul.kernel.opcode_counts()


def test_cutile_matmul_budget_row_does_not_count_other_warp_groups_code() -> None:
    """Its two setmaxnreg.dec to 32 are followed by a call to a trap subroutine whose clobber
    list names R0-R251: the call counts only its own operands, and what the warp groups under
    32 registers run fits in 32 (it once read "peak 129 live, R0-R251", then "unknown")."""
    pytest.importorskip("cuda.tile")
    _, programs = sassview.load_kernel_file(EXAMPLES / "cutile" / "kernel.py")
    (matmul,) = [sassview.analyze(p)[0] for p in programs if "matmul" in p.kernels[0].name]
    from sassview.analyses.records import RegisterBudgetFacts

    text = matmul.typed_facts(RegisterBudgetFacts).text or ""
    budgets = re.findall(r"down to (\d+) \(peak (\d+) live, R0-R(\d+)\)", text)
    assert len(budgets) == 2, text
    assert all(int(peak) <= int(cap) and int(top) < int(cap) for cap, peak, top in budgets), text
