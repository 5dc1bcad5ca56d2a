"""`sassview try`'s padding knob: a bank conflict on a shared array whose row length is a macro
is tried with the macro one larger (steer/padding.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sassview.analyses.base import Annotation, Severity
from sassview.ir import SourceLoc
from sassview.steer.padding import padding_knob

DATA = Path(__file__).parent / "data" / "try"


@pytest.mark.compile
def test_padding_the_tile_removes_the_transposes_32_way_conflict() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "try", str(DATA / "transpose_pad.cu"),
         "--arch", "sm_90a", "--json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (trial,) = [t for t in json.loads(done.stdout)["trials"] if t["kind"] == "bank-conflict"]
    assert "32-way" in trial["finding"]
    assert trial["knob"] == "PAD=1 (pads tile's rows)" and trial["resolved"] is True
    assert trial["delta"]["shared_bytes"] == 32 * 4  # one float more in each of 32 rows


def _finding(tmp_path: Path, source: str, line_text: str) -> Annotation:
    path = tmp_path / "k.cu"
    path.write_text(source)
    line = source.splitlines().index(line_text) + 1
    return Annotation(
        "bank-conflict", Severity.NOTE, "32-way", source=(SourceLoc(str(path), line, 0),)
    )


BODY = "  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];"


@pytest.mark.parametrize(
    ("head", "variant", "defines", "knob"),
    [
        ("#ifndef PAD\n#define PAD 0\n#endif\n", {}, (), ("PAD", "tile", 1)),
        ("", {"PAD": 2}, (), ("PAD", "tile", 3)),  # a variant of the declaration
        ("", {}, ("PAD=1",), ("PAD", "tile", 2)),  # a define of the declaration
        ("#define PAD 0\n", {}, (), None),  # not guarded: a -D could not change it
        ("", {}, (), None),  # defined nowhere: a constant or an enum, not a macro to set
    ],
)
def test_which_macros_are_knobs(
    tmp_path: Path, head: str, variant: dict, defines: tuple, knob: tuple | None
) -> None:
    source = head + (
        f"__global__ void k(float* out) {{\n  __shared__ float tile[32][32 + PAD];\n{BODY}\n}}\n"
    )
    assert padding_knob(_finding(tmp_path, source, BODY), variant, defines) == knob


def test_a_literal_row_length_is_no_knob(tmp_path: Path) -> None:
    source = "__global__ void k(float* out) {\n  __shared__ float tile[32][32];\n" + BODY + "\n}\n"
    assert padding_knob(_finding(tmp_path, source, BODY), {}) is None
