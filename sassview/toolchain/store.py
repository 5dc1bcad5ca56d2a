"""Other CUDA releases side by side: sassview's own store of unpacked NVIDIA wheels.

`sassview toolchain add 12.9` (fetch.py) downloads a release's wheels with pip and unpacks them
here, one directory per release, never into the user's environment. Where: $SASSVIEW_TOOLCHAINS_DIR,
else `toolchains/` in the platform's user data directory (platformdirs).

A release directory holds a marker (written first: the proof it is sassview's to delete), the
unpacked files under `tree/`, and `manifest.json` (written last, then the staging directory is
renamed into place): the packages and the sha256 and size of every file, from the wheels'
RECORDs. So a directory without a manifest is torn (an add that died, a partial copy) and is
refused; `verify` re-hashes every file and names the first that differs (tampered); a compile
re-hashes the libraries it loads before loading them (`Toolchain.check_files`), and every use
checks the sizes of the executables and libraries. The manifest's digest is the toolchain's
identity in cache keys: a re-added release with other files keys other entries.

How it can be wrong: a file changed in place to the same size is caught only by a re-hash
(a compile's, or `toolchain verify`); a cached result made before the change is still served,
but that result came from the verified file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sassview.errors import InputError, ToolchainError

STORE_ENV = "SASSVIEW_TOOLCHAINS_DIR"
MARKER = "SASSVIEW-TOOLCHAIN"
MANIFEST = "manifest.json"
FORMAT = 1
DEFAULT = "default"  # the name of the release installed with sassview (its pip wheels)
STAGING_PREFIX = ".adding-"
_RELEASE = re.compile(r"(\d{1,3})\.(\d{1,3})")


def store_root() -> Path:
    """Where the toolchains live (not created here)."""
    env = os.environ.get(STORE_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("sassview")) / "toolchains"


def parse_release(text: str) -> str:
    """'12.9' as given; anything else is an input error."""
    match = _RELEASE.fullmatch(text.strip())
    if match is None:
        raise InputError(
            f"toolchain {text!r} is not a CUDA release",
            "name it MAJOR.MINOR, e.g. 12.9, or `default` for the one installed with sassview",
        )
    return f"{int(match.group(1))}.{int(match.group(2))}"


@dataclass(frozen=True, slots=True)
class Toolchain:
    """One stored release, as its manifest describes it."""

    release: str
    path: Path
    packages: tuple[tuple[str, str], ...]  # (pip name, exact version)
    files: dict[str, tuple[str, int]]  # tree-relative path -> (sha256 hex, size)
    digest: str  # sha256 of the manifest: the identity in cache keys

    @property
    def tree(self) -> Path:
        return self.path / "tree"

    @property
    def key(self) -> str:
        return f"{self.release}:{self.digest[:20]}"

    def version_of(self, package_stem: str) -> str | None:
        """The exact version of the package named `package_stem` (suffix -cuNN ignored)."""
        for name, version in self.packages:
            if re.sub(r"-cu\d+$", "", name) == package_stem:
                return version
        return None

    @property
    def label(self) -> str:
        """What a header shows: 'CUDA 12.9 (nvrtc 12.9.86, stored)'."""
        nvrtc = self.version_of("nvidia-cuda-nvrtc")
        return f"CUDA {self.release} (nvrtc {nvrtc or '?'}, stored)"

    def _find(self, pattern: str) -> Path | None:
        regex = re.compile(pattern)
        found = sorted(name for name in self.files if regex.search(name))
        return self.tree / found[0] if found else None

    @property
    def nvrtc(self) -> Path | None:
        return self._find(r"/lib/libnvrtc\.so\.\d+$")

    @property
    def nvrtc_builtins(self) -> Path | None:
        return self._find(r"/lib/libnvrtc-builtins\.so\.[\d.]+$")

    @property
    def nvjitlink(self) -> Path | None:
        return self._find(r"/lib/libnvJitLink\.so\.\d+$")

    def executable(self, name: str) -> Path | None:
        """ptxas, nvcc, nvdisasm: the release's own, where its wheels carry one."""
        return self._find(rf"/bin/{re.escape(name)}$")

    @property
    def include_dirs(self) -> tuple[Path, ...]:
        """The CUDA headers (cuda_runtime.h, cuda_fp16.h) and CCCL's (cuda/std) of this release:
        an NVRTC older than 13 bundles neither."""
        dirs = []
        # (a file every such directory holds, how many levels below the directory it lies)
        for tail, depth in (("/include/cuda_runtime.h", 0), ("/include/cuda/std/version", 2)):
            hit = self._find(re.escape(tail) + "$")
            if hit is not None:
                dirs.append(hit.parents[depth])
        return tuple(dict.fromkeys(dirs))

    def check_files(self, paths: list[Path], *, hashes: bool) -> None:
        """Raise when any of `paths` differs from the manifest (size always, sha256 with
        `hashes`): a tampered or damaged toolchain is never run."""
        from sassview.toolchain.wheels import file_digest

        for path in paths:
            rel = path.relative_to(self.tree).as_posix()
            want = self.files.get(rel)
            try:
                got = file_digest(path) if hashes else ("", path.stat().st_size)
            except OSError as exc:
                raise _damaged(self.release, f"{rel}: {exc.strerror or exc}") from None
            if want is None or got[1] != want[1] or (hashes and got[0] != want[0]):
                raise _damaged(self.release, f"{rel} is not the file that was added")

    def runnable_files(self) -> list[Path]:
        """The libraries and executables sassview may load or run from this toolchain."""
        return [
            self.tree / n
            for n in sorted(self.files)
            if re.search(r"/bin/[^/]+$|/lib(64)?/[^/]+\.so[.\d]*$", n)
        ]


