"""The GitHub Actions workflow in docs/toolchains.md: its commands, run here as CI would run them
(in a project laid out as the workflow expects, with a baseline recorded first). The 12.9 leg
needs `sassview toolchain add 12.9` done beforehand (no test downloads): without it that leg
skips, or fails where CI (or SASSVIEW_REQUIRE_TOOLCHAINS) is set."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.kernels import SCALE_SHIFT as KERNEL

from sassview.errors import SassviewError
from sassview.toolchain import store
from tests.conftest import toolchains_required

pytestmark = pytest.mark.compile
ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "toolchains.md"
TEST_FILE = """
def test_tiled(sassview_kernel):
    k = sassview_kernel("../kernels/tiled.cu")
    k.assert_no_spills()
"""


def workflow() -> tuple[list[str], list[str]]:
    """(the `run:` commands, the matrix's toolchains) of the doc's yaml block."""
    block = re.search(r"```yaml\n(.*?)```", DOC.read_text(), re.S)
    assert block is not None, "docs/toolchains.md has no workflow"
    text = block.group(1)
    runs = re.findall(r"^\s+- run: (.+)$", text, re.M)
    matrix = re.search(r"toolchain: \[(.*)\]", text)
    assert matrix is not None
    return runs, [t.strip().strip('"') for t in matrix.group(1).split(",")]


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command)
    if argv[0] == "sassview":
        argv = [sys.executable, "-m", "sassview", *argv[1:]]
    elif argv[:3] == ["python", "-m", "pytest"]:
        argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv[3:]]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)


def _have_12_9() -> bool:
    try:
        store.find("12.9")
    except SassviewError as exc:
        if toolchains_required():
            pytest.fail(f"CI without CUDA 12.9 in the store: {exc.message}", pytrace=False)
        return False
    return True


def test_the_documented_workflow_runs_and_gates(tmp_path: Path) -> None:
    runs, toolchains = workflow()
    assert any(r.startswith("sassview toolchain add 12.9") for r in runs)
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "tiled.cu").write_text((ROOT / "examples/tiled.cu").read_text())
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_kernels.py").write_text(TEST_FILE)
    # Recorded once by the developer (docs: `--update`), committed with the project.
    done = _run("sassview baseline kernels/tiled.cu --update", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    done = _run(
        "python -m pytest tests/test_kernels.py --sassview-baseline .sassview/baseline "
        "--sassview-baseline-update",
        tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    have = _have_12_9()
    ran = 0
    for toolchain in toolchains:
        if toolchain == "12.9" and not have:
            continue
        for command in runs:
            if command.startswith("pip "):
                continue  # the environment this suite runs in is the installed one
            if command.startswith("sassview toolchain add") and not have:
                continue
            line = command.replace("${{ matrix.toolchain }}", toolchain)
            done = _run(line, tmp_path)
            assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
            ran += 1
    assert ran >= 2
    if not have:
        pytest.skip("ran the default leg only: `sassview toolchain add 12.9` for the 12.9 leg")


def test_the_workflow_fails_a_pull_request_that_narrows_a_load(tmp_path: Path) -> None:
    runs, _ = workflow()
    gate = next(r for r in runs if r.startswith("sassview baseline"))
    (tmp_path / "kernels").mkdir()
    kernel = tmp_path / "kernels" / "tiled.cu"
    kernel.write_text(KERNEL)
    assert _run("sassview baseline kernels/tiled.cu --update", tmp_path).returncode == 0
    # The pull request: the float4 kernel now reads floats.
    kernel.write_text("#define WIDTH 1\n" + KERNEL)
    done = _run(gate.replace("${{ matrix.toolchain }}", "default"), tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SIGNIFICANT" in done.stdout
