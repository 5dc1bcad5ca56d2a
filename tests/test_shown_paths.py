"""`check` prints a path under the working directory as the user typed it (relative), where it
used to print the absolute path the frontends resolve to; `--json` keeps the absolute one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.compile

ROOT = Path(__file__).resolve().parents[1]


def _check(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "sassview", "check", *args, "--arch", "sm_90a"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_check_prints_the_path_relative_to_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(
        'extern "C" __global__ void k(float* x, int n) {\n'
        "  for (int i = 0; i < n; ++i) x[i] += 1.0f;\n}\n"
    )
    done = _check(tmp_path, "src/k.cu")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("== src/k.cu · sm_90a · "), done.stdout
    assert str(tmp_path) not in done.stdout
    assert "(src/k.cu:" in done.stdout  # the register peak's place too
    doc = json.loads(_check(tmp_path, "src/k.cu", "--json").stdout)
    assert doc["programs"][0]["source"] == str(tmp_path / "src" / "k.cu")


def test_a_path_outside_the_working_directory_stays_absolute(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k(float* x) { x[0] = 1.0f; }\n')
    (tmp_path / "elsewhere").mkdir()
    done = _check(tmp_path / "elsewhere", str(tmp_path / "k.cu"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"== {tmp_path / 'k.cu'} · ")
