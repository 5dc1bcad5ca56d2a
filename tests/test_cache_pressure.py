"""The cache under pressure: parallel writers and readers, writers killed mid-write, a size cap."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sassview import cache

ROOT = Path(__file__).parents[1]

COMPILE_AND_READ = """
import json, sys, sassview
out = []
for src in sys.argv[1:]:
    for k in sassview.compile(path=src, arch="sm_80").kernels:
        out.append([k.name, k.resources.registers, len(k.instructions)])
print(json.dumps(out))
"""

WRITER = """
import sys
from pathlib import Path
from sassview import cache
store = cache.Store("pressure", Path(sys.argv[1]))
i = 0
while True:  # until killed
    data = bytes([i % 251]) * 2_000_000
    store.put(cache.make_key({"i": i % 40}), {"a.bin": data, "b.bin": data[: 1_000_000]})
    i += 1
"""


@pytest.mark.compile
def test_eight_processes_compiling_the_same_kernels_agree_and_leave_whole_entries(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "SASSVIEW_CACHE_DIR": str(tmp_path / "c")}
    sources = [
        str(ROOT / "tests/corpus/sources/vecadd.cu"),
        str(ROOT / "tests/corpus/sources/tiled.cu"),
    ]
    procs = [
        subprocess.Popen([sys.executable, "-c", COMPILE_AND_READ, *sources], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(8)
    ]  # fmt: skip
    results = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in results]
    outputs = {out for out, _ in results}
    assert len(outputs) == 1 and json.loads(outputs.pop())
    root = tmp_path / "c"
    # One entry per compile (2 sources) and per disassembly (2 cubins), whatever the races
    # (besides the remembered versions of nvdisasm and cuobjdump).
    found = [m for m in root.rglob("manifest.json") if "tool-versions" not in m.parts]
    assert len(found) == 4
    assert not list(root.rglob(".tmp-*"))


def _all_entries_whole(root: Path) -> int:
    store = cache.Store("pressure", root)
    whole = 0
    for i in range(40):
        entry = store.get(cache.make_key({"i": i}))
        if entry is not None:
            a, b = entry.read_bytes("a.bin"), entry.read_bytes("b.bin")
            assert (
                len(a) == 2_000_000
                and len(b) == 1_000_000
                and len(set(a)) == 1
                and b == a[:1_000_000]
            )
            whole += 1
    return whole


def test_writers_killed_mid_write_never_leave_a_partial_entry(tmp_path: Path) -> None:
    rng = random.Random(7)
    kills = 0
    for _ in range(25):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=ROOT)
        time.sleep(rng.uniform(0.3, 0.9))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += proc.returncode == -signal.SIGKILL
        _all_entries_whole(tmp_path)  # raises on any partial entry served
    assert kills == 25
    assert _all_entries_whole(tmp_path) > 0
    # Killed writers leave temporary directories; pruning (or clear) sweeps them.
    cache.prune(10**12, tmp_path)
    assert not list(tmp_path.rglob(".tmp-*"))


def test_size_limit_evicts_the_least_recently_used_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = cache.Store("t", tmp_path)
    keys = [cache.make_key({"n": n}) for n in range(5)]
    for n, key in enumerate(keys):
        store.put(key, {"x.bin": b"x" * 100_000})
        os.utime(store._dir(key) / "manifest.json", (1000 + n, 1000 + n))
    assert store.get(keys[0]) is not None  # reading it makes it the most recently used
    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SASSVIEW_CACHE_MAX_MB", "0.25")
    removed = cache.enforce_limit()
    assert removed is not None and removed.entries == 3
    left = [k for k in keys if store.get(k) is not None]
    assert left == [keys[0], keys[4]]


def test_bad_size_limit_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SASSVIEW_CACHE_MAX_MB", "lots")
    with pytest.raises(cache.SassviewError, match="SASSVIEW_CACHE_MAX_MB"):
        cache.enforce_limit()


def test_cache_prune_command(tmp_path: Path) -> None:
    store = cache.Store("t", tmp_path)
    for n in range(3):
        store.put(cache.make_key({"n": n}), {"x.bin": b"y" * 400_000})
    env = {**os.environ, "SASSVIEW_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "sassview", "cache", "prune", "--max-mb", "0.5"],
                          capture_output=True, text=True, env=env)  # fmt: skip
    assert done.returncode == 0 and "removed 2 entries" in done.stdout
