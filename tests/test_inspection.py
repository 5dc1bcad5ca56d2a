"""The annotated graph as the CLI and JSON carry it: one kernel per known property."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import CORPUS

import sassview
from sassview.inspection import inspect_program

pytestmark = pytest.mark.compile
SOURCES = CORPUS / "sources"


def check_json(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "check", "--json", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def kernel(doc: dict, name: str) -> dict:
    return next(k for p in doc["programs"] for k in p["kernels"] if name in k["name"])


def test_json_carries_the_graph_answers_for_each_kernel() -> None:
    doc = check_json(str(SOURCES / "spill.cu"), "--arch", "sm_80", "-X=-maxrregcount=32")
    spill = kernel(doc, "spill")["analysis"]
    assert spill["spills"] and spill["spill_store_bytes"] > 0
    assert spill["register_peak"]["live"] <= 32 and spill["register_peak"]["registers"]
    by_line = {e["source_line"]: e for e in spill["loops"]}
    # Spill traffic is not counted as copies of the statement: 64 loads, 64 copies.
    assert by_line[6]["achieved_factor"] == 64 and not by_line[6]["has_back_edge"]
    assert by_line[6]["requested_factor"] == "full"
    assert by_line[7]["has_back_edge"] and by_line[7]["achieved_factor"] == 1
    kinds = {a["kind"] for a in kernel(doc, "spill")["annotations"]}
    assert "spill" in kinds
    local = kernel(doc, "local_array")
    assert not local["analysis"]["spills"]
    assert "local-array" in {a["kind"] for a in local["annotations"]}


def test_json_answers_for_vector_loads_and_tensor_cores() -> None:
    doc = check_json(str(SOURCES / "vecadd.cu"), str(SOURCES / "wgmma.cu"), "--arch", "sm_90a")
    assert kernel(doc, "add_f4")["analysis"]["max_global_load_bits"] == 128
    assert kernel(doc, "add_scalar")["analysis"]["max_global_load_bits"] == 32
    wg = kernel(doc, "wgmma")["analysis"]
    assert wg["tensor_core_path"] == "wgmma"
    assert wg["tensor_core_ops"][0]["shape"] == "m64n8k16"


def test_check_text_report_names_loops_tensor_path_and_findings() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "check", str(SOURCES / "tiled.cu"), "--arch", "sm_90a"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "line 9: unrolled by 4, with a remainder loop (asked: #pragma unroll 4)" in done.stdout
    assert "tensor cores   none" in done.stdout
    assert "register peak" in done.stdout


def test_every_annotation_points_at_real_addresses() -> None:
    program = sassview.compile(path=SOURCES / "mma.cu", arch="sm_80")
    for insp in inspect_program(program):
        addresses = {i.address for i in insp.kernel.instructions}
        for a in insp.annotations:
            assert set(a.addresses) <= addresses, a
            assert all(0 <= i < len(insp.loops) for i in a.loops)


def test_check_text_columns_stay_apart_for_long_shared_memory() -> None:
    # Triton's and the CuTe DSL's shared memory reads "0 B (+1024 B reserved) + 98304 B
    # dynamic": longer than the column, which must widen rather than run into "constant".
    from analyses_data import program

    from sassview.report.summary import kernel_summary
    from sassview.views.render import render_kernel

    (insp,) = inspect_program(program("recorded", "wgmma", "sm_90a"))[:1]
    summary = kernel_summary(insp)
    summary["resources"]["shared_reserved_bytes"] = 1024
    summary["resources"]["shared_dynamic_bytes"] = 98304
    rows = render_kernel(summary).splitlines()[1:5]
    assert "0 B (+1024 B reserved) + 98304 B dynamic  constant" in rows[2]
    labels = ("stack frame", "local memory", "constant", "barriers")
    third = [row.index(label) for row, label in zip(rows, labels, strict=True)]
    assert len(set(third)) == 1, rows
