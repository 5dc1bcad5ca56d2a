"""`sassview toolchain add R`: fetch a CUDA release's wheels with pip and store them (store.py).

pip does the fetching (`python -m pip download --no-deps --only-binary=:all:`, an argument
list, never a shell): it knows the user's index, proxy and certificates, picks the wheel for
this platform and checks each download against the index's hash. Nothing is installed into
any environment: the wheels are unpacked by wheels.py, each file checked against its RECORD,
into a staging directory that is renamed into the store only once whole.

Which wheels: PyPI's names changed at 13.0 (`nvidia-cuda-nvrtc-cu12` before, `nvidia-cuda-nvrtc`
after) and so did what each carries: 12.x's nvidia-cuda-nvcc-cu12 holds ptxas and libnvvm but
no nvcc driver, and 12.x has no nvdisasm, nvvm or crt wheel. NVRTC is required (it compiles);
the others are taken where the release has them (`pip download` says "No matching
distribution", and that one is dropped). `--wheels DIR` takes them from a local directory
(`--no-index --find-links DIR`): offline CI, and the tests.
"""

from __future__ import annotations

import re
import secrets
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sassview.errors import ToolchainError, ToolFailed
from sassview.toolchain import store

# The pip package stems of a release, NVRTC first (the one that must exist).
REQUIRED = "nvidia-cuda-nvrtc"
OPTIONAL = (
    "nvidia-nvjitlink",
    "nvidia-cuda-runtime",  # cuda_runtime.h, cuda_fp16.h: NVRTC before 13 bundles none
    "nvidia-cuda-cccl",  # cuda/std, cub
    "nvidia-cuda-nvcc",  # ptxas (Triton's TRITON_PTXAS_PATH), and nvcc from 13.0 on
    "nvidia-nvvm",
    "nvidia-cuda-crt",
    "nvidia-cuda-nvdisasm",
)
FETCH_TIMEOUT_S = 1800.0
_NO_MATCH = re.compile(r"No matching distribution found for ([A-Za-z0-9_.\-]+)")


@dataclass(frozen=True, slots=True)
class Added:
    toolchain: store.Toolchain
    fresh: bool  # False: it was already there, whole, and nothing was fetched
    skipped: tuple[str, ...]  # packages this release does not publish


def package_names(release: str) -> list[str]:
    """The pip names of a release's wheels: suffixed -cuNN before 13.0."""
    major = int(release.split(".")[0])
    suffix = f"-cu{major}" if major < 13 else ""
    return [f"{stem}{suffix}" for stem in (REQUIRED, *OPTIONAL)]


def _pip(release: str, names: list[str], dest: Path, wheels: Path | None) -> str:
    from sassview.toolchain.run import run_tool, seconds_from_env

    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    argv += ["--disable-pip-version-check", "--progress-bar", "off", "-d", str(dest)]
    if wheels is not None:
        argv += ["--no-index", "--find-links", str(wheels)]
    argv += [f"{name}=={release}.*" for name in names]
    timeout = seconds_from_env("SASSVIEW_TOOL_TIMEOUT") or FETCH_TIMEOUT_S
    return run_tool(argv, what="pip download", timeout=timeout, max_output=64 << 20)


def download(release: str, dest: Path, wheels: Path | None = None) -> tuple[list[Path], list[str]]:
    """Download the release's wheels into `dest`: (the wheel files, the names skipped)."""
    names = package_names(release)
    skipped: list[str] = []
    while True:
        try:
            _pip(release, names, dest, wheels)
            break
        except ToolFailed as exc:
            match = _NO_MATCH.search(exc.output)
            name = match.group(1).split("==")[0].lower() if match else None
            if name is None or name not in names:
                raise ToolchainError(
                    f"pip could not download CUDA {release}'s wheels",
                    "check the network or your pip index (pip config list); or give a "
                    "directory of wheels with --wheels DIR",
                    detail=exc.detail,
                ) from None
            if name == names[0]:
                where = f"in {wheels}" if wheels is not None else "on the index"
                raise ToolchainError(
                    f"CUDA {release} has no NVRTC wheel ({name}) {where}",
                    f"put {name} {release}'s wheel there"
                    if wheels is not None
                    else "name a release PyPI carries (12.0 to 13.x), e.g. 12.9",
                    detail=exc.detail,
                ) from None
            names.remove(name)
            skipped.append(name)
    found = sorted(dest.glob("*.whl"))
    if not found:
        raise ToolchainError(f"pip downloaded no wheel for CUDA {release}", "run it with -v")
    return found, skipped


def add(release: str, *, wheels: Path | None = None, force: bool = False) -> Added:
    """Fetch, verify and store `release`; one add or remove at a time (the store's lock)."""
    name = store.parse_release(release)
    with store.locked() as root:
        store.clear_leftovers(root)
        target = root / name
        if target.exists() and not force:
            existing = store.read(target)  # a torn one raises, naming the fix
            store.verify(existing)
            return Added(existing, False, ())
        staging = root / f"{store.STAGING_PREFIX}{name}-{secrets.token_hex(4)}"
        staging.mkdir()
        (staging / store.MARKER).write_text(f"sassview toolchain {name}\n")
        try:
            skipped = _fill(staging, name, wheels)
            if target.exists():
                store.remove_tree(target)
            staging.rename(target)
        except BaseException:
            store.remove_tree(staging)
            raise
    return Added(store.find(name), True, tuple(skipped))


def _fill(staging: Path, release: str, wheels: Path | None) -> list[str]:
    """Download and unpack into `staging`, the manifest last; the names skipped."""
    from sassview.toolchain.wheels import unpack_wheel

    with tempfile.TemporaryDirectory(prefix="sassview-wheels-", dir=staging) as tmp:
        files, skipped = download(release, Path(tmp), wheels)
        packages: list[tuple[str, str]] = []
        listed: dict[str, tuple[str, int]] = {}
        for wheel in files:
            unpacked = unpack_wheel(wheel, staging / "tree")
            if not unpacked.version.startswith(f"{release}."):
                raise ToolchainError(
                    f"{wheel.name} is not of CUDA {release}",
                    "give --wheels a directory of that release's wheels",
                )
            packages.append((unpacked.name, unpacked.version))
            listed.update(unpacked.files)
    if not any(n.startswith(REQUIRED) for n, _ in packages):
        raise ToolchainError(f"no NVRTC wheel for CUDA {release} was downloaded", "run it with -v")
    store.write_manifest(staging, release, packages, listed)
    return skipped
