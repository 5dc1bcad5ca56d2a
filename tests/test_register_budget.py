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