def _damaged(release: str, why: str) -> ToolchainError:
    return ToolchainError(
        f"toolchain {release} is damaged or was changed after it was added: {why}",
        f"add it again: sassview toolchain remove {release} && sassview toolchain add {release}",
    )


def read(path: Path) -> Toolchain:
    """The toolchain in directory `path`; a torn or foreign one raises ToolchainError."""
    release = path.name
    if not (path / MARKER).is_file():
        raise ToolchainError(
            f"{path} is not a toolchain sassview added",
            f"remove it by hand if it is not yours; {STORE_ENV} sets where the store is",
        )
    try:
        raw = (path / MANIFEST).read_bytes()
    except FileNotFoundError:
        raise ToolchainError(
            f"toolchain {release} is torn: its files were never completed (no {MANIFEST})",
            f"add it again: sassview toolchain remove {release} && sassview toolchain add "
            f"{release}",
        ) from None
    try:
        data = json.loads(raw)
        if data["format"] != FORMAT or data["release"] != release:
            raise ValueError("another format or release")
        packages = tuple((str(n), str(v)) for n, v in data["packages"])
        files = {str(k): (str(h), int(s)) for k, (h, s) in data["files"].items()}
    except (ValueError, KeyError, TypeError) as exc:
        raise _damaged(release, f"{MANIFEST} cannot be read ({exc})") from None
    return Toolchain(release, path, packages, files, hashlib.sha256(raw).hexdigest())


def write_manifest(
    path: Path, release: str, packages: list[tuple[str, str]], files: dict[str, tuple[str, int]]
) -> None:
    """The last file of an add: what makes the directory a whole toolchain."""
    data = {
        "format": FORMAT,
        "release": release,
        "packages": [list(p) for p in packages],
        "files": {k: list(v) for k, v in sorted(files.items())},
    }
    tmp = path / f".{MANIFEST}.{secrets.token_hex(4)}"
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path / MANIFEST)


def stored_releases() -> list[str]:
    """The release directories in the store, whole or not, oldest release first."""
    root = store_root()
    try:
        names = [p.name for p in root.iterdir() if p.is_dir() and _RELEASE.fullmatch(p.name)]
    except OSError:
        return []
    return sorted(names, key=lambda n: tuple(int(x) for x in n.split(".")))


def find(release: str) -> Toolchain:
    """The stored toolchain of `release`, checked enough to run (see the module's docstring)."""
    path = store_root() / parse_release(release)
    if not path.is_dir():
        added = ", ".join(stored_releases()) or "none"
        raise ToolchainError(
            f"toolchain {release} has not been added (added: {added})",
            f"sassview toolchain add {release}",
        )
    toolchain = read(path)
    toolchain.check_files(toolchain.runnable_files(), hashes=False)
    return toolchain


def verify(toolchain: Toolchain) -> None:
    """Re-hash every file of the toolchain; raises at the first that differs or is missing,
    or for a file in its tree the manifest does not list."""
    toolchain.check_files([toolchain.tree / n for n in sorted(toolchain.files)], hashes=True)
    for dirpath, _, names in os.walk(toolchain.tree):
        for name in names:
            rel = (Path(dirpath) / name).relative_to(toolchain.tree).as_posix()
            if rel not in toolchain.files:
                raise _damaged(toolchain.release, f"{rel} was not in its wheels")


@contextlib.contextmanager
def locked() -> Iterator[Path]:
    """Hold the store's lock (one add or remove at a time, across processes); the root.

    A POSIX record lock, as the cache's (cache/locks.py says why not filelock's flock); the
    operating system drops it when a holder dies, so a killed add never blocks the next."""
    root = store_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ToolchainError(
            f"cannot use the toolchain store {root}: {exc.strerror or exc}",
            f"make it writable, or set {STORE_ENV} to a directory that is",
        ) from None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX)
        yield root
    finally:
        os.close(fd)  # closing releases the lock


def remove_tree(path: Path) -> None:
    """Remove a directory sassview wrote (it holds the marker), renamed aside first so that a
    reader never sees half of it; anything without the marker is left alone."""
    if path.is_symlink() or not (path / MARKER).is_file():
        raise ToolchainError(
            f"{path} is not a toolchain sassview added: left alone",
            "remove it by hand if it is not yours",
        )
    aside = path.with_name(f".removing-{path.name}-{secrets.token_hex(4)}")
    os.rename(path, aside)
    shutil.rmtree(aside)


def remove(release: str) -> Path:
    """Remove a stored release (whole, torn or damaged); its former path."""
    name = parse_release(release)
    with locked() as root:
        path = root / name
        if not path.exists():
            raise ToolchainError(
                f"toolchain {name} is not in the store",
                f"`sassview toolchain list` shows what is ({root})",
            )
        remove_tree(path)
    return path


def clear_leftovers(root: Path) -> list[Path]:
    """Staging and removal directories of adds or removes that died (under the lock: none can
    be in progress); those with the marker only."""
    gone = []
    for p in root.iterdir():
        if p.name.startswith((STAGING_PREFIX, ".removing-")) and (p / MARKER).is_file():
            shutil.rmtree(p)
            gone.append(p)
    return gone
