"""A pickle planted in the cache never runs: the built model is unpickled only from a place no one
but the user could have written (sassview/cache/trust.py). Each case plants, in every model entry
of a real check's cache, a pickle that would create a marker directory when loaded, with its
manifest's digests rewritten to match, as a hostile writer would."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_sassview

from sassview.cache.pickled import FILE

pytestmark = pytest.mark.compile

ROOT = Path(__file__).parents[1]
VECADD = ROOT / "examples" / "vecadd.cu"
NOBODY = 65534  # nobody / nogroup on Debian and most Linux systems


class _Planted:
    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[object, ...]:
        return (os.mkdir, (self.marker,))


def _plant(cache: Path, marker: Path) -> list[Path]:
    """Replace every model entry's pickle with one that makes `marker`; the entries."""
    entries = [p.parent for p in cache.glob(f"v*/model/*/*/{FILE}")]
    assert entries, "the check wrote no model entry"
    planted = pickle.dumps(_Planted(marker), protocol=5)
    for entry in entries:
        (entry / FILE).write_bytes(planted)
        manifest = json.loads((entry / "manifest.json").read_text())
        manifest["files"][FILE].update(
            size=len(planted), sha256=hashlib.sha256(planted).hexdigest()
        )
        (entry / "manifest.json").write_text(json.dumps(manifest, sort_keys=True))
    return entries


def _warm_check(tmp: Path, loosen: Callable[[list[Path]], None]) -> tuple[str, Path]:
    cache, marker = tmp / "cache", tmp / "PLANTED-RAN"
    env = {"SASSVIEW_CACHE_DIR": str(cache)}
    assert run_sassview("check", VECADD, env=env).returncode == 0
    loosen(_plant(cache, marker))
    done = run_sassview("check", VECADD, env=env)
    assert done.returncode == 0, done.stderr  # built again, not loaded
    assert "Traceback" not in done.stderr
    return done.stderr, marker


def test_the_planted_pickle_would_run_in_a_private_cache(tmp_path: Path) -> None:
    """The control: with nothing loosened the digests match, so what these tests plant is
    loaded (and the cases below fail without the trust check)."""
    _, marker = _warm_check(tmp_path, lambda entries: None)
    assert marker.exists()


def _writable_by_all(entries: list[Path]) -> None:
    for entry in entries:
        entry.chmod(0o777)


def _group_writable(entries: list[Path]) -> None:
    for entry in entries:
        os.chown(entry, -1, NOBODY)
        entry.chmod(0o775)


def _owned_by_another(entries: list[Path]) -> None:
    for entry in entries:
        os.chown(entry / FILE, NOBODY, -1)


def _parent_writable_by_all(entries: list[Path]) -> None:
    entries[0].parents[1].chmod(0o777)  # v<N>/model: whoever can write it can swap entries


@pytest.mark.parametrize(
    ("loosen", "said"),
    [
        pytest.param(_writable_by_all, "writable by every user", id="entry-o+w"),
        pytest.param(_parent_writable_by_all, "writable by every user", id="kind-dir-o+w"),
        pytest.param(_group_writable, "writable by the group", id="entry-g+w-other-group"),
        pytest.param(_owned_by_another, "not by you", id="file-owned-by-nobody"),
    ],
)
def test_a_pickle_others_could_write_is_never_loaded(
    tmp_path: Path, loosen: Callable[[list[Path]], None], said: str
) -> None:
    if loosen in (_group_writable, _owned_by_another) and os.geteuid() != 0:
        pytest.skip("giving a file to another user or group needs root")
    stderr, marker = _warm_check(tmp_path, loosen)
    assert not marker.exists()
    assert "not loading the cached model" in stderr and said in stderr, stderr
    assert stderr.count("not loading the cached model") == 1  # said once, not per kernel


def test_the_pickled_model_is_never_shared_through_a_remote() -> None:
    """A remote writer controls what the remote serves: only data kinds go there (store.py's
    BUILT_ONCE are the kinds read from and written to it), never the pickled model."""
    from sassview.build import MODEL
    from sassview.cache.store import BUILT_ONCE

    assert MODEL not in BUILT_ONCE
