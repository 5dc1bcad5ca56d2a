"""`cache clear` takes nothing of the user's: a directory that already holds files is never
marked as sassview's (so nothing in it is ever sassview's to remove), and in a marked one only
sassview's own layout of its own formats, and its own scratch names, is removed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_sassview

from sassview.cache.layout import FORMAT_VERSION, MARKER

pytestmark = pytest.mark.compile

VECADD = Path(__file__).parents[1] / "examples" / "vecadd.cu"


def _users_files(root: Path) -> list[Path]:
    files = [root / "notes.txt", root / "v1" / "scratch" / "thesis" / "chapter1.tex"]
    files.append(root / f"v{FORMAT_VERSION}" / "scratch" / "mine" / "data.bin")
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("the user's own\n")
    return files


def test_a_non_empty_directory_is_not_marked_and_clear_takes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "work"
    files = _users_files(root)
    env = {"SASSVIEW_CACHE_DIR": str(root)}
    done = run_sassview("check", VECADD, env=env)
    assert done.returncode == 0, done.stderr  # the command works, without the cache
    assert "not caching in" in done.stderr and "did not write" in done.stderr
    assert not (root / MARKER).exists()
    cleared = run_sassview("cache", "clear", env=env)
    assert cleared.returncode == 2 and "Traceback" not in cleared.stderr
    assert all(f.read_text() == "the user's own\n" for f in files)


def test_doctor_says_why_such_a_directory_is_not_used(tmp_path: Path) -> None:
    root = tmp_path / "work"
    _users_files(root)
    done = run_sassview("doctor", env={"SASSVIEW_CACHE_DIR": str(root)})
    assert "holds files sassview did not write" in done.stdout + done.stderr


def test_clear_in_a_marked_directory_takes_only_sassviews_own_layout(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    env = {"SASSVIEW_CACHE_DIR": str(root)}
    assert run_sassview("check", VECADD, env=env).returncode == 0
    assert (root / MARKER).is_file()
    files = _users_files(root)  # added later, beside sassview's entries
    future = root / f"v{FORMAT_VERSION + 7}" / "scratch" / "x" / "y.txt"
    future.parent.mkdir(parents=True)
    future.write_text("not a format sassview has\n")
    cleared = run_sassview("cache", "clear", env=env)
    assert cleared.returncode == 0, cleared.stderr
    assert all(f.exists() for f in (*files, future))
    assert not list(root.glob(f"v{FORMAT_VERSION}/cuda/*/*"))  # its own entries went
    assert not (root / f"v{FORMAT_VERSION}" / "scratch" / "nvrtc-headers").exists()


def test_every_scratch_directory_sassview_makes_is_one_clear_knows() -> None:
    """A new `scratch_dir("name")` must be named in layout.SCRATCH_NAMES, or `clear` leaves it."""
    import re

    from sassview.cache.layout import SCRATCH_NAMES

    package = Path(__file__).parents[1] / "sassview"
    used = {
        m.group(1)
        for path in package.rglob("*.py")
        for m in re.finditer(r"scratch_dir\(\"([^\"]+)\"\)", path.read_text())
    }
    assert used and used <= SCRATCH_NAMES, used - SCRATCH_NAMES
