"""The bad-input matrix: each case through the real CLI, one message, the right exit code."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from error_cases import CASES, Case, environment

pytestmark = pytest.mark.compile


def test_there_are_at_least_forty_distinct_cases() -> None:
    assert len({c.id for c in CASES}) == len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_error_case(case: Case, tmp_path: Path) -> None:
    if case.group == "kernel.py" and case.id.startswith("triton"):
        pytest.importorskip("triton")
    torch_cases = ("kernel-py-calls-torch", "torch-extension")
    if case.id in torch_cases and importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed: the case is a machine without it")
    args = case.args(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "sassview", *map(str, args)],
        capture_output=True, text=True, timeout=300, env=environment(case, tmp_path),
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == case.code, output
    assert "Traceback" not in output
    for needle in case.needles:
        assert needle in output, output
    if case.code == 2 and case.group not in ("usage", "tools") or case.id == "nvdisasm-fails":
        # (after the notes that say what build was taken: a header's includer, the project's)
        assert _after_notes(done.stderr).startswith("error: "), done.stderr
    # Nothing half-made is left in the cache.
    assert not list((tmp_path / "cache").rglob(".tmp-*"))


def _after_notes(stderr: str) -> str:
    """stderr without its leading `note:` lines and their indented continuations."""
    lines = stderr.splitlines(keepends=True)
    while lines and (lines[0].startswith("note: ") or lines[0].startswith("  ")):
        lines.pop(0)
    return "".join(lines)
