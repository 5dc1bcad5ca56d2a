"""A tool's end is an event sassview waits on, not something it polls for (issue 36): a cold
check used to make 60-140 time.sleep calls waiting on nvdisasm and the compile's child.

Checked without timing anything: time.sleep is made to fail, so a wait that polls fails the
test, and the tools used (`sh`) end at once, or after the size check's first wake-up.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

from sassview.toolchain.child import call_in_child
from sassview.toolchain.run import RunningTool, run_tool

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfd: polled there")


@pytest.fixture
def no_sleeping(monkeypatch: pytest.MonkeyPatch) -> None:
    def sleep(seconds: float) -> None:
        raise AssertionError(f"slept {seconds} s: a poll, where the tool's end should wake us")

    monkeypatch.setattr(time, "sleep", sleep)


def test_a_tool_is_waited_on_without_sleeping(no_sleeping: None) -> None:
    assert run_tool(["sh", "-c", "echo done"], what="sh") == "done\n"


def test_a_slower_tool_is_waited_on_without_sleeping(no_sleeping: None) -> None:
    # Runs past the first output-size check (0.1 s), so the wait wakes more than once.
    assert run_tool([sys.executable, "-c", "import time; time.sleep(0.3); print(1)"], what="py")


def test_the_compile_child_is_waited_on_without_sleeping(no_sleeping: None) -> None:
    assert call_in_child(sum, [1, 2, 3], what="sum", timeout=60) == 6


def test_a_tool_that_ended_is_seen_at_once() -> None:
    tool = RunningTool(["sh", "-c", "exit 3"])
    try:
        assert tool.ended_within(60)  # returns at the end, not after 60 s: nothing polled
        assert tool.proc.returncode == 3
    finally:
        tool.close()
