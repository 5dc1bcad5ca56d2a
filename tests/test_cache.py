"""The content-addressed cache: whole entries or none, damaged entries rebuilt."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from sassview import cache


def test_put_then_get_round_trips(tmp_path: Path) -> None:
    store = cache.Store("t", tmp_path)
    key = cache.make_key({"a": 1})
    store.put(key, {"x.bin": b"\x00\x01", "y.txt": "hello"})
    entry = store.get(key)
    assert entry is not None
    assert entry.read_bytes("x.bin") == b"\x00\x01" and entry.read_text("y.txt") == "hello"


def test_keys_differ_when_any_part_differs() -> None:
    base = {"source": "abc", "arch": "sm_90a", "tools": {"nvrtc": "13.5"}}
    keys = {
        cache.make_key(base),
        cache.make_key({**base, "arch": "sm_80"}),
        cache.make_key({**base, "tools": {"nvrtc": "13.4"}}),
        cache.make_key({**base, "source": "abd"}),
    }
    assert len(keys) == 4


def test_entry_with_a_truncated_file_is_dropped_and_rebuilt(tmp_path: Path) -> None:
    store = cache.Store("t", tmp_path)
    key = cache.make_key({"a": 2})
    entry = store.put(key, {"x.bin": b"0123456789"})
    assert entry is not None
    (entry.path / "x.bin").write_bytes(b"0123")  # a crash or a disk error cut it short
    assert store.get(key) is None
    assert not entry.path.exists()
    store.put(key, {"x.bin": b"0123456789"})
    assert store.get(key) is not None


def test_entry_with_garbage_manifest_is_dropped(tmp_path: Path) -> None:
    store = cache.Store("t", tmp_path)
    key = cache.make_key({"a": 3})
    entry = store.put(key, {"x.bin": b"1"})
    (entry.path / "manifest.json").write_text("{not json")
    assert store.get(key) is None


def test_writer_killed_midway_leaves_no_visible_entry(tmp_path: Path) -> None:
    # What a SIGKILL during put() leaves: a temporary directory with some files, no rename.
    store = cache.Store("t", tmp_path)
    key = cache.make_key({"a": 4})
    partial = store.root / key[:2] / ".tmp-dead"
    partial.mkdir(parents=True)
    (partial / "x.bin").write_bytes(b"half")
    assert store.get(key) is None
    assert cache.info(tmp_path).entries == 0
    cache.clear(tmp_path)
    assert not partial.exists()


def _writer(args: tuple[str, str, int]) -> bool:
    root, key, n = args
    store = cache.Store("t", Path(root))
    store.put(key, {"data.bin": bytes([n % 256]) * 100_000})
    entry = store.get(key)
    return entry is not None and len(entry.read_bytes("data.bin")) == 100_000


def test_concurrent_writers_of_one_key_all_see_a_whole_entry(tmp_path: Path) -> None:
    key = cache.make_key({"a": 5})
    with multiprocessing.get_context("fork").Pool(4) as pool:
        results = pool.map(_writer, [(str(tmp_path), key, n) for n in range(16)])
    assert all(results)
    manifests = list(tmp_path.rglob("manifest.json"))
    assert len(manifests) == 1
    assert json.loads(manifests[0].read_text())["files"] == {"data.bin": 100_000}
    assert not [p for p in tmp_path.rglob(".tmp-*")]


def test_no_cache_setting_turns_reads_and_writes_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SASSVIEW_NO_CACHE", "1")
    store = cache.Store("t", tmp_path)
    assert store.put("k" * 64, {"x": b"1"}) is None
    assert store.get("k" * 64) is None


def test_clear_reports_what_it_removed(tmp_path: Path) -> None:
    store = cache.Store("t", tmp_path)
    for i in range(3):
        store.put(cache.make_key({"i": i}), {"x": b"12345"})
    found = cache.clear(tmp_path)
    assert found.entries == 3 and found.bytes > 15
    assert cache.info(tmp_path).entries == 0
