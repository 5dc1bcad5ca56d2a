"""The toolchain store: add from a directory of wheels (pip, offline), list, verify, remove, and
a torn or tampered toolchain refused. The wheels are tiny fakes built here with a RECORD, so no
test downloads (a real release's compile: test_toolchain_release.py)."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from sassview.errors import ToolchainError
from sassview.toolchain import fetch, store
from sassview.toolchain.wheels import unpack_wheel
from tests.conftest import assert_clean_error, run_sassview

NVRTC_LIB = "nvidia/cuda_nvrtc/lib/libnvrtc.so.12"


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(
    folder: Path,
    name: str,
    version: str,
    files: dict[str, bytes],
    *,
    lie_about: str | None = None,
    extra_member: tuple[str, bytes] | None = None,
) -> Path:
    """A wheel as pip and wheels.py read one: files, METADATA, and a RECORD of them
    (`lie_about`: that file's RECORD hash is wrong; `extra_member`: a file RECORD omits)."""
    dist = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    wheel_text = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    members = {**files, f"{dist}/METADATA": metadata, f"{dist}/WHEEL": wheel_text}
    lines = [f"{n},{_hash(b'lie' if n == lie_about else d)},{len(d)}" for n, d in members.items()]
    members[f"{dist}/RECORD"] = ("\n".join([*lines, f"{dist}/RECORD,,"]) + "\n").encode()
    if extra_member:
        members[extra_member[0]] = extra_member[1]
    path = folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for n, d in members.items():
            info = zipfile.ZipInfo(n)
            info.external_attr = (0o100755 if "/bin/" in n else 0o100644) << 16
            zf.writestr(info, d)
    return path


def release_wheels(folder: Path, release: str = "12.9") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    make_wheel(folder, "nvidia-cuda-nvrtc-cu12", f"{release}.86", {
        NVRTC_LIB: b"\x7fELF fake nvrtc",
        f"nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.{release}": b"\x7fELF fake builtins",
        "nvidia/__init__.py": b"",
    })  # fmt: skip
    make_wheel(folder, "nvidia-cuda-runtime-cu12", f"{release}.79", {
        "nvidia/cuda_runtime/include/cuda_runtime.h": b"/* runtime */\n",
        "nvidia/__init__.py": b"",
    })  # fmt: skip
    make_wheel(folder, "nvidia-cuda-nvcc-cu12", f"{release}.86", {
        "nvidia/cuda_nvcc/bin/ptxas": b"#!/bin/false\n",
    })  # fmt: skip
    return folder


@pytest.fixture
def store_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "toolchains"
    monkeypatch.setenv(store.STORE_ENV, str(root))
    return root


@pytest.fixture(scope="module")
def added_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding 12.9 from the fake wheels (pip runs once for the module)."""
    base = tmp_path_factory.mktemp("added")
    wheels = release_wheels(base / "wheels")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(store.STORE_ENV, str(base / "toolchains"))
        fetch.add("12.9", wheels=wheels)
    return base / "toolchains"


@pytest.fixture
def added(added_once: Path, store_dir: Path) -> store.Toolchain:
    """A private copy of the added store, free to damage."""
    shutil.copytree(added_once, store_dir)
    return store.find("12.9")


def test_add_unpacks_every_wheel_and_lists_every_file_with_its_hash(
    added: store.Toolchain,
) -> None:
    names = dict(added.packages)
    assert names == {
        "nvidia-cuda-nvrtc-cu12": "12.9.86",
        "nvidia-cuda-runtime-cu12": "12.9.79",
        "nvidia-cuda-nvcc-cu12": "12.9.86",
    }
    assert added.nvrtc == added.tree / NVRTC_LIB
    assert added.nvrtc_builtins is not None and added.nvrtc_builtins.name.endswith("12.9")
    assert added.executable("ptxas") is not None
    assert added.include_dirs == (added.tree / "nvidia/cuda_runtime/include",)
    digest, size = added.files[NVRTC_LIB]
    assert digest == hashlib.sha256(b"\x7fELF fake nvrtc").hexdigest() and size == 15
    assert added.label == "CUDA 12.9 (nvrtc 12.9.86, stored)"
    store.verify(added)  # whole


def test_the_release_s_missing_packages_are_skipped_not_fatal(
    store_dir: Path, tmp_path: Path
) -> None:
    got = fetch.add("12.9", wheels=release_wheels(tmp_path / "w"))
    assert got.fresh
    assert "nvidia-nvjitlink-cu12" in got.skipped and "nvidia-cuda-nvdisasm-cu12" in got.skipped
    again = fetch.add("12.9", wheels=tmp_path / "w")
    assert not again.fresh and again.toolchain.digest == got.toolchain.digest


def test_names_before_13_carry_the_cuda_suffix() -> None:
    assert fetch.package_names("12.9")[0] == "nvidia-cuda-nvrtc-cu12"
    assert fetch.package_names("13.2")[0] == "nvidia-cuda-nvrtc"


def test_a_release_without_an_nvrtc_wheel_is_refused(store_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ToolchainError, match="has no NVRTC wheel"):
        fetch.add("12.9", wheels=release_wheels(tmp_path / "w", "12.8"))
    assert store.stored_releases() == []
    assert [p.name for p in store_dir.iterdir()] == [".lock"]  # no staging left behind


def test_a_file_that_does_not_match_its_record_is_refused(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "nvidia-cuda-nvrtc-cu12", "12.9.86", {NVRTC_LIB: b"x"},
                       lie_about=NVRTC_LIB)  # fmt: skip
    with pytest.raises(ToolchainError, match="does not match its RECORD hash"):
        unpack_wheel(wheel, tmp_path / "out")


def test_a_file_the_record_omits_is_refused(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "nvidia-cuda-nvrtc-cu12", "12.9.86", {NVRTC_LIB: b"x"},
                       extra_member=("nvidia/extra.so", b"y"))  # fmt: skip
    with pytest.raises(ToolchainError, match="not in its RECORD"):
        unpack_wheel(wheel, tmp_path / "out")


def test_a_file_outside_the_tree_is_refused(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "nvidia-cuda-nvrtc-cu12", "12.9.86", {"../evil": b"x"})
    with pytest.raises(ToolchainError, match="outside its own tree"):
        unpack_wheel(wheel, tmp_path / "out")
    assert not (tmp_path / "evil").exists()


def test_a_tampered_wheel_leaves_the_store_as_it_was(store_dir: Path, tmp_path: Path) -> None:
    wheels = release_wheels(tmp_path / "w")
    make_wheel(wheels, "nvidia-cuda-nvcc-cu12", "12.9.86", {"nvidia/cuda_nvcc/bin/ptxas": b"x"},
               lie_about="nvidia/cuda_nvcc/bin/ptxas")  # fmt: skip
    with pytest.raises(ToolchainError, match="RECORD hash"):
        fetch.add("12.9", wheels=wheels)
    assert [p.name for p in store_dir.iterdir()] == [".lock"]


def test_a_torn_toolchain_is_refused_and_can_be_removed(added: store.Toolchain) -> None:
    (added.path / store.MANIFEST).unlink()
    with pytest.raises(ToolchainError, match="torn") as exc:
        store.find("12.9")
    assert "sassview toolchain remove 12.9" in exc.value.hint
    store.remove("12.9")
    assert store.stored_releases() == []


def test_a_library_changed_in_size_is_refused_on_every_use(added: store.Toolchain) -> None:
    (added.tree / NVRTC_LIB).write_bytes(b"\x7fELF something else entirely")
    with pytest.raises(ToolchainError, match="changed after it was added"):
        store.find("12.9")


def test_a_library_changed_in_place_is_refused_before_it_is_loaded(
    added: store.Toolchain,
) -> None:
    (added.tree / NVRTC_LIB).write_bytes(b"\x7fELF fake NVRTC")  # same size
    found = store.find("12.9")  # sizes only: the hash is for the compile
    with pytest.raises(ToolchainError, match=f"{NVRTC_LIB} is not the file that was added"):
        found.check_files([found.tree / NVRTC_LIB], hashes=True)
    with pytest.raises(ToolchainError, match="not the file"):
        store.verify(found)


def test_a_file_slipped_into_the_tree_fails_verify(added: store.Toolchain) -> None:
    (added.tree / "nvidia/cuda_nvrtc/lib/libextra.so").write_bytes(b"")
    with pytest.raises(ToolchainError, match="was not in its wheels"):
        store.verify(added)


def test_remove_leaves_a_directory_it_did_not_write_alone(store_dir: Path) -> None:
    (store_dir / "12.8").mkdir(parents=True)
    (store_dir / "12.8" / "mine.txt").write_text("keep")
    with pytest.raises(ToolchainError, match="not a toolchain sassview added"):
        store.remove("12.8")
    assert (store_dir / "12.8" / "mine.txt").read_text() == "keep"


def test_releases_are_major_dot_minor() -> None:
    assert store.parse_release(" 12.9 ") == "12.9"
    for bad in ("12", "12.9.1", "../12.9", "latest"):
        with pytest.raises(Exception, match="is not a CUDA release"):
            store.parse_release(bad)


def test_the_cli_lists_adds_and_refuses_what_is_broken(
    added: store.Toolchain, store_dir: Path
) -> None:
    env = {store.STORE_ENV: str(store_dir)}
    listed = run_sassview("toolchain", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "12.9       CUDA 12.9 (nvrtc 12.9.86, stored): nvrtc, ptxas" in listed.stdout
    assert listed.stdout.startswith("default    CUDA ")
    (added.path / store.MANIFEST).unlink()
    listed = run_sassview("toolchain", "list", env=env)
    assert "12.9       BROKEN: toolchain 12.9 is torn" in listed.stdout
    done = run_sassview("check", "examples/vecadd.cu", "--toolchain", "12.9", env=env)
    assert_clean_error(done, "toolchain 12.9 is torn", "sassview toolchain add 12.9")
    done = run_sassview("check", "examples/vecadd.cu", "--toolchain", "11.0", env=env)
    assert_clean_error(done, "toolchain 11.0 has not been added", "sassview toolchain add 11.0")
    done = run_sassview("toolchain", "remove", "12.9", env=env)
    assert done.returncode == 0 and "removed toolchain 12.9" in done.stdout


def test_two_adds_at_once_fetch_it_once(store_dir: Path, tmp_path: Path) -> None:
    """The store's lock: the second add waits, then finds the first one's toolchain whole."""
    wheels = release_wheels(tmp_path / "w")
    env = {**os.environ, store.STORE_ENV: str(store_dir)}
    argv = [sys.executable, "-m", "sassview", "toolchain", "add", "12.9", "--wheels", str(wheels)]
    procs = [
        subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    said = sorted(out.split(":")[0] for out, _ in outs)
    assert said == ["added toolchain 12.9", "toolchain 12.9 is already added (verified)"]
    assert store.stored_releases() == ["12.9"]
    assert sorted(p.name for p in store_dir.iterdir()) == [".lock", "12.9"]


def test_doctor_lists_the_stored_releases_and_triton_s_own_ptxas(
    added: store.Toolchain, store_dir: Path
) -> None:
    done = run_sassview("doctor", env={store.STORE_ENV: str(store_dir)})
    assert "stored   12.9       CUDA 12.9 (nvrtc 12.9.86, stored): nvrtc, ptxas" in done.stdout
    try:
        import triton  # noqa: F401
    except ImportError:
        return
    assert "Triton's ptxas below sm_90: " in done.stdout
    assert "Triton's ptxas from sm_90: " in done.stdout
