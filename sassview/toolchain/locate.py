"""Find nvdisasm, cuobjdump, NVRTC, nvJitLink, nvcc and the host C++ compiler; read their versions.

Order of search for each tool: its environment override, then `cuda.pathfinder` (which looks in
the NVIDIA pip wheels first). The results are cached for the process. An executable's version is
also remembered in the cache, keyed by the file's identity (path, size, inode, mtime and ctime),
so a run served from the cache spawns no tool at all; NVRTC's and nvJitLink's versions likewise,
for the wheel's library file, so that run loads neither (only a compile does), and where each
wheel's tool was found (toolchain/remembered.py says what keys each memory). An override
(`SASSVIEW_NVDISASM`, which may be a wrapper) and `sassview doctor` always ask the tool.
A probe gets a few seconds: a tool that hangs is reported as one that does not run.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from sassview.errors import ToolchainError
from sassview.memo import memoized
from sassview.toolchain import remembered as memory

# Environment variables that point sassview at a specific tool or library.
OVERRIDES = {
    "nvdisasm": "SASSVIEW_NVDISASM",
    "cuobjdump": "SASSVIEW_CUOBJDUMP",
    "nvrtc": "SASSVIEW_NVRTC_LIB",
    "nvJitLink": "SASSVIEW_NVJITLINK_LIB",
    "nvcc": "SASSVIEW_NVCC",
}

# The pip package that brings each tool, for "missing" messages.
PACKAGES = {
    "nvdisasm": "nvidia-cuda-nvdisasm",
    "cuobjdump": "nvidia-cuda-cuobjdump",
    "nvrtc": "nvidia-cuda-nvrtc",
    "nvJitLink": "nvidia-nvjitlink",
    "nvcc": "nvidia-cuda-nvcc",
}

_RELEASE = re.compile(r"release (\d+)\.(\d+), V([\d.]+)")


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    path: str | None
    version: str | None  # "13.5.37" for executables, "13.5" for libraries
    found_via: str  # "env", "site-packages", "system", "missing"
    problem: str = ""

    @property
    def release(self) -> tuple[int, int] | None:
        if not self.version:
            return None
        major, minor = self.version.split(".")[:2]
        return int(major), int(minor)

    @property
    def package(self) -> str:
        return PACKAGES[self.name]


def _missing(name: str, why: str = "") -> ToolchainError:
    return ToolchainError(
        f"{name} was not found" + (f" ({why})" if why else ""),
        f"install it with `pip install {PACKAGES[name]}` "
        f"or point {OVERRIDES[name]} at an existing one",
    )


@memoized(64)
def _executable(name: str, remembered: bool = True) -> ToolInfo:
    override = os.environ.get(OVERRIDES[name])
    if override:
        if not os.access(override, os.X_OK):
            return ToolInfo(
                name, override, None, "env", f"{OVERRIDES[name]}={override} is not executable"
            )
        path, via = override, "env"
    else:
        found = memory.location(name, lambda: _find_binary(name))
        if found is None:
            return ToolInfo(name, None, None, "missing", f"pip install {PACKAGES[name]}")
        path = found
        via = "site-packages" if "site-packages" in found else "system"
    # An override may be a wrapper whose file stays the same while the tool behind it changes:
    # only the wheel's own binaries are known by their file.
    remember = via != "env"
    version = memory.fact(path) if remember and remembered else None
    if version is None:
        try:
            version = _probe_version(name, path, remember)
        except ToolchainError as exc:
            return ToolInfo(name, path, None, via, f"does not run: {exc.message}")
    return ToolInfo(name, path, version or None, via)


def _probe_version(name: str, path: str, remember: bool) -> str:
    """Run `path --version` (briefly), remember what it said if asked; "" for no release
    line."""
    from sassview.toolchain.run import probe_timeout, run_tool

    text = run_tool(
        [path, "--version"], what=f"{name} --version", timeout=probe_timeout(), max_output=1 << 20
    )
    match = _RELEASE.search(text)
    version = match.group(3) if match else ""
    if version and remember:
        memory.keep(path, version)
    return version


def remembered_nvrtc_archs() -> tuple[int, ...] | None:
    """What the wheel's NVRTC can target (nvrtcGetSupportedArchs) as remembered for its file,
    without loading it; None when not remembered (ask NVRTC, then `remember_nvrtc_archs`)."""
    if os.environ.get(OVERRIDES["nvrtc"]):
        return None
    info = _library("nvrtc", True)
    if info.found_via != "site-packages" or not info.path:
        return None
    text = memory.fact(info.path, "archs")
    return tuple(int(a) for a in text.split(",")) if text else None


def remember_nvrtc_archs(archs: tuple[int, ...]) -> None:
    """Keep the loaded NVRTC's targets for `remembered_nvrtc_archs` (a wheel's library only)."""
    info = _library("nvrtc")
    if info.found_via == "site-packages" and info.path and archs:
        memory.keep(info.path, ",".join(str(a) for a in archs), "archs")


def _require(info: ToolInfo) -> str:
    if info.path is None or info.problem:
        raise _missing(info.name, info.problem)
    return info.path


def nvdisasm() -> str:
    return _require(_executable("nvdisasm"))


def nvdisasm_version() -> str:
    """The nvdisasm release in use ("13.5.37"), or "unknown"; part of the disassembly cache key."""
    return _executable("nvdisasm").version or "unknown"


def cuobjdump() -> str:
    return _require(_executable("cuobjdump"))


@memoized(64)
def _library(name: str, remembered: bool = False) -> ToolInfo:
    """Load NVRTC or nvJitLink (honouring the override) and ask it for its version.

    With `remembered`, a wheel's library whose version is remembered for its file is neither
    loaded nor asked: loading both and importing their bindings was a fifth of a warm run's CPU.
    """
    override = os.environ.get(OVERRIDES[name])
    if remembered and not override:
        found = _remembered_library(name)
        if found is not None:
            return found
    path: str | None = None
    via = "site-packages"
    try:
        if override:
            import ctypes

            # Loading it first, globally, makes cuda.bindings pick this copy up.
            ctypes.CDLL(override, mode=ctypes.RTLD_GLOBAL)
            path, via = override, "env"
        else:
            from cuda import pathfinder

            loaded = pathfinder.load_nvidia_dynamic_lib(name)
            path = loaded.abs_path
            via = loaded.found_via
        if name == "nvrtc":
            from cuda.bindings import nvrtc

            _, major, minor = nvrtc.nvrtcVersion()
        else:
            from cuda.bindings import nvjitlink

            major, minor = nvjitlink.version()
    except Exception as exc:  # any loader failure means the same thing to the user
        return ToolInfo(
            name,
            path,
            None,
            "missing",
            str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
        )
    if via == "site-packages" and path:
        memory.keep(path, f"{major}.{minor}")
    return ToolInfo(name, path, f"{major}.{minor}", via)


def _remembered_library(name: str) -> ToolInfo | None:
    """The wheel's library as the loader would find it, with its remembered version; None when
    it is not in a wheel, not remembered, or the finder's (private) steps have moved.

    These are the first steps `load_nvidia_dynamic_lib` takes (site-packages, then conda);
    only a site-packages find is trusted, the one whose version `_library` remembers.
    """
    path = memory.location(name, lambda: _find_wheel_library(name))
    if path is None or "site-packages" not in path:
        return None
    version = memory.fact(path)
    return ToolInfo(name, path, version, "site-packages") if version else None


def _find_binary(name: str) -> str | None:
    from cuda import pathfinder

    found: str | None = pathfinder.find_nvidia_binary_utility(name)
    return found


def _find_wheel_library(name: str) -> str | None:
    """The wheel's library file `load_nvidia_dynamic_lib` would load, without loading it."""
    try:
        from cuda.pathfinder._dynamic_libs.lib_descriptor import LIB_DESCRIPTORS
        from cuda.pathfinder._dynamic_libs.search_steps import (
            EARLY_FIND_STEPS,
            SearchContext,
            run_find_steps,
        )

        find = run_find_steps(SearchContext(LIB_DESCRIPTORS[name]), EARLY_FIND_STEPS)
    except Exception:  # a pathfinder release without these steps: load it instead
        return None
    return str(find.abs_path) if find is not None and find.found_via == "site-packages" else None


