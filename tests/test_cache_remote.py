"""The shared remote cache ($SASSVIEW_CACHE_URL): read through on a local miss, written back
after a build, verified before it is served, and a broken remote degrades to local once."""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem
from fsspec.spec import AbstractFileSystem

from sassview import cache
from sassview.cache import remote
from tests.conftest import run_sassview

KIND = "cuda"  # a kind that costs a compile: the only ones the remote holds
# A real cubin: the store checks a cubin's ELF frame on every read (sassview/cache/shape.py).
CUBIN = Path(__file__).parent / "corpus" / "vecadd" / "sm_90a" / "kernel.cubin"
FILES = {"kernel.cubin": CUBIN.read_bytes(), "kernel.ptx": "// ptx\n.version 9.0\n"}
_names = itertools.count()


def _entry_dir(url: str, key: str) -> str:
    return f"{url}/v{cache.FORMAT_VERSION}/{KIND}/{key[:2]}/{key}"


@pytest.fixture
def memory_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh memory:// remote for this test (fsspec's memory filesystem is process-wide)."""
    url = f"memory://sassview-test-{next(_names)}"
    monkeypatch.setenv(remote.URL_ENV, url)
    monkeypatch.delenv("SASSVIEW_NO_CACHE", raising=False)
    yield url
    fs, root = fsspec.url_to_fs(url)
    if fs.exists(root):
        fs.rm(root, recursive=True)


def _key(n: int) -> str:
    return cache.make_key({"remote-test": n})


def test_a_local_miss_is_served_from_the_remote_and_kept_locally(
    tmp_path: Path, memory_url: str
) -> None:
    key = _key(1)
    cache.Store(KIND, tmp_path / "runner-a").put(key, FILES, {"arch": "sm_90a"})
    other = cache.Store(KIND, tmp_path / "runner-b")  # another runner: an empty local cache
    entry = other.get(key)
    assert entry is not None
    assert entry.read_bytes("kernel.cubin") == FILES["kernel.cubin"]
    assert entry.read_text("kernel.ptx") == FILES["kernel.ptx"]
    assert entry.meta() == {"arch": "sm_90a"}
    # Copied into runner-b's own store: served from there once the remote is gone.
    fs, root = fsspec.url_to_fs(memory_url)
    fs.rm(root, recursive=True)
    again = other.get(key)
    assert again is not None and again.read_bytes("kernel.cubin") == FILES["kernel.cubin"]
    assert (tmp_path / "runner-b" / f"v{cache.FORMAT_VERSION}" / KIND / key[:2] / key).is_dir()


def test_what_is_not_sassviews_or_is_turned_off_is_not_served(
    tmp_path: Path, memory_url: str
) -> None:
    key, foreign = _key(1), _key(11)
    cache.Store(KIND, tmp_path / "a").put(key, FILES)
    fs = MemoryFileSystem()
    fs.pipe_file(f"{_entry_dir(memory_url, foreign)}/manifest.json", b'{"key": "someone else"}')
    store = cache.Store(KIND, tmp_path / "b")
    assert store.get(foreign) is None
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SASSVIEW_NO_CACHE", "1")
        assert store.get(key) is None  # no cache means no remote either
    assert store.get(key) is not None


def test_a_put_uploads_the_files_and_the_local_manifest(tmp_path: Path, memory_url: str) -> None:
    key = _key(2)
    entry = cache.Store(KIND, tmp_path).put(key, FILES)
    assert entry is not None
    fs = MemoryFileSystem()
    where = _entry_dir(memory_url, key)
    assert fs.cat_file(f"{where}/kernel.cubin") == FILES["kernel.cubin"]
    assert fs.cat_file(f"{where}/kernel.ptx") == FILES["kernel.ptx"].encode()
    assert fs.cat_file(f"{where}/manifest.json") == (entry.path / "manifest.json").read_bytes()
    # Remembered tool versions are keyed by this machine's files: not a team's to share.
    cache.Store("tool-version", tmp_path).put(_key(3), {"version": "13.0"})
    uploaded = [path.rsplit("/", 1)[1] for path in fs.find(memory_url)]
    assert sorted(uploaded) == sorted([*FILES, "manifest.json"])


def test_a_truncated_remote_file_is_not_served_and_the_rebuild_replaces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = (tmp_path / "shared").as_uri()  # file://: a shared file system
    monkeypatch.setenv(remote.URL_ENV, url)
    key = _key(4)
    cache.Store(KIND, tmp_path / "a").put(key, FILES)
    cubin = Path(_entry_dir(str(tmp_path / "shared"), key)) / "kernel.cubin"
    cubin.write_bytes(FILES["kernel.cubin"][:100])  # an upload cut short, or a bad disk
    store = cache.Store(KIND, tmp_path / "b")
    assert store.get(key) is None  # not served: the caller builds it
    assert not (store.root / key[:2] / key).exists()
    store.put(key, FILES)  # the rebuild is written back whole
    assert cubin.read_bytes() == FILES["kernel.cubin"]
    served = cache.Store(KIND, tmp_path / "c").get(key)
    assert served is not None and served.read_bytes("kernel.cubin") == FILES["kernel.cubin"]


