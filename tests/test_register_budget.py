"""setmaxnreg budgets per warp group (analyses/register_budget.py), on the warp-specialised
kernels of tests/data/analyses/sources/setmaxnreg.cu, counted by hand there."""

from __future__ import annotations

from pathlib import Path

import pytest
from analyses_data import MODES, program

from sassview.analyses.records import RegisterBudgetFacts
from sassview.analyses.register_budget import splits
from sassview.inspection import Inspection, inspect_kernel

# The block size comes from the cubin's .nv.info (MAX_THREADS), which the listings alone
# (the json/text modes) do not carry: the pool needs the cubin.
WITH_CUBIN = [m for m in MODES if m in ("recorded",) or getattr(m, "values", ()) == ("live",)]


def _inspect(mode: str, kernel: str) -> Inspection:
    prog = program(mode, "setmaxnreg", "sm_90a")
    return inspect_kernel(prog, prog.kernel(kernel))


@pytest.mark.parametrize("mode", MODES)
def test_each_setmaxnreg_is_read_with_the_code_that_runs_under_it(mode: str) -> None:
    f = _inspect(mode, "balanced").facts("register_budget")
    by_action = {b["action"]: b for b in f["budgets"]}
    assert (by_action["decrease"]["registers"], by_action["decrease"]["line"]) == (40, 9)
    assert (by_action["increase"]["registers"], by_action["increase"]["line"]) == (232, 12)
    # The producer loop names R0-R17 (read from the SASS); the consumers hold 64 accumulators.
    assert by_action["decrease"]["highest"] == 18
    assert by_action["increase"]["peak_live"] >= 64


@pytest.mark.parametrize("mode", WITH_CUBIN)
def test_the_pool_is_what_the_launch_allocated_and_the_split_fits_it(mode: str) -> None:
    f = _inspect(mode, "balanced").facts("register_budget")
    assert (f["launch_registers"], f["threads"], f["pool"], f["warp_groups"]) == (
        168,
        384,
        64512,
        3,
    )
    # 128 x (232 + 2 x 40) and 128 x (2 x 232 + 40) = 64512: both fit, exactly.
    assert f["increase_groups_that_fit"] == [1, 2]
    assert "fits 1 or 2 of 3 warp groups at 232" in f["text"]


@pytest.mark.parametrize("mode", WITH_CUBIN)
def test_an_increase_the_pool_cannot_grant_is_a_warning(mode: str) -> None:
    insp = _inspect(mode, "overcommitted")
    assert insp.facts("register_budget")["increase_groups_that_fit"] == []
    (warning,) = [a for a in insp.annotations if a.kind == "register-budget"]
    assert warning.severity.name == "WARNING"
    assert "needs 70656, the launch gave 64512" in warning.message


def test_balanced_kernel_has_no_budget_warning() -> None:
    insp = _inspect("recorded", "balanced")
    assert not [a for a in insp.annotations if a.kind == "register-budget"]
    assert "setmaxnreg moves them within the block" in insp.facts("occupancy")["text"]


def test_splits_count_warp_groups_of_128_threads() -> None:
    assert splits(64512, 3, 40, 232) == [1, 2]
    assert splits(64512, 3, 40, 240) == [1]  # 2 x 240 + 40 = 520 > 504 per thread-row
    assert splits(64512, 3, 160, 232) == []
    assert splits(65536, 2, 24, 256) == [1]


def test_a_kernel_without_setmaxnreg_has_no_budget_row() -> None:
    prog = program("json", "tcgen05_shapes", "sm_100a")
    insp = inspect_kernel(prog, prog.kernel("tc_const"))
    assert insp.facts("register_budget") == {"budgets": [], "text": None}


@pytest.mark.compile
def test_code_under_a_budget_is_split_by_the_warp_group_test() -> None:
    """setmaxnreg_split.cu tests `wg == 0` twice (setmaxnreg, a barrier, then the work).
    Its SASS (sm_90a): `LOP3 P0 = tid & ~127 != 0`, `@!P0 BRA` to the DEALLOC 40 (else the
    TRY_ALLOC 232 retry loop), BAR.SYNC, then `@!P0 BRA 0x1b20`: the producer's copy loop
    (line 14) from 0x1b20, the consumer's 64 accumulators (lines 18-24) on the fall-through.
    P0 is not written in between, so the producers' code is lines 12-14 and 26 alone, R0-R17
    and 12 live at most; before, the walk reached the consumers' code too and gave both
    budgets the consumers' peak (38 live, R0-R37)."""
    import sassview

    source = Path(__file__).parent / "data" / "analyses" / "sources" / "setmaxnreg_split.cu"
    (insp,) = sassview.inspect(source, arch="sm_90a")
    by_action = {b.action: b for b in insp.typed_facts(RegisterBudgetFacts).budgets}
    dec, inc = by_action["decrease"], by_action["increase"]
    assert (dec.registers, dec.line, dec.highest, dec.peak_live) == (40, 8, 18, 12)
    assert (inc.registers, inc.line, inc.highest, inc.peak_live) == (232, 10, 38, 38)