def nvrtc_info() -> ToolInfo:
    info = _library("nvrtc")
    _require(info)
    return info


def nvjitlink_info() -> ToolInfo:
    info = _library("nvJitLink")
    _require(info)
    return info


def survey(probe: bool = False) -> list[ToolInfo]:
    """Every tool sassview uses, found or not; raises only for a malformed
    $SASSVIEW_TOOL_TIMEOUT. `probe` runs each executable even when its version is remembered
    (for `sassview doctor`)."""
    return [
        _library("nvrtc", not probe),
        _library("nvJitLink", not probe),
        _executable("nvdisasm", not probe),
        _executable("cuobjdump", not probe),
    ]


def release_mismatch(tools: list[ToolInfo]) -> str:
    """Why these tools' CUDA releases cannot work together, or "" if they can.

    PTX written by NVRTC 13.5 carries a `.version` an older nvJitLink cannot assemble, and an
    older nvdisasm may not decode instructions a newer ptxas emits: keep them on one release.
    """
    releases = {t.name: t.release for t in tools if t.release}
    if len(set(releases.values())) <= 1:
        return ""
    listed = ", ".join(f"{n} {r[0]}.{r[1]}" for n, r in releases.items() if r)
    return f"tools from different CUDA releases: {listed}"


def toolchain_identity() -> dict[str, str]:
    """Which files the tools are (path and content digest, toolchain/identity.py): beside
    their versions in every cache key, since a version is only what a tool says."""
    from sassview.toolchain.identity import identities

    return identities((t.name, t.path) for t in survey())


