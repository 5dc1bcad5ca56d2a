"""The cache under pressure: parallel writers and readers, writers killed mid-write, a size cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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

# A writer killed at its k-th step (a file half written, a file whole, the manifest, the rename):
# every step of every put in turn, chosen by number rather than by a sleep.
KILLED_WRITER = """
import os, sys
from pathlib import Path
at, seen = int(sys.argv[2]), [0]
def step():
    if seen[0] == at:
        os._exit(9)  # killed here: this step and every later one never happen
    seen[0] += 1
real_write, real_rename = Path.write_bytes, os.rename
def write_bytes(self, data):
    step()
    with open(self, "wb") as f:  # half of it, then the next step may be the kill
        f.write(data[: len(data) // 2])
    step()
    return real_write(self, data)
def rename(*args, **kwargs):
    step()
    return real_rename(*args, **kwargs)
Path.write_bytes, os.rename = write_bytes, rename
from sassview import cache
store = cache.Store("pressure", Path(sys.argv[1]))
for i in range(2):
    data = bytes([i]) * 2_000_000
    store.put(cache.make_key({"i": i}), {"a.bin": data, "b.bin": data[: 1_000_000]})
print("finished")
"""
STEPS_PER_RUN = 2 * (2 * 2 + 1)  # two puts, each: two files in two steps, then the rename


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
    # One entry per compile (2 sources), per disassembly (2 cubins) and per model (2: their
    # keys leave out ptxas's compile times), whatever the races (besides the remembered
    # versions of nvdisasm and cuobjdump).
    found = [m for m in root.rglob("manifest.json") if "tool-versions" not in m.parts]
    assert len(found) == 6
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
    for at in range(STEPS_PER_RUN + 1):  # every step in turn, and one run that finishes
        root = tmp_path / str(at)
        run = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(root), str(at)],
                             cwd=ROOT, capture_output=True, text=True)  # fmt: skip
        finished = at == STEPS_PER_RUN
        assert run.returncode == (0 if finished else 9), run.stderr
        whole = _all_entries_whole(root)  # raises on any partial entry served
        assert whole == (2 if finished else at // 5), at  # the puts that got past their rename
        # Killed writers leave temporary directories; pruning (or clear) sweeps them.
        cache.prune(10**12, root)
        assert not list(root.rglob(".tmp-*"))


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


# --- Readers racing the pruner: the removal runs at each chosen point of a read, no timing ----


class PruneAtOpen:
    """Runs `prune` just before the n-th file opened under `root` (Path.open or os.open, which
    layout.read_regular uses: every read of an entry goes through one), once: each point of a
    read can be chosen, none is left to timing."""

    def __init__(self, root: Path, at: int, prune: Callable[[], object]) -> None:
        self.root, self.at, self.prune = str(root), at, prune
        self.opens = 0
        self.fired = False

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real, real_os = Path.open, os.open
        me = self

        def before(path: object) -> None:
            if str(path).startswith(me.root) and not me.fired:
                if me.opens == me.at:
                    me.fired = True
                    me.prune()
                me.opens += 1

        def open_(path: Path, *args: Any, **kwargs: Any) -> Any:
            before(path)
            return real(path, *args, **kwargs)

        def os_open(path: Any, *args: Any, **kwargs: Any) -> int:
            before(path)
            return real_os(path, *args, **kwargs)

        monkeypatch.setattr(Path, "open", open_)
        monkeypatch.setattr(os, "open", os_open)


def test_a_reader_racing_the_pruner_gets_the_whole_entry_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = cache.Store("t", tmp_path)
    files = {"a.bin": b"\x01" * 5000, "b.txt": "b" * 3000}
    whole = (files["a.bin"], files["b.txt"])

    def read(key: str) -> tuple[bytes, str] | None:
        entry = store.get(key)
        return None if entry is None else (entry.read_bytes("a.bin"), entry.read_text("b.txt"))

    key = cache.make_key({"race": 0})
    store.put(key, files)
    counter = PruneAtOpen(tmp_path, -1, lambda: None)
    with monkeypatch.context() as m:
        counter.install(m)
        assert read(key) == whole
    assert counter.opens >= 1
    for at in range(counter.opens):  # before the manifest, before each file, ...
        store.put(key, files)
        race = PruneAtOpen(tmp_path, at, lambda: cache.prune(0, tmp_path))
        with monkeypatch.context() as m:
            race.install(m)
            got = read(key)
        assert race.fired and got in (None, whole)
    # ... and between the lookup and the reads: the entry handed out stays whole.
    store.put(key, files)
    entry = store.get(key)
    assert entry is not None and cache.prune(0, tmp_path).entries == 1
    assert (entry.read_bytes("a.bin"), entry.read_text("b.txt")) == whole


@pytest.mark.compile
def test_a_compile_racing_another_process_pruning_the_cache_never_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sassview

    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path))
    source = ROOT / "tests/corpus/sources/vecadd.cu"

    def facts() -> list[tuple[str, int, int]]:
        program = sassview.compile(path=source, arch="sm_80")
        return [(k.name, k.resources.registers, len(k.instructions)) for k in program.kernels]

    def other_process_prunes() -> None:
        done = subprocess.run(
            [sys.executable, "-m", "sassview", "cache", "prune", "--max-mb", "0"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    expected = facts()  # fills the cache: a compile entry and a disassembly entry
    counter = PruneAtOpen(tmp_path, -1, lambda: None)
    with monkeypatch.context() as m:
        counter.install(m)
        assert facts() == expected
    assert counter.opens >= 2
    for at in range(counter.opens):
        facts()  # whatever the last race removed is back
        race = PruneAtOpen(tmp_path, at, other_process_prunes)
        with monkeypatch.context() as m:
            race.install(m)
            assert facts() == expected
        assert race.fired


KILLED_AT_UNLINK = """
import os, sys
at, seen, real = int(sys.argv[1]), [0], os.unlink
def unlink(*args, **kwargs):
    if seen[0] == at:
        os._exit(9)  # killed here: this removal and every later one never happen
    seen[0] += 1
    return real(*args, **kwargs)
os.unlink = unlink
sys.argv = ["sassview", "cache", "prune", "--max-mb", "0"]
from sassview.views.cli import main
main()
"""


def test_a_pruner_killed_at_any_removal_leaves_nothing_to_trip_on(tmp_path: Path) -> None:
    names = ["a.bin", "b.bin", "c.txt", "d.txt"]
    entries, files_each = 3, len(names) + 1  # and the manifest
    for at in range(entries * files_each):  # every removal the pruner makes, in turn
        root = tmp_path / str(at)
        store = cache.Store("t", root)
        keys = [cache.make_key({"n": n}) for n in range(entries)]
        for key in keys:
            store.put(key, {name: name.encode() * 1000 for name in names})
        env = {**os.environ, "SASSVIEW_CACHE_DIR": str(root)}
        killed = subprocess.run([sys.executable, "-c", KILLED_AT_UNLINK, str(at)], env=env)
        assert killed.returncode == 9
        for key in keys:  # a reader finds each entry whole, or not at all
            entry = store.get(key)
            assert entry is None or all(entry.read_bytes(n) == n.encode() * 1000 for n in names)
        # The next prune takes whatever the killed one left: no file but the marker remains.
        # In this process (what `cache prune` calls; exit 0 is neither refused nor failed): a
        # second child per kill point would double the test's cost and prove nothing more.
        done = cache.prune(0, root)
        assert not done.refused and not done.failed, done
        left = [p for p in root.rglob("*") if not p.is_dir() and p.name != cache.MARKER]
        assert left == [], at
