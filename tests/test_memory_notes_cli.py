"""Memory findings through the real CLI on kernels of our own (tests/data/analyses/sources/
pitch.cu), labelled by hand from the SASS NVRTC makes for sm_90a:

- column_sum: `in[r * cols + c]`, r = threadIdx.x: the LDG/STG address is R*c[0x0][0x224]*4,
  c[0x0][0x224] being `cols` (params at 0x210: in 8, out 8, rows 4, cols 4).
- four_scalars: p[0..3] of `in + 4*i`: four LDG.E at +0x0..+0xc of one base.
- Triton's column_walk (tests/data/frontends/triton_memory.py), BLOCK_M=128, 4 warps: lane l
  loads row off+l, so `X + rows * stride_m + col` puts lanes 4*stride_m bytes apart; the
  SASS reads stride_m as c[0x0][0x224] (X 8, OUT 8, M 4 from 0x210; then Triton's two scratch
  pointers, which its IR does not list).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sassview.views.cli import cli

pytestmark = pytest.mark.compile

PITCH = Path(__file__).parent / "data" / "analyses" / "sources" / "pitch.cu"


def check(*args: str) -> str:
    done = CliRunner().invoke(cli, ["check", str(PITCH), "--arch", "sm_90a", *args])
    assert done.exit_code == 0, done.output
    return done.output


def test_a_run_time_stride_reads_the_parameter_by_its_name() -> None:
    text = check("--kernel", "column_sum")
    assert "lane stride 4*cols bytes, a run-time value" in text
    assert "c[0x0][0x224]" not in text
    doc = json.loads(check("--kernel", "column_sum", "--json"))
    dumped = json.dumps(doc)
    assert "4*cols" in dumped and "cols (known at run time)" in dumped
    assert "c[0x0][0x224]" not in dumped


TRITON_KERNEL = """\
import sys
sys.path.insert(0, {frontends!r})
import sassview as sv
from triton_memory import column_walk

sv.triton(column_walk, signature={{"X": "*fp32", "OUT": "*fp32", "M": "i32", "stride_m": "i32"}},
          constexprs={{"BLOCK_M": 128}})
"""


def test_a_triton_run_time_stride_reads_the_parameter_by_its_name(tmp_path: Path) -> None:
    """Item 15 for Triton: the PTX names the parameters column_walk_param_<n>; the TTIR's
    `tt.func` names them, and every view says `4*stride_m`, never `4*c[0x0][0x224]`."""
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    path = tmp_path / "kernel.py"
    frontends = Path(__file__).parent / "data" / "frontends"
    path.write_text(TRITON_KERNEL.format(frontends=str(frontends)))
    run = CliRunner().invoke(cli, ["check", str(path), "--arch", "sm_90a"])
    assert run.exit_code == 0, run.output
    assert "lane stride 4*stride_m bytes, a run-time value" in run.output
    assert "c[0x0][" not in run.output
    run = CliRunner().invoke(cli, ["check", str(path), "--arch", "sm_90a", "--json"])
    assert run.exit_code == 0, run.output
    (program,) = json.loads(run.output)["programs"]
    (kernel,) = program["kernels"]
    texts = list(_said(kernel))
    assert any("4*stride_m" in t for t in texts)
    assert not [t for t in texts if "c[0x0][" in t]
    out = tmp_path / "out"
    run = CliRunner().invoke(cli, ["export", str(path), "-o", str(out), "-f", "md,html"])
    assert run.exit_code == 0, run.output
    for written in out.iterdir():
        text = written.read_text()
        assert "4\\*stride\\_m" in text or "4*stride_m" in text, written.name
        # the listing keeps the SASS as ptxas wrote it; no finding or memory row says c[0x0]
        assert not [ln for ln in text.splitlines() if "stride " in ln and "c[0x0][" in ln]


def _said(node: object) -> Iterator[str]:
    """Every message, hint, pattern and unknown in a JSON document (not the SASS texts)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("message", "hint", "pattern", "unknown") and isinstance(value, str):
                yield value
            else:
                yield from _said(value)
    elif isinstance(node, list):
        for value in node:
            yield from _said(value)


def test_a_merge_candidate_run_owns_its_loads_narrow_and_interleaved_notes() -> None:
    # Before: narrow-access (4 loads, 1 store), uncoalesced (16 sectors, the line's 4 loads
    # interleave) and merge-candidate, three hints alike on the same four LDG.E.
    text = check("--kernel", "four_scalars")
    notes = [line.split()[1] for line in text.splitlines() if line.startswith("    note ")]
    assert notes == ["merge-candidate:"], text
    assert "each touches 16 sectors per warp where 4 would do" in text
    doc = json.loads(check("--kernel", "four_scalars", "--json"))
    dumped = json.dumps(doc)
    assert "interleave and touch" not in dumped and '"min_sectors": 4' in dumped