def nvdisasm_identity() -> str:
    """The nvdisasm file in use (path and digest): part of the listings' and model's keys."""
    from sassview.toolchain.identity import tool_identity

    return tool_identity(_executable("nvdisasm").path)


def toolchain_versions() -> dict[str, str]:
    """Versions that decide what the compiler and disassembler produce (part of cache keys)."""
    return {t.name: t.version or "missing" for t in survey()}


def nvcc_info() -> ToolInfo:
    """nvcc from the nvidia-cuda-nvcc wheel (or $SASSVIEW_NVCC); raises when it is missing."""
    info = _executable("nvcc")
    _require(info)
    return info


def nvcc_survey() -> ToolInfo:
    """nvcc found or not; never raises (for `sassview doctor`)."""
    return _executable("nvcc")


# Where the host C++ compiler nvcc drives comes from, in order: the caller's choice
# (--host-compiler), this variable, CMake's CUDAHOSTCXX, then g++ and clang++ on PATH.
HOST_COMPILER_ENV = "SASSVIEW_HOST_COMPILER"
HOST_COMPILER_NAMES = ("g++", "clang++")


@dataclass(frozen=True, slots=True)
class HostCompiler:
    path: str
    version: str  # the first line of `--version`: "g++ (Debian 12.2.0-14) 12.2.0"
    found_via: str  # "option", "env", "CUDAHOSTCXX", "PATH"


def host_compiler(choice: str | None = None) -> HostCompiler | None:
    """The host compiler nvcc should use, or None when there is none to be found."""
    import shutil

    for value, via in (
        (choice, "option"),
        (os.environ.get(HOST_COMPILER_ENV), "env"),
        (os.environ.get("CUDAHOSTCXX"), "CUDAHOSTCXX"),
    ):
        if value:
            path = shutil.which(value)
            if path is None:
                raise ToolchainError(
                    f"host compiler {value!r} (from {_HOST_SOURCES[via]}) was not found",
                    "give the path of a g++ or clang++, or install one",
                )
            return _host_compiler(path, via)
    for name in HOST_COMPILER_NAMES:
        path = shutil.which(name)
        if path:
            return _host_compiler(path, "PATH")
    return None


_HOST_SOURCES = {
    "option": "--host-compiler",
    "env": HOST_COMPILER_ENV,
    "CUDAHOSTCXX": "CUDAHOSTCXX",
}


@memoized(64)
def _host_compiler(path: str, via: str) -> HostCompiler:
    """Its version is part of the nvcc cache key: another compiler preprocesses differently."""
    from sassview.toolchain.run import run_tool

    text = run_tool([path, "--version"], what=f"{path} --version", timeout=30)
    first = text.strip().splitlines()[0] if text.strip() else "unknown"
    return HostCompiler(path, first, via)
