"""`sassview sweep`: a grid of variants, one row each, deltas against a baseline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS

pytestmark = pytest.mark.compile
EXAMPLES = Path(__file__).parents[1] / "examples"


def sweep(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sassview", "sweep", *map(str, args)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_maxrregcount_sweep_shows_spills_going_away(tmp_path: Path) -> None:
    done = sweep(CORPUS / "sources" / "spill.cu", "-p", "-maxrregcount=32,128", "--arch", "sm_80",
                 "--kernel", "spill", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [r["variant"] for r in rows] == [{"-maxrregcount": 32}, {"-maxrregcount": 128}]
    capped, free = rows
    assert capped["values"]["spill_bytes"] > 0 and capped["values"]["registers"] <= 32
    assert free["values"]["spill_bytes"] == 0
    assert capped["delta"]["registers"] is None  # the baseline
    assert free["delta"]["spill_bytes"] == -capped["values"]["spill_bytes"]
    assert free["delta"]["registers"] == free["values"]["registers"] - capped["values"]["registers"]


def test_kernel_file_sweep_overrides_declared_variants_and_baseline_is_selectable() -> None:
    done = sweep(EXAMPLES / "knobs" / "kernel.py", "-p", "UNROLL=2,8", "-k", "strided_sum",
                 "--baseline", "UNROLL=8", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [r for r in json.loads(done.stdout)["rows"] if r["kernel"].startswith("strided_sum")]
    assert [r["variant"]["UNROLL"] for r in rows] == [2, 8]
    assert [r["values"]["loops"] for r in rows] == ["31:x2", "31:x8"]
    assert rows[1]["delta"]["instructions"] is None  # UNROLL=8 is the baseline
    assert rows[0]["delta"]["instructions"] < 0


def test_table_output_lists_every_variant() -> None:
    done = sweep(CORPUS / "sources" / "vecadd.cu", "-p", "-maxrregcount=16,32", "--arch", "sm_90a")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("add_f4") == 2 and "maxrregcount=16" in done.stdout


@pytest.mark.parametrize("bad", ["nonsense", "=3", "KEY="])
def test_malformed_param_is_a_usage_error(bad: str) -> None:
    done = sweep(CORPUS / "sources" / "vecadd.cu", "-p", bad)
    assert done.returncode == 2 and "KEY=VALUE" in done.stderr and "Traceback" not in done.stderr


def test_triton_num_stages_sweep_changes_async_copies_in_flight_and_shared_memory() -> None:
    pytest.importorskip("triton")
    done = sweep(EXAMPLES / "triton" / "kernel.py", "-p", "num_stages=2,4", "-k", "matmul",
                 "--arch", "sm_80", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    rows = [r for r in rows if r["label"].startswith("matmul(BLOCK_K=32) [")]
    two, four = rows
    assert (two["variant"], four["variant"]) == ({"num_stages": 2}, {"num_stages": 4})
    # More stages: more cp.async (LDGSTS) in flight and more shared memory for the buffers.
    assert four["values"]["cp_async"] > two["values"]["cp_async"] > 0
    assert four["delta"]["shared_bytes"] > 0


def test_rows_carry_occupancy_and_each_loops_issue_cycles() -> None:
    # __launch_bounds__(256): 256 threads per block, so the occupancy is known; line 21 is
    # the k0 loop (the schedule's innermost loop: everything inside it is unrolled).
    path = EXAMPLES / "matmul" / "03_register_blocking.cu"
    done = sweep(path, "-p", "-maxrregcount=32,64", "--arch", "sm_80", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert {r["values"]["occupancy"] for r in rows} == {25.0}
    assert all(r["values"]["loop_cycles"].startswith("21:") for r in rows)
    table = sweep(path, "-p", "-maxrregcount=32,64", "--arch", "sm_80")
    assert "occ %" in table.stdout and "cycles" in table.stdout
    # A kernel without launch bounds or loops gets neither column.
    plain = sweep(CORPUS / "sources" / "vecadd.cu", "-p", "-maxrregcount=16,32", "--arch", "sm_90a")
    assert "occ %" not in plain.stdout and "cycles" not in plain.stdout
