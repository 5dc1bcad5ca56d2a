"""The content-addressed cache: whole entries or none, damaged entries rebuilt."""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import subprocess
import sys
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
    store.put(cache.make_key({"other": 1}), {"x.bin": b"1"})  # the writer had marked the root
    partial = store.root / key[:2] / ".tmp-dead"
    partial.mkdir(parents=True)
    (partial / "x.bin").write_bytes(b"half")
    assert store.get(key) is None
    assert cache.info(tmp_path).entries == 1  # the other one; the partial one is garbage
    assert len(cache.info(tmp_path).garbage) == 1
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
    assert json.loads(manifests[0].read_text())["files"]["data.bin"]["size"] == 100_000
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


# --- The real CLI on a cache root that holds more than sassview's entries ---------------------

ROOT = Path(__file__).parents[1]
VECADD = ROOT / "examples" / "vecadd.cu"


def sassview(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sassview", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "SASSVIEW_CACHE_DIR": str(root), **env},
        timeout=300,
    )


def _users_things(root: Path) -> dict[Path, bytes]:
    """What a user keeps in a directory they pointed SASSVIEW_CACHE_DIR at, sassview-like
    names included: a manifest.json at the root and in a project, a v2/ of their own."""
    things = {
        root / "manifest.json": b'{"files": {}}',
        root / "kernel.cu": b"__global__ void k() {}\n",
        root / "project" / "manifest.json": b'{"key": "x", "files": {}}',
        root / "project" / "notes.txt": b"mine\n",
        root / "v2" / "cuda" / "ab" / "notes.txt": b"also mine\n",
        root / "v2" / "cuda" / ("ab" + "0" * 62) / "manifest.json": b'{"key": "other"}',
        root / "v2" / "cuda" / ("ab" + "0" * 62) / "data.bin": b"not sassview's entry",
    }
    # A link in sassview's layout to a directory elsewhere that looks like an entry inside.
    key = "cd" + "1" * 62
    elsewhere = root.parent / f"{root.name}-elsewhere"
    things[elsewhere / "data.bin"] = b"abc"
    things[elsewhere / "manifest.json"] = json.dumps(
        {"key": key, "files": {"data.bin": 3}}
    ).encode()
    for path, data in things.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "v2" / "cuda" / key[:2]).mkdir(parents=True)
    (root / "v2" / "cuda" / key[:2] / key).symlink_to(elsewhere)
    return things


def _sassviews_entries(root: Path, n: int, size: int = 400_000) -> cache.Store:
    store = cache.Store("t", root)
    for i in range(n):
        assert store.put(cache.make_key({"i": i}), {"x.bin": bytes([i]) * size}) is not None
    return store


def test_clear_removes_only_sassviews_entries_and_names_the_rest(tmp_path: Path) -> None:
    _sassviews_entries(tmp_path, 3)  # first: a directory already holding files is not marked
    things = _users_things(tmp_path)
    done = sassview(tmp_path, "cache", "clear")
    assert done.returncode == 0, done.stderr
    assert "removed 3 entries" in done.stdout
    assert "left alone" in done.stdout and "kernel.cu" in done.stdout
    assert all(p.read_bytes() == data for p, data in things.items())
    assert cache.info(tmp_path).entries == 0


@pytest.mark.parametrize("how", ["prune", "limit"])
def test_pruning_never_removes_the_root_or_a_users_directory(tmp_path: Path, how: str) -> None:
    _sassviews_entries(tmp_path, 3)
    things = _users_things(tmp_path)
    if how == "prune":
        done = sassview(tmp_path, "cache", "prune", "--max-mb", "0")
    else:  # the enforcement after any command but `cache ...` (info only looks)
        done = sassview(tmp_path, "--help", SASSVIEW_CACHE_MAX_MB="0.000001")
    assert done.returncode == 0, done.stderr
    assert all(p.read_bytes() == data for p, data in things.items())
    assert cache.info(tmp_path).entries == 0


