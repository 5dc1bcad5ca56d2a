"""The README's test command is the one CI runs: a user who copies it runs what CI proves."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    """The commands of README's 'Run the tests' block, each without its trailing comment."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"Run the tests.*?```bash\n(.*?)\n```", readme, re.S)
    assert found is not None, "README.md has no 'Run the tests' block"
    lines = (line.split("  #", 1)[0].strip() for line in found.group(1).splitlines())
    return [line for line in lines if line]


def test_ci_runs_the_readmes_test_command() -> None:
    """Each command of the block, in order, as CI runs it (CI adds only --durations=25)."""
    commands = _readme_commands()
    assert commands and all(c.startswith(".venv/bin/python -m pytest") for c in commands)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    ran = [line.removesuffix(" --durations=25") for line in ci if line.startswith("$hide ")]
    at = [ran.index(f"$hide {c}") if f"$hide {c}" in ran else -1 for c in commands]
    assert -1 not in at, f".ci/run does not run the README's {commands}"
    assert at == sorted(at), "CI runs the README's commands in another order"
