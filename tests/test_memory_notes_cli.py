"""Memory findings through the real CLI on kernels of our own (tests/data/analyses/sources/
pitch.cu), labelled by hand from the SASS NVRTC makes for sm_90a:

- column_sum: `in[r * cols + c]`, r = threadIdx.x: the LDG/STG address is R*c[0x0][0x224]*4,
  c[0x0][0x224] being `cols` (params at 0x210: in 8, out 8, rows 4, cols 4).
- four_scalars: p[0..3] of `in + 4*i`: four LDG.E at +0x0..+0xc of one base.
"""

from __future__ import annotations

import json
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
