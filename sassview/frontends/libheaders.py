"""Headers of NVIDIA libraries installed as pip wheels (cuBLAS, cuRAND, cuFFT, ...).

A project includes `<cublas_v2.h>` and its build finds it under a CUDA installation; here the
header lives in a wheel (nvidia-cublas), found through `cuda.pathfinder` (NVTX's, nvidia-nvtx,
land in the CUDA 13 include directory nvcc searches already). An include of one
adds that wheel's include directory; a wheel that is not installed is named in the compile
error's hint with the pip package that brings it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from sassview.frontends.includes import clean

# A header's name as included (its first directory, else its file name) by prefix, longest
# first -> (cuda.pathfinder's library name, or None where the wheel's headers land in the CUDA
# 13 include directory nvcc already searches; the pip package that brings them).
LIBRARIES: dict[str, tuple[str | None, str]] = {
    "cusparseLt": ("cusparseLt", "nvidia-cusparselt-cu13"),
    "cublas": ("cublas", "nvidia-cublas"),
    "curand": ("curand", "nvidia-curand"),
    "cufft": ("cufft", "nvidia-cufft"),
    "cusparse": ("cusparse", "nvidia-cusparse"),
    "cusolver": ("cusolver", "nvidia-cusolver"),
    "cutensor": ("cutensor", "cutensor-cu13"),
    "cudnn": ("cudnn", "nvidia-cudnn-cu13"),
    "nccl": ("nccl", "nvidia-nccl-cu13"),
    "nvshmem": ("nvshmem", "nvidia-nvshmem-cu13"),
    "npp": ("npp", "nvidia-npp"),
    "nvjpeg": ("nvjpeg", "nvidia-nvjpeg"),
    "cufile": ("cufile", "nvidia-cufile"),
    "cuda_profiler_api": ("profiler", "nvidia-cuda-profiler-api"),
    "cudaProfiler": ("profiler", "nvidia-cuda-profiler-api"),
    "nvtx3": (None, "nvidia-nvtx"),
    "nvToolsExt": (None, "nvidia-nvtx"),
    "cutlass": ("cutlass", "nvidia-cutlass"),
    "cute": ("cute", "nvidia-cutlass"),
}
_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]", re.M)
_NOT_FOUND = re.compile(
    r'cannot open source file "([^"]+)"|fatal error: ([^:\s]+): No such file or directory'
)


def _library(header: str) -> tuple[str | None, str] | None:
    """The library a header as included (`nvtx3/nvToolsExt.h`, `cublas_v2.h`) belongs to."""
    if "/" in header:  # a library's own directory, by its exact name
        return LIBRARIES.get(header.split("/", 1)[0])
    name = Path(header).name
    return next((lib for prefix, lib in LIBRARIES.items() if name.startswith(prefix)), None)


def library_include_dirs(texts: Iterable[bytes]) -> list[Path]:
    """The include directories of the installed library wheels these sources include."""
    wanted = {
        lib[0]
        for text in texts
        if b"include" in text  # no directive to read: skip cleaning the whole text
        for name in _INCLUDE.findall(clean(text))
        if (lib := _library(name.decode(errors="replace"))) and lib[0]
    }
    if not wanted:
        return []
    from cuda import pathfinder

    found = []
    for name in sorted(wanted):
        try:
            where = pathfinder.find_nvidia_header_directory(name)
        except Exception:  # an unknown name or a broken wheel: the compile error will say
            where = None
        if where:
            found.append(Path(where))
    return found


def missing_library_hint(log: str) -> str:
    """`pip install nvidia-cublas` when the first missing header is a library wheel's."""
    match = _NOT_FOUND.search(log)
    if not match:
        return ""
    header = match.group(1) or match.group(2)
    lib = _library(header)
    if lib is None:
        return ""
    return f"{header} comes with the {lib[1]} wheel: pip install {lib[1]}"