def test_a_root_without_sassviews_marker_is_left_alone(tmp_path: Path) -> None:
    # A directory in today's layout that sassview never marked (copied, or a user's): refused.
    _sassviews_entries(tmp_path, 2)
    (tmp_path / cache.MARKER).unlink()
    for args in (["cache", "clear"], ["cache", "prune", "--max-mb", "0"]):
        done = sassview(tmp_path, *args)
        assert done.returncode == 2 and "no sassview marker" in done.stderr
        assert "Traceback" not in done.stderr
    assert cache.info(tmp_path).entries == 2
    # With nothing there, there is nothing to refuse: a new or empty directory is fine.
    (tmp_path / "empty").mkdir()
    for root in (tmp_path / "empty", tmp_path / "missing"):
        for args in (["cache", "clear"], ["cache", "prune", "--max-mb", "0"]):
            done = sassview(root, *args)
            assert done.returncode == 0 and "removed 0 entries" in done.stdout, done.stderr


READ_ONLY = """
import builtins, errno, io, os, sys
root = sys.argv[1]
def under_root(args):
    return any(os.fspath(a).startswith(root) for a in args if isinstance(a, (str, os.PathLike)))
def erofs(args):
    return OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(args[0]))
def refuse(real):
    def call(*args, **kw):
        if under_root(args):
            raise erofs(args)
        return real(*args, **kw)
    return call
for name in ("rename", "replace", "unlink", "rmdir", "remove", "mkdir", "utime"):
    setattr(os, name, refuse(getattr(os, name)))
WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT
real_os_open = os.open
def os_open(path, flags, *args, **kw):
    if flags & WRITES and under_root([path]):
        raise erofs([path])
    return real_os_open(path, flags, *args, **kw)
os.open = os_open
real_open = io.open
def open_(file, mode="r", *args, **kw):
    if any(c in mode for c in "wax+") and under_root([file]):
        raise erofs([file])
    return real_open(file, mode, *args, **kw)
io.open = builtins.open = open_
sys.argv = ["sassview", *sys.argv[2:]]
from sassview.views.cli import main
main()
"""


