"""Kernels are listed in the order the source defines them, in every view: the ELF lists them
last first, and `check`, `--json` and `export` used to follow it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_sassview as sassview

pytestmark = pytest.mark.compile

SOURCE = "".join(
    f'extern "C" __global__ void {name}(float* x) {{ x[threadIdx.x] = {i}.0f; }}\n'
    for i, name in enumerate(["zeta", "alpha", "mid"])
)
ORDER = ["zeta", "alpha", "mid"]  # as defined: neither sorted nor the ELF's (mid first)


def test_check_text_and_json_list_kernels_in_source_order(tmp_path: Path) -> None:
    source = tmp_path / "three.cu"
    source.write_text(SOURCE)
    text = sassview("check", source, "--arch", "sm_90a")
    assert text.returncode == 0, text.stderr
    names = [line for line in text.stdout.splitlines() if line in ORDER]
    assert names == ORDER
    doc = sassview("check", source, "--arch", "sm_90a", "--json")
    (program,) = json.loads(doc.stdout)["programs"]
    assert [k["name"] for k in program["kernels"]] == ORDER


def test_export_writes_kernels_in_source_order(tmp_path: Path) -> None:
    source = tmp_path / "three.cu"
    source.write_text(SOURCE)
    done = sassview("export", source, "--arch", "sm_90a", "-o", tmp_path / "out", "-f", "md")
    assert done.returncode == 0, done.stderr
    written = [Path(line).name for line in done.stdout.splitlines()]
    assert written == [f"three-sm_90a-{name}.md" for name in ORDER]
