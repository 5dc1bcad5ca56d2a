"""The cache never costs the user a result: `cache info` deletes nothing, a limit of 0 is no
cache, a consistent manifest over a broken cubin is a damaged entry (rebuilt), and a full disk
under the cache leaves the compile working (a warning, a temporary directory)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_sassview

pytestmark = pytest.mark.compile

VECADD = Path(__file__).parents[1] / "examples" / "vecadd.cu"


def _entries(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("v*/*/*/*/manifest.json"))


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    root = tmp_path / "cache"
    assert run_sassview("check", VECADD, env={"SASSVIEW_CACHE_DIR": str(root)}).returncode == 0
    assert _entries(root)
    return root


@pytest.mark.parametrize("limit", ["0", "0.001"])
def test_cache_info_deletes_nothing_under_any_limit(filled: Path, limit: str) -> None:
    before = _entries(filled)
    env = {"SASSVIEW_CACHE_DIR": str(filled), "SASSVIEW_CACHE_MAX_MB": limit}
    done = run_sassview("cache", "info", env=env)
    assert done.returncode == 0, done.stderr
    assert f"{len(before)} entries" in done.stdout
    assert _entries(filled) == before


def test_a_limit_of_zero_is_no_cache_and_says_so(filled: Path) -> None:
    before = _entries(filled)
    env = {"SASSVIEW_CACHE_DIR": str(filled), "SASSVIEW_CACHE_MAX_MB": "0"}
    done = run_sassview("-v", "check", VECADD, env=env)
    assert done.returncode == 0, done.stderr
    assert "cache hit" not in done.stderr  # not read
    assert _entries(filled) == before  # nor written, nor trimmed
    assert "SASSVIEW_CACHE_MAX_MB=0" in run_sassview("cache", "info", env=env).stdout


def test_a_consistent_manifest_over_a_broken_cubin_is_rebuilt(filled: Path) -> None:
    env = {"SASSVIEW_CACHE_DIR": str(filled)}
    broken = b"\x7fELF" + b"\0" * 60
    cubins = list(filled.glob("v*/cuda/*/*/kernel.cubin"))
    assert cubins
    for cubin in cubins:
        cubin.write_bytes(broken)
        manifest = json.loads((cubin.parent / "manifest.json").read_text())
        manifest["files"]["kernel.cubin"].update(
            size=len(broken), sha256=hashlib.sha256(broken).hexdigest()
        )
        (cubin.parent / "manifest.json").write_text(json.dumps(manifest, sort_keys=True))
    for model in filled.glob("v*/model"):
        shutil.rmtree(model)  # so the compile entry is what the check reads
    done = run_sassview("check", VECADD, env=env)
    assert done.returncode == 0, done.stderr
    assert "malformed" not in done.stderr
    assert all(c.read_bytes() != broken for c in filled.glob("v*/cuda/*/*/kernel.cubin"))


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 200 kB tmpfs, nearly full (root only: elsewhere the test is skipped)."""
    where = tmp_path / "small"
    where.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(where)])
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        (where / "filler").write_bytes(b"\0" * 150_000)
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def test_a_full_disk_under_the_cache_leaves_the_compile_working(full_disk: Path) -> None:
    env = {"SASSVIEW_CACHE_DIR": str(full_disk / "cache")}
    done = run_sassview("check", VECADD, env=env)
    assert done.returncode == 0, done.stderr
    assert "add_f4" in done.stdout
    assert "could not be written" in done.stderr and "temporary directory" in done.stderr
    assert not (full_disk / "cache" / "v2" / "scratch" / "nvrtc-headers").exists()  # no half
