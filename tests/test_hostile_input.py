"""Input a hostile user or a broken machine gives sassview, channel by channel, that is not
a source file: what lies in its cache. Each ends in an answer or one message, never a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_sassview as run

pytestmark = pytest.mark.compile

VECADD = Path(__file__).parents[1] / "examples" / "vecadd.cu"


@pytest.mark.parametrize("name", ["manifest.json", "object.pickle"])
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_cache_file_that_is_not_a_regular_file_is_a_miss_not_a_hang(
    tmp_path: Path, name: str, kind: str
) -> None:
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "cache")}
    first = run("check", VECADD, env=env)
    assert first.returncode == 0, first.stderr
    (entry,) = (tmp_path / "cache").glob("v*/model/*/*")
    (entry / name).unlink()
    os.mkfifo(entry / name) if kind == "fifo" else (entry / name).mkdir()
    again = run("check", VECADD, env=env)  # before: a FIFO blocked the read for ever
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout
