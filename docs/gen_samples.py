"""Rewrite the sample outputs in README.md and docs/*.md from real runs.

    python docs/gen_samples.py

A sample is a fenced block right after a marker naming the command it came from:

    <!-- sample: sassview check examples/matmul/01_naive.cu --arch sm_90a -->
    ```text
    $ sassview check examples/matmul/01_naive.cu --arch sm_90a
    ...what the command printed...
    ```

Each command runs from the repository root as `python -m sassview ...`, with a cache directory
of its own (a sample never shows what an old cache held). The output is kept as printed but for
two things that differ between machines: the repository's absolute path where one is still
printed (`check` prints paths under the working directory as typed: no rewriting there), written
`./` as a user in the repository sees it, and the private cache directory. Numbers, tool
versions and widths stay: when a compiler update changes them the sample should change too.
tests/test_readme_samples.py runs the same commands and fails when a block differs.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
SAMPLE = re.compile(
    r"^<!-- sample: (?P<command>sassview [^\n]*?) -->\n"
    r"(?P<fence>```[a-z]*)\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


def commands(text: str) -> list[str]:
    """The sample commands in a Markdown text, in order."""
    return [m["command"] for m in SAMPLE.finditer(text)]


def body(command: str, output: str) -> str:
    """What a sample block holds between its fences: the command as typed, then its output."""
    return f"$ {command}\n{output}\n"


def rewrite(text: str, output: Callable[[str], str]) -> str:
    """`text` with every sample block holding `$ command` and output(command)."""

    def block(m: re.Match[str]) -> str:
        command = m["command"]
        return f"<!-- sample: {command} -->\n{m['fence']}\n{body(command, output(command))}```"

    return SAMPLE.sub(block, text)


def run(command: str, cache_dir: str) -> str:
    """What `command` prints from the repository root, normalised as the module says."""
    argv = shlex.split(command)
    env = {**os.environ, "SASSVIEW_CACHE_DIR": cache_dir}
    env.pop("SASSVIEW_NO_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-m", "sassview", *argv[1:]],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode not in (0, 1):  # 1: a check failed, which a sample may show
        raise RuntimeError(f"`{command}` exited {done.returncode}:\n{done.stderr}")
    out = done.stdout.replace(f"{ROOT}/", "./").replace(cache_dir, "$SASSVIEW_CACHE_DIR")
    return out.rstrip()


class Runner:
    """Runs each distinct command once, all in one private cache directory."""

    def __init__(self, cache_dir: str) -> None:
        self.cache_dir = cache_dir
        self.seen: dict[str, str] = {}

    def __call__(self, command: str) -> str:
        if command not in self.seen:
            self.seen[command] = run(command, self.cache_dir)
        return self.seen[command]


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="sassview-samples-") as cache_dir:
        output = Runner(cache_dir)
        for path in FILES:
            text = path.read_text(encoding="utf-8")
            new = rewrite(text, output)
            if new != text:
                path.write_text(new, encoding="utf-8")
                print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
