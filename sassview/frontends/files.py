"""Files the user already has: PTX (assembled with nvJitLink), cubins, and fatbins / objects /
executables (cubins and PTX pulled out with cuobjdump)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from sassview import cache
from sassview.cache.get_or_build import bytes_of, get_or_build, text_of
from sassview.errors import InputError, ToolFailed
from sassview.frontends.arch import parse_arch
from sassview.frontends.cuda import read_source
from sassview.frontends.nvjitlink_api import nvjitlink_ptx_to_cubin
from sassview.ir import Artifacts
from sassview.toolchain.locate import cuobjdump, toolchain_identity, toolchain_versions
from sassview.toolchain.run import run_tool

ELF_MAGIC = b"\x7fELF"
FATBIN_MAGIC = (0xBA55ED50).to_bytes(4, "little")
EM_CUDA = 190
_PTX_TARGET = re.compile(r"^\s*\.target\s+(sm_\w+)", re.M)


def is_cuda_elf(data: bytes) -> bool:
    return (
        data[:4] == ELF_MAGIC
        and len(data) > 20
        and int.from_bytes(data[18:20], "little") == EM_CUDA
    )


def ptx_target(ptx: str) -> str | None:
    match = _PTX_TARGET.search(ptx)
    return match.group(1) if match else None


def assemble_ptx(
    ptx: str, *, arch: str | None = None, name: str = "<ptx>", options: tuple[str, ...] = ()
) -> Artifacts:
    """Assemble PTX for `arch` (default: its own .target) with nvJitLink; cached."""
    if not ptx.strip():
        raise InputError(f"{name} is empty", "give it a PTX module (.version, .target, an .entry)")
    target = ptx_target(ptx)
    if target is None:
        raise InputError(
            f"{name} has no .target directive: is it PTX?", "PTX starts with .version and .target"
        )
    arch_name = str(parse_arch(arch or target))
    versions = toolchain_versions()
    key = cache.make_key(
        {
            "frontend": "ptx",
            "ptx": cache.digest(ptx.encode()),
            "arch": arch_name,
            "options": options,
            "tools": versions,
            "tool_files": toolchain_identity(),  # which files, not only their word
        }
    )

    def build() -> Mapping[str, bytes | str]:
        cubin, log = nvjitlink_ptx_to_cubin(ptx, arch_name, options)
        return {"kernel.cubin": cubin, "compile.log": log}

    files = get_or_build(cache.Store("ptx"), key, ("kernel.cubin", "compile.log"), build)
    cubin, log = bytes_of(files["kernel.cubin"]), text_of(files["compile.log"])
    return Artifacts(
        kind="ptx",
        arch=arch_name,
        source_path=name,
        ptx=ptx,
        cubin=cubin,
        compile_log=log,
        options=(f"-arch={arch_name}", "-lineinfo", *options),
        toolchain=MappingProxyType(dict(versions)),
    )


def cubin_artifacts(data: bytes, name: str) -> Artifacts:
    return Artifacts(kind="cubin", arch="", source_path=name, cubin=data)


def extract_from_container(path: Path) -> list[Artifacts]:
    """Pull every cubin (or, where there is none, every PTX) out of a fatbin, object or binary."""
    tool = cuobjdump()
    with tempfile.TemporaryDirectory(prefix="sassview-x-") as tmp:
        what = f"cuobjdump on {path.name}"
        hint = "is this a CUDA fatbin, object file or executable?"
        try:
            run_tool([tool, "-xelf", "all", str(path.resolve())], what=what, hint=hint, cwd=tmp)
            run_tool([tool, "-xptx", "all", str(path.resolve())], what=what, hint=hint, cwd=tmp)
        except ToolFailed as exc:
            if "does not contain device code" in exc.output:
                raise InputError(
                    f"{path} holds no CUDA device code",
                    "point sassview at a .cu, .ptx, .cubin, or a binary built with nvcc",
                ) from None
            raise
        cubins = sorted(Path(tmp).glob("*.cubin"))
        ptxs = sorted(Path(tmp).glob("*.ptx"))
        found = [cubin_artifacts(c.read_bytes(), f"{path}:{c.name}") for c in cubins]
        if not found:
            found = [assemble_ptx(p.read_text(), name=f"{path}:{p.name}") for p in ptxs]
    if not found:
        raise InputError(
            f"{path} holds no CUDA code",
            "sassview reads .cu, .ptx, .cubin and fatbins / objects / executables with device code",
        )
    return found


def load_file(path: Path, *, arch: str | None = None) -> list[Artifacts]:
    """.ptx, .cubin or a container, by content (the extension only decides when content can't)."""
    data = read_source(path)
    if not data:
        raise InputError(f"{path} is empty", "point at a .cu, .ptx, .cubin or fatbin file")
    if is_cuda_elf(data):
        return [cubin_artifacts(data, str(path))]
    if path.suffix == ".ptx":
        return [assemble_ptx(data.decode(errors="replace"), arch=arch, name=str(path))]
    if path.suffix == ".cubin" and data[:4] != ELF_MAGIC:
        raise InputError(
            f"{path} is not an ELF file, so not a cubin",
            "was it written by ptxas, nvcc -cubin or NVRTC?",
        )
    if data[:4] in (ELF_MAGIC, FATBIN_MAGIC):
        return extract_from_container(path)
    raise InputError(
        f"{path}: sassview does not know this kind of file",
        "give it a kernel.py (Triton, CuTe DSL or CUDA declarations), a .cu (CUDA C++), .ptx,"
        " .cubin, a fatbin, an object file or an executable",
    )
