"""A retry loop ptxas makes of one PTX instruction (`setmaxnreg.inc`'s USETMAXREG.TRY_ALLOC,
`tcgen05.alloc`'s UTCATOMSWS) is no copy of the loop statement whose line the line table gives
it: the census lists it apart, named by what it retries (`line 48 (setmaxnreg retry loop 1 of
5)`), in every view (analyses/spins.py, loops/measure.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from analyses_data import MODES, program
from conftest import run_sassview

from sassview.analyses.loops.entry import UnrollFacts
from sassview.inspection import inspect_kernel

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("mode", MODES)
def test_a_setmaxnreg_retry_loop_is_named_by_what_it_retries(mode: str) -> None:
    """setmaxnreg.cu's consumers: the retry loop of `setmaxnreg.inc` (line 12, in the helper
    inlined at line 28) reads as a setmaxnreg retry loop, in its entry, its JSON, its finding
    and the schedule's name for it; with PTX lines (recorded, live) or without (the listings
    alone: an instruction no PTX loop can be)."""
    prog = program(mode, "setmaxnreg", "sm_90a")
    insp = inspect_kernel(prog, prog.kernel("balanced"))
    (retry,) = [e for e in insp.typed_facts(UnrollFacts).entries if not e.statement]
    place = "line 12 (setmaxnreg.cu, inlined at line 28, setmaxnreg retry loop)"
    assert retry.place == place
    assert retry.spin == retry.to_json()["spin"] == "setmaxnreg retry"
    assert retry.summary() == f"{place}: ptxas' retry of one PTX instruction (no loop statement)"
    assert insp.loop_name(retry.sass_loops[0]) == place
    said = [a.message for a in insp.annotations if a.kind == "unroll" and place in a.message]
    assert said == [f"loop at {retry.summary()}"]


WS_FILE = """\
import sys
sys.path.insert(0, {data!r})
import sassview as sv
from triton_args_kernels import ws_matmul

a = sv.tensor("fp16", shape=(4096, 4096))
tile = sv.tensor_descriptor(a, block_shape=[128, 64])
out = sv.tensor_descriptor(a, block_shape=[128, 128])
sv.triton(ws_matmul, args=dict(a_desc=tile, b_desc=tile, c_desc=out, K=4096, BLOCK_M=128,
          BLOCK_N=128, BLOCK_K=64), arch="sm_100a", num_warps=4)
"""


@pytest.mark.compile
def test_a_warp_specialized_k_loop_holds_none_of_the_setmaxnreg_retries(tmp_path: Path) -> None:
    """tl.range(warp_specialize=True) on sm_100a: each partition retries its setmaxnreg in a
    3-instruction loop at the K loop's `for` (line 48). The K loop's entry keeps the two
    partitions' copies of it (`main loop 1 of 2`, `2 of 2`), not seven loops of which five
    are retries; the retries are numbered apart, and folded as alike in check's rows."""
    pytest.importorskip("triton")
    source = (DATA / "frontends" / "triton_args_kernels.py").read_text().splitlines()
    k_loop = next(i for i, t in enumerate(source, 1) if "warp_specialize=True" in t)
    path = tmp_path / "kernel.py"
    path.write_text(WS_FILE.format(data=str(DATA / "frontends")))
    done = run_sassview("check", path, "--json")
    assert done.returncode == 0, done.stderr
    (kernel,) = json.loads(done.stdout)["programs"][0]["kernels"]
    analysis = kernel["analysis"]
    assert [e["summary"] for e in analysis["loops"]] == [
        f"line {k_loop}: not unrolled [counted in the SASS]"
    ]
    names = [re.sub(r":.*", "", s["text"]) for s in analysis["schedule"]]
    at = f"line {k_loop} ("
    assert sorted(n for n in names if n.startswith(at + "main loop")) == [
        f"{at}main loop 1 of 2)",
        f"{at}main loop 2 of 2)",
    ]
    retries = [n for n in names if n.startswith(at + "setmaxnreg retry loop")]
    assert retries == [f"{at}setmaxnreg retry loop {n} of 5)" for n in range(1, 6)]
    # The K loop's finding points at a partition's K loop, not at a retry loop.
    (verdict,) = [
        a
        for a in kernel["annotations"]
        if a["kind"] == "unroll" and a["message"].startswith(f"loop at line {k_loop}: ")
    ]
    (main,) = verdict["loops"]
    by_loop = {s["loop"]: s["text"] for s in analysis["schedule"]}
    assert by_loop[main].startswith(f"{at}main loop 1 of 2)"), by_loop[main]
    text = run_sassview("check", path).stdout
    rows = [r for r in text.splitlines() if r.startswith("  schedule") and "setmaxnreg" in r]
    assert any(r.endswith("(x5 loops alike)") for r in rows), rows
    assert "main loop 3 of" not in text
