"""Warp-specialized Triton kernels: loops by partition, spin loops folded by what they wait on."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import run_sassview

import sassview
from sassview import export
from sassview.analyses.loops.entry import UnrollFacts
from sassview.analyses.records import Partition, WarpPartitionFacts
from sassview.inspection import inspect_program

pytestmark = pytest.mark.compile
DATA = Path(__file__).parent / "data"
SOURCE = (DATA / "frontends" / "triton_args_kernels.py").read_text().splitlines()
K_LOOP = next(i for i, t in enumerate(SOURCE, 1) if "warp_specialize=True" in t)

WS_FILE = """\
import sys
sys.path.insert(0, {data!r})
import sassview as sv
from triton_args_kernels import ws_matmul, strided_copy

a = sv.tensor("fp16", shape=(4096, 4096))
tile = sv.tensor_descriptor(a, block_shape=[128, 64])
out = sv.tensor_descriptor(a, block_shape=[128, 128])
sv.triton(ws_matmul, args=dict(a_desc=tile, b_desc=tile, c_desc=out, K=4096, BLOCK_M=128,
          BLOCK_N=128, BLOCK_K=64), arch="sm_100a", num_warps=4)
sv.triton(strided_copy, args=dict(x_ptr=a, out_ptr=a, stride_xm=4096, stride_xk=1, M=4096,
          K=4096, BLOCK_K=1024), arch="sm_100a")
"""


def test_each_partition_has_its_loops_and_the_spin_loops_fold(tmp_path: Path) -> None:
    """tl.range(warp_specialize=True) on sm_100a: an MMA partition (tcgen05) and a load
    partition (TMA), each with its K loop and its own mbarrier waits; the loop census keeps
    the two K loops and none of the dozen retry loops ptxas moved to the kernel's end."""
    pytest.importorskip("triton")
    path = tmp_path / "kernel.py"
    path.write_text(WS_FILE.format(data=str(DATA / "frontends")))
    done = run_sassview("check", path, "--json")
    assert done.returncode == 0, done.stderr
    ws, plain = json.loads(done.stdout)["programs"]
    (kernel,) = ws["kernels"]
    analysis = kernel["analysis"]
    roles = [text.split(" partition")[0] for text in analysis["partitions"]]
    assert roles[:3] == ["default", "mma", "load"]
    mma, load = analysis["partitions"][1], analysis["partitions"][2]
    assert mma.startswith("mma partition (UTCHMMA) from /*") and f"1 loop at line {K_LOOP}" in mma
    assert "mbarrier wait" in mma and "mbarrier wait" in load and "(UTMALDG)" in load
    # One loop statement, one census entry: each partition's copy of the K loop is a SASS loop
    # of that one statement (analyses/loops: one entry per statement per inline context).
    assert [e["summary"] for e in analysis["loops"]] == [
        f"line {K_LOOP}: not unrolled [counted in the SASS]"
    ]
    (plain_kernel,) = plain["kernels"]
    assert plain_kernel["analysis"]["partitions"] == []
    text = run_sassview("check", path, "-k", "ws_matmul")
    assert text.stdout.count("  partition      ") == len(analysis["partitions"])


def test_the_partitions_are_records_the_export_writes_field_by_field(tmp_path: Path) -> None:
    """The warp_partitions facts are typed records (analyses/facts.py), each written to the
    export's JSON with its fields as keys, as the dicts they replaced were."""
    pytest.importorskip("triton")
    path = tmp_path / "kernel.py"
    path.write_text(WS_FILE.format(data=str(DATA / "frontends")))
    programs = sassview.load_kernel_file(path)[1]
    (insp,) = inspect_program(programs[0])
    parts = insp.typed_facts(WarpPartitionFacts).partitions
    assert [p.role for p in parts][:3] == ["default", "mma", "load"]
    assert all(isinstance(p, Partition) for p in parts)
    written = json.loads(export.render(insp, "json"))["facts"]["warp_partitions"]["partitions"]
    assert written == [dict(p) for p in parts]
    assert all(list(w) == sorted(f.name for f in dataclasses.fields(Partition)) for w in written)


def test_the_schedule_rows_name_the_loops_of_no_statement_as_the_partitions_do(
    tmp_path: Path,
) -> None:
    """The worker warps' jump-table loop and the lowering's inline-asm mbarrier waits: the
    partition rows said "dispatch loop of the worker warps" and "mbarrier waits" while every
    loop row and schedule row called both "asm/compiler loop". One word for each now
    (analyses/spins.py, `loose_kind`), in the partitions, the schedule rows and the loops'
    JSON (`waits`, schema 6)."""
    pytest.importorskip("triton")
    path = tmp_path / "kernel.py"
    path.write_text(WS_FILE.format(data=str(DATA / "frontends")))
    done = run_sassview("check", path, "--json", "-k", "ws_matmul")
    assert done.returncode == 0, done.stderr
    (kernel,) = json.loads(done.stdout)["programs"][0]["kernels"]
    default = kernel["analysis"]["partitions"][0]
    assert f"1 worker dispatch at line {K_LOOP}" in default and "mbarrier wait" in default
    rows = [r["text"] if isinstance(r, dict) else r for r in kernel["analysis"]["schedule"]]
    named = " ".join(str(r) for r in rows)
    assert f"line {K_LOOP} (worker dispatch loop)" in named
    assert "(mbarrier wait loop" in named
    assert "asm/compiler loop" not in named
    (insp,) = inspect_program(sassview.load_kernel_file(path)[1][0])
    waits = {e.waits for e in insp.typed_facts(UnrollFacts).entries}
    assert {"worker dispatch", "mbarrier wait"} <= waits
