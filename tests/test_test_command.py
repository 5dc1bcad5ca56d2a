"""The README's test command is the one CI runs: a user who copies it runs what CI proves."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"Run the tests.*?```bash\n(.*?)\n```", readme, re.S)
    assert found is not None, "README.md has no 'Run the tests' block"
    return found.group(1).strip()


def test_ci_runs_the_readmes_test_command() -> None:
    command = _readme_command()
    assert command.startswith(".venv/bin/python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert f"$hide {command}" in ci, f".ci/run does not run the README's `{command}`"