CUTILE_MATMUL = Path(__file__).parent / "data" / "frontends" / "cutile" / "matmul.sm_100a.cubin"


def _cutile_matmul() -> Inspection:
    import sassview

    (insp,) = sassview.inspect(CUTILE_MATMUL)
    return insp


def test_the_warp_index_tests_of_a_cutile_kernel_are_evaluated_per_warp() -> None:
    """The recorded cuTile matmul (256 threads, warp index R2 = tid >> 5, SASS read by hand):
    each branch on it sends each of the 8 warps one way, whatever predicate or register the
    test is written on (`R2 != 4`, `R2 > 4`, `R2 - 5 > 2` through a VIADD, `@P0 EXIT`)."""
    from sassview.graph.warp_ids import WarpIds

    insp = _cutile_matmul()
    ins = insp.kernel.instructions
    ids = WarpIds(ins, insp.cfg, 256)
    at = {i.address: n for n, i in enumerate(ins)}
    held = {a: ids.guard_true(at[a], ids.warps) for a in (0x5CD0, 0x6290, 0x62D0, 0x6330)}
    assert held == {
        0x5CD0: {0, 1, 2, 3, 5, 6, 7},  # @P0 BRA past the MMA warp's DEALLOC: all but warp 4
        0x6290: {0, 1, 2, 3, 4},  # @P0 BRA past the second DEALLOC: (R2 - 5) > 2 unsigned
        0x62D0: {5, 6, 7},  # R2 > 4
        0x6330: {0, 1, 2, 3, 5, 6, 7},  # @P0 EXIT: all but warp 4
    }
    assert ids.guard_true(at[0x4D0], ids.warps) is None  # a try-wait's result: not known


def test_a_cutile_kernels_budgets_count_the_code_of_the_warps_under_them() -> None:
    """Issue #33 item 5: its `reg budgets` row said "down to 32 (peak 129 live, R0-R251)"
    twice, then "unknown". The 129 were the ABI's callee-saved registers that liveness counts
    live across the CALL to a tcgen05 guardrail trap (R0-R251: the call's clobbers); neither
    is code of the warps under 32. Warp 4 (the MMA warp: its DEALLOC at 0x5cf0) runs the MMA
    loop and the teardown, R0-R5; warps 5-7 (the DEALLOC at 0x62b0) test R2 twice and exit."""
    insp = _cutile_matmul()
    first, second = insp.typed_facts(RegisterBudgetFacts).budgets
    assert (first.address, first.registers, first.peak_live, first.highest) == (0x5CF0, 32, 6, 6)
    assert (second.address, second.registers, second.peak_live, second.highest) == (
        0x62B0, 32, 3, 3,
    )  # fmt: skip
    text = insp.typed_facts(RegisterBudgetFacts).text
    assert text is not None and "unknown" not in text
    assert "line 27: down to 32 (peak 6 live, R0-R5), line 27: down to 32 (peak 3 live" in text


@pytest.mark.compile
def test_a_warp_group_test_written_anew_still_splits_the_code() -> None:
    """setmaxnreg_retest.cu (sm_90a): the setmaxnreg is chosen by `ISETP.NE P0, R0, RZ` on the
    shuffled warp-group index (R0 = SHFL.IDX of tid >> 7), the work by `ISETP.GE.U32 P0, R7,
    0x80` (tid >= 128) after the barrier: another ISETP on another register. Each is evaluated
    per warp, so the producers' code is the copy loop alone (R0-R17, 12 live); before, the walk
    took both sides of the second test and gave the 40-register budget the consumers' peak
    (38 live, R0-R37: under 40, so it read as a fact)."""
    import sassview

    source = Path(__file__).parent / "data" / "analyses" / "sources" / "setmaxnreg_retest.cu"
    (insp,) = sassview.inspect(source, arch="sm_90a")
    by_action = {b.action: b for b in insp.typed_facts(RegisterBudgetFacts).budgets}
    dec, inc = by_action["decrease"], by_action["increase"]
    assert (dec.registers, dec.line, dec.highest, dec.peak_live) == (40, 9, 18, 12)
    assert (inc.registers, inc.line, inc.highest, inc.peak_live) == (232, 11, 38, 38)