def test_a_manifest_without_its_files_is_a_miss(tmp_path: Path, memory_url: str) -> None:
    key = _key(5)
    uploaded = cache.Store(KIND, tmp_path / "a").put(key, FILES)
    assert uploaded is not None
    fs = MemoryFileSystem()
    fs.rm(f"{_entry_dir(memory_url, key)}/kernel.cubin")  # a writer that died before the end
    store = cache.Store(KIND, tmp_path / "b")
    assert store.get(key) is None
    assert store.put(key, FILES) is not None
    assert store.get(key) is not None


class _Refusing(AbstractFileSystem):  # type: ignore[misc]
    """A remote that raises on every call (a refused connection), counting the calls."""

    protocol = "sassview-refusing"
    calls = 0

    def __getattribute__(self, name: str) -> Any:
        if name in ("cat_file", "pipe_file", "makedirs", "ls", "exists", "info"):
            type(self).calls += 1
            raise ConnectionRefusedError("connection refused")
        return super().__getattribute__(name)


class _Hanging(AbstractFileSystem):  # type: ignore[misc]
    """A remote whose calls never return (a dead mount), until the test ends."""

    protocol = "sassview-hanging"
    release = threading.Event()

    def cat_file(self, path: str, *args: Any, **kwargs: Any) -> bytes:
        self.release.wait()
        raise FileNotFoundError(path)


class _ReadOnly(MemoryFileSystem):  # type: ignore[misc]
    """Read-only credentials (or an https:// mirror): reads work, every write is refused."""

    protocol = "sassview-read-only"
    writes = 0

    @classmethod
    def _strip_protocol(cls, path: str) -> str:  # the memory filesystem's paths, under our name
        return str(MemoryFileSystem._strip_protocol(path.replace(cls.protocol, "memory", 1)))

    def pipe_file(self, path: str, *args: Any, **kwargs: Any) -> None:
        type(self).writes += 1
        raise PermissionError(f"{path}: access denied")


fsspec.register_implementation(_Refusing.protocol, _Refusing, clobber=True)
fsspec.register_implementation(_ReadOnly.protocol, _ReadOnly, clobber=True)
fsspec.register_implementation(_Hanging.protocol, _Hanging, clobber=True)


def test_a_remote_that_raises_warns_once_and_the_local_cache_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"{_Refusing.protocol}://bucket-{next(_names)}"
    monkeypatch.setenv(remote.URL_ENV, url)
    _Refusing.calls = 0
    store = cache.Store(KIND, tmp_path)
    with caplog.at_level(logging.WARNING, logger="sassview.cache"):
        assert store.get(_key(7)) is None
        assert store.put(_key(7), FILES) is not None
        entry = store.get(_key(7))
        assert store.get(_key(8)) is None
        store.put(_key(8), FILES)
    assert entry is not None and entry.read_bytes("kernel.cubin") == FILES["kernel.cubin"]
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and url in warnings[0].getMessage()
    assert "ConnectionRefusedError" in warnings[0].getMessage()
    assert warnings[0].exc_info is None  # a message, not a traceback
    assert _Refusing.calls == 1  # not retried for the rest of the run
    shown = remote.info()
    assert shown is not None and not shown.answered and "connection refused" in shown.problem


def test_a_remote_that_refuses_writes_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    bucket = f"bucket-{next(_names)}"
    monkeypatch.setenv(remote.URL_ENV, f"{_ReadOnly.protocol}://{bucket}")
    published = cache.Store(KIND, tmp_path / "publisher")
    with pytest.MonkeyPatch.context() as patch:  # what a trusted runner uploaded earlier
        patch.setenv(remote.URL_ENV, f"memory://{bucket}")
        published.put(_key(12), FILES)
    _ReadOnly.writes = 0
    store = cache.Store(KIND, tmp_path / "reader")
    with caplog.at_level(logging.INFO, logger="sassview.cache"):
        store.put(_key(13), FILES)  # built here: the upload is refused
        store.put(_key(14), FILES)  # not tried again
        served = store.get(_key(12))
    assert served is not None and served.read_bytes("kernel.cubin") == FILES["kernel.cubin"]
    assert _ReadOnly.writes == 1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_remote_that_does_not_answer_is_given_up_after_its_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"{_Hanging.protocol}://bucket-{next(_names)}"
    monkeypatch.setenv(remote.URL_ENV, url)
    monkeypatch.setenv(remote.TIMEOUT_ENV, "0.2")
    store = cache.Store(KIND, tmp_path)
    try:
        with caplog.at_level(logging.WARNING, logger="sassview.cache"):
            assert store.get(_key(9)) is None
            assert store.put(_key(9), FILES) is not None
            assert store.get(_key(9)) is not None
    finally:
        _Hanging.release.set()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "no answer in 0.2 s" in warnings[0]


def test_cache_info_shows_the_remote_and_whether_it_answered(tmp_path: Path) -> None:
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "local")}
    shared = (tmp_path / "shared").as_uri()
    done = run_sassview("cache", "info", env={**env, remote.URL_ENV: shared})
    assert done.returncode == 0, done.stderr
    assert f"remote {shared}: answered" in done.stdout
    done = run_sassview("cache", "info", env={**env, remote.URL_ENV: "nosuchproto://x"})
    assert done.returncode == 0, done.stderr
    assert "remote nosuchproto://x: did not answer (ValueError: Protocol not known" in done.stdout
    assert "Traceback" not in done.stderr
    done = run_sassview("cache", "info", env=env)
    assert "remote" not in done.stdout