def read_only(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI on a cache root that refuses every write, as a read-only mount does."""
    return subprocess.run(
        [sys.executable, "-c", READ_ONLY, str(root), *args],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "SASSVIEW_CACHE_DIR": str(root)},
    )  # fmt: skip


@pytest.mark.parametrize("args", [["cache", "clear"], ["cache", "prune", "--max-mb", "0"]])
def test_a_read_only_cache_says_nothing_was_removed(tmp_path: Path, args: list[str]) -> None:
    # Root ignores permission bits, so the read-only disk is simulated: every call that would
    # change something under the root fails with EROFS, as on a read-only mount.
    _sassviews_entries(tmp_path, 2)
    done = read_only(tmp_path, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "removed 0 entries" in done.stdout and "entries now: 2" in done.stdout
    assert "could not remove 2" in done.stderr and "Read-only file system" in done.stderr
    assert "Traceback" not in done.stderr
    assert cache.info(tmp_path).entries == 2


# --- Wrong answers never served: damaged entries are rebuilt ---------------------------------


def _entry_file(root: Path, kind: str, name: str) -> Path:
    (found,) = (root / f"v{cache.FORMAT_VERSION}" / kind).glob(f"*/*/{name}")
    return found


def _same_size_edit(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert len(old) == len(new) and old in data
    path.write_bytes(data.replace(old, new, 1))


@pytest.mark.compile
@pytest.mark.parametrize(
    ("kind", "name", "old", "new"),
    [
        # a flipped opcode (vecadd has no spill to mark: its listing is the text form alone)
        ("nvdisasm", "sass.txt", b"FADD ", b"FMUL "),
        ("cuda", "compile.log", b"0 bytes spill stores", b"8 bytes spill stores"),
        ("cuda", "compile.log", b"ptxas info", b"ptxas \xffnfo"),  # not UTF-8 any more
    ],
)
def test_an_edited_entry_of_the_same_size_is_rebuilt_not_served(
    tmp_path: Path, kind: str, name: str, old: bytes, new: bytes
) -> None:
    first = sassview(tmp_path, "check", str(VECADD), "--json")
    assert first.returncode == 0, first.stderr
    _same_size_edit(_entry_file(tmp_path, kind, name), old, new)
    again = sassview(tmp_path, "check", str(VECADD), "--json")
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert again.stdout == first.stdout
    assert old in _entry_file(tmp_path, kind, name).read_bytes()  # rebuilt in place


def test_text_that_is_not_utf8_is_rebuilt_even_when_its_digest_matches(tmp_path: Path) -> None:
    store = cache.Store("t", tmp_path)
    key = cache.make_key({"a": 6})
    entry = store.put(key, {"log.txt": "ptxas info"})
    assert entry is not None
    bad = b"ptxas \xffnfo"
    (entry.path / "log.txt").write_bytes(bad)
    manifest = json.loads((entry.path / "manifest.json").read_text())
    manifest["files"]["log.txt"]["sha256"] = cache.digest(bad)
    (entry.path / "manifest.json").write_text(json.dumps(manifest))
    assert store.get(key) is None


def test_a_malformed_manifest_is_a_miss_never_a_raise(tmp_path: Path) -> None:
    # JSON nested 100,000 deep: the parser's RecursionError is no ValueError.
    manifest = b"[" * 100_000
    store = cache.Store("t", tmp_path)
    key = cache.make_key({"a": 7})
    entry = store.put(key, {"x.bin": b"1"})
    assert entry is not None
    (entry.path / "manifest.json").write_bytes(manifest)
    assert store.get(key) is None
    assert store.put(key, {"x.bin": b"1"}) is not None and store.get(key) is not None


# --- An unusable cache directory: caching off, never a traceback -----------------------------


@pytest.mark.compile
@pytest.mark.parametrize("no_cache", ["1", ""])
def test_a_cache_path_that_is_a_file_turns_caching_off(tmp_path: Path, no_cache: str) -> None:
    root = tmp_path / "cachefile"
    root.write_text("not a directory")
    done = sassview(root, "check", str(VECADD), SASSVIEW_NO_CACHE=no_cache)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "add_f4" in done.stdout
    assert root.read_text() == "not a directory"
    info = sassview(root, "cache", "info")
    assert info.returncode == 0 and "not a directory" in info.stdout
    doctor = sassview(root, "doctor")
    assert f"cache    {root}  (off: not a directory)" in doctor.stdout


def _listing(root: Path) -> list[tuple[str, float]]:
    return sorted((str(p), p.stat().st_mtime) for p in root.rglob("*"))


@pytest.mark.compile
def test_a_read_only_cache_compiles_uncached_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    before = _listing(tmp_path)
    done = read_only(tmp_path, "check", str(VECADD))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "add_f4" in done.stdout
    assert _listing(tmp_path) == before  # NVRTC's headers went to a private temporary dir


@pytest.mark.compile
def test_no_cache_writes_nothing_under_the_cache_root(tmp_path: Path) -> None:
    done = sassview(tmp_path / "c", "check", str(VECADD), SASSVIEW_NO_CACHE="1")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "c").exists()  # NVRTC's headers went to a private temporary dir


# --- Size limits: inf means none, nan and negatives are errors -------------------------------


@pytest.mark.parametrize("limit", ["inf", "1e400", "Infinity"])
def test_an_infinite_size_limit_keeps_everything(tmp_path: Path, limit: str) -> None:
    _sassviews_entries(tmp_path, 2)
    for args, env in ((["cache", "info"], {"SASSVIEW_CACHE_MAX_MB": limit}),
                      (["cache", "prune", "--max-mb", limit], {})):  # fmt: skip
        done = sassview(tmp_path, *args, **env)
        assert done.returncode == 0 and done.stderr == "", done.stderr
    assert cache.info(tmp_path).entries == 2


@pytest.mark.parametrize("limit", ["nan", "-1", "lots"])
def test_a_size_limit_that_is_not_a_size_is_an_error(tmp_path: Path, limit: str) -> None:
    _sassviews_entries(tmp_path, 2)
    done = sassview(tmp_path, "cache", "prune", "--max-mb", limit)
    assert done.returncode == 2 and done.stderr.startswith("error: --max-mb="), done.stderr
    warned = sassview(tmp_path, "cache", "info", SASSVIEW_CACHE_MAX_MB=limit)
    assert warned.returncode == 0 and "warning: SASSVIEW_CACHE_MAX_MB=" in warned.stderr
    assert "Traceback" not in done.stderr + warned.stderr
    assert cache.info(tmp_path).entries == 2


# --- A cache written by sassview before format 2 ----------------------------------------------


def _format1_entry(root: Path, kind: str, key: str, files: dict[str, bytes]) -> Path:
    """An entry as sassview wrote it before format 2: the manifest listed sizes only."""
    path = root / "v1" / kind / key[:2] / key
    path.mkdir(parents=True)
    for name, data in files.items():
        (path / name).write_bytes(data)
    sizes = {n: len(d) for n, d in files.items()}
    (path / "manifest.json").write_text(json.dumps({"key": key, "files": sizes}))
    return path


def test_the_platform_cache_of_an_older_sassview_is_recognised_as_its_own(tmp_path: Path) -> None:
    # The platform directory named for sassview is its own by name: no marker needed there,
    # and its old root-level scratch directories (nvrtc-headers/) are recognised too.
    env = {k: v for k, v in os.environ.items() if k != "SASSVIEW_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    root = tmp_path / "sassview"
    old = _format1_entry(root, "cuda", cache.make_key({"old": 1}), {"kernel.ptx": b".version"})
    (root / "nvrtc-headers").mkdir()
    (root / "nvrtc-headers" / "cuda_fp16.h").write_text("#pragma once\n")
    run = functools.partial(subprocess.run, capture_output=True, text=True, env=env, timeout=300)
    info = run([sys.executable, "-m", "sassview", "cache", "info"])
    assert info.stdout.startswith(f"{root}: 1 entries") and "nvrtc-headers" in info.stdout
    # The size limit evicts format-1 entries like any other, and leaves the scratch alone.
    pruned = run([sys.executable, "-m", "sassview", "cache", "prune", "--max-mb", "0"])
    assert "removed 1 entries" in pruned.stdout and "entries now: 0" in pruned.stdout
    assert not old.exists() and (root / "nvrtc-headers" / "cuda_fp16.h").exists()
    done = run([sys.executable, "-m", "sassview", "cache", "clear"])
    assert done.returncode == 0, done.stderr
    assert "removed 0 entries" in done.stdout and "and scratch nvrtc-headers" in done.stdout
    assert not (root / "nvrtc-headers").exists()
    assert root.is_dir()  # emptied, not removed: the directory holding it even less


def test_get_or_build_builds_once_and_says_so_in_one_wording(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The helper every compile cache goes through: a miss builds, says how long, keeps; a
    hit reads and says so; its halves say the same (nvdisasm's: no arch, its own verb)."""
    import logging

    from sassview.cache.get_or_build import Said, get_or_build, keep, lookup

    store = cache.Store("builds", root=tmp_path)
    built: list[int] = []

    def build() -> dict[str, bytes | str]:
        built.append(1)
        return {"out.bin": b"\x00\x01", "log.txt": "ok"}

    said = Said(logging.getLogger("sassview"), "tool", "k.cu", "sm_90a")
    with caplog.at_level(logging.INFO, logger="sassview"):
        key = cache.make_key({"t": 1})
        first = get_or_build(store, key, ("out.bin",), build, said=said)
        second = get_or_build(store, key, ("out.bin",), build, said=said)
        assert lookup(store, cache.make_key({"t": 2}), ("out.bin",)) is None
        plain = Said(
            logging.getLogger("sassview"), "nvdisasm", "a 2-byte cubin", verb="disassembled"
        )
        keep(store, cache.make_key({"t": 3}), {"x": "y"}, said=plain, started=0.0, how=" (text)")
    assert built == [1] and first["out.bin"] == second["out.bin"] == b"\x00\x01"
    said_lines = [r.getMessage() for r in caplog.records]
    assert said_lines[0].startswith("tool: compiled k.cu for sm_90a in ")
    assert said_lines[1] == "tool: cache hit for k.cu (sm_90a)"
    assert said_lines[2].startswith("nvdisasm: disassembled a 2-byte cubin in ")
    assert said_lines[2].endswith(" s (text)")
    assert lookup(store, cache.make_key({"t": 3}), ("x",)) == {"x": b"y"}
    assert get_or_build(store, None, ("out.bin",), build)["log.txt"] == "ok"  # key None: built
    assert built == [1, 1]
