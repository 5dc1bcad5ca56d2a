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


# ---- issue #30, a later round: cases not in its list ----


def test_a_kernel_file_raising_keyboardinterrupt_is_its_error_not_a_ctrl_c(tmp_path: Path) -> None:
    """`raise KeyboardInterrupt` at import printed "Aborted!" and exit 1 as if the user had
    pressed Ctrl-C: no one did, so it is the file's error, named, with its line."""
    path = tmp_path / "kernel.py"
    path.write_text("x = 1\nraise KeyboardInterrupt\n")
    done = run("check", path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "importing it raised KeyboardInterrupt (no Ctrl-C was pressed)" in done.stderr
    assert f'File "{path}", line 2' in done.stderr and "Aborted" not in done.stderr


def test_a_compile_database_of_non_objects_is_refused_by_its_entry(tmp_path: Path) -> None:
    """`[1, "x", null]` was read as a database with no entry for the file, and the compile
    went on without its flags, exit 0: the file is broken, and is said to be."""
    source = tmp_path / "vecadd.cu"
    source.write_bytes(VECADD.read_bytes())
    (tmp_path / "compile_commands.json").write_text('[1, "x", null]')
    done = run("check", source, "--arch", "sm_90a")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "compile_commands.json: entry 1 is int, not an object" in done.stderr
    assert "hint: regenerate it" in done.stderr


def test_a_cache_directory_that_is_a_file_is_said_once_and_left_alone(tmp_path: Path) -> None:
    """SASSVIEW_CACHE_DIR naming a file (or a folder under one) compiled uncached without a
    word, every run: said once per run, and the file is not touched."""
    blocker = tmp_path / "cachefile"
    blocker.write_bytes(b"mine")
    for root in (blocker, blocker / "sub"):
        done = run("check", VECADD, "--arch", "sm_90a", env={"SASSVIEW_CACHE_DIR": str(root)})
        assert done.returncode == 0, done.stderr
        said = [ln for ln in done.stderr.splitlines() if "is a file, not a directory" in ln]
        assert len(said) == 1 and str(blocker) in said[0], done.stderr
        assert "add_f4" in done.stdout
    assert blocker.read_bytes() == b"mine"


def test_a_missing_file_whose_name_holds_a_control_character_is_named_as_given(
    tmp_path: Path,
) -> None:
    """`check $'a\\x01b.cu'` said `ab.cu: no such file`: the \\x01 went to the terminal and the
    name printed was not the one given. Control characters are written out."""
    done = run("check", tmp_path / "a\x01b.cu")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "a\\x01b.cu: no such file" in done.stderr and "\x01" not in done.stderr


@pytest.mark.parametrize("name", ["SASSVIEW_TOOL_TIMEOUT", "SASSVIEW_COMPILE_TIMEOUT"])
def test_a_bad_timeout_is_said_on_a_warm_run_too(tmp_path: Path, name: str) -> None:
    """A warm check runs no tool, so a timeout of -5 was read by nothing and the run exited
    0 without a word; the command line now reads both settings before any command runs."""
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "cache")}
    assert run("check", VECADD, env=env).returncode == 0  # the cache is warm after this
    warm = run("check", VECADD, env={**env, name: "-5"})
    assert warm.returncode == 2 and warm.stdout == ""
    assert f"{name}='-5' is not a number of seconds" in warm.stderr
    assert "Traceback" not in warm.stderr
