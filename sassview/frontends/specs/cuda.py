"""CUDA C++: a string in a kernel.py (`sv.cuda`) or a .cu/.cuh file (`sv.cuda_file`), through
NVRTC or nvcc from the pip wheels. The analyses' own words are the C++ ones, so its vocabulary
only names the loop and pipelining spellings."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from sassview.frontends.registry import FrontendSpec, Knob, Vocabulary, distribution_version

# The variant key that picks the CUDA release (a stored toolchain) rather than defining a macro.
TOOLCHAIN_KNOB = "toolchain"

if TYPE_CHECKING:
    from sassview.frontends.declaration import Declaration, KernelFile
    from sassview.ir import Artifacts


def compile_job(kf: KernelFile, decl: Declaration, arch: str, variant: dict[str, Any]) -> Artifacts:
    from sassview.frontends.build_options import declared_build, resolve_build
    from sassview.frontends.cuda import compile_cuda

    s = decl.settings
    defines = list(s["defines"])
    options = list(s["options"])
    # `-p toolchain=12.9,default` on sweep: the release is an axis of the grid, not a macro.
    chosen = variant.get(TOOLCHAIN_KNOB, s.get("toolchain"))
    toolchain = None if chosen is None else str(chosen)
    for key, value in variant.items():
        if key == TOOLCHAIN_KNOB:
            continue
        if key.startswith("-"):  # a compiler option: -maxrregcount=32, --use_fast_math (bool)
            if value is True:
                options.append(key)
            elif value is not False and value is not None:
                options.append(f"{key}={value}")
        else:
            defines.append(f"{key}={value}")
    declared = replace(declared_build(kf.path.parent, s, defines, options), toolchain=toolchain)
    if s["file"]:
        path = kf.path.parent / decl.target
        build = resolve_build(path, declared)
        for note in build.notes:  # a kernel.py's compile says it with -v only
            logging.getLogger("sassview").info("%s: %s", decl.name, note.strip())
        return compile_cuda(path=path, arch=arch, build=build.options)
    # C++ in a string includes from beside the kernel file, as the file itself would
    text = replace(declared, include_dirs=(kf.path.parent, *declared.include_dirs))
    artifacts = compile_cuda(_with_line_directive(decl.target, kf), arch=arch, build=text)
    # The source the user reads is the kernel file, which the #line directive points into; the
    # C++ alone, at its lines in that file, is kept for analyses that read C++ (loops, pragmas).
    stages = {**artifacts.stages, "cuda_source": _aligned_cuda(decl.target, kf)}
    return replace(
        artifacts, source_path=str(kf.path), source_text=kf.text, stages=MappingProxyType(stages)
    )


def _aligned_cuda(source: str, kf: KernelFile) -> str:
    """The kernel file with every line outside the CUDA string blanked: C++ at its own lines."""
    at = kf.text.find(source)
    if at < 0:
        return source
    before = kf.text.count("\n", 0, at)
    return "\n" * before + source


def _with_line_directive(source: str, kf: KernelFile) -> str:
    """CUDA C++ from a Python string, with a #line directive so line info points into kernel.py."""
    at = kf.text.find(source)
    if at < 0:
        return source
    line = kf.text.count("\n", 0, at) + 1
    path = str(kf.path).replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{path}"\n{source}'


def _check_names(kernel_file: Path, decl: Declaration) -> None:
    """A string compiles under the kernel file's name (#line), a file under its own: ptxas
    must be able to write either into the line table."""
    from sassview.frontends.paths import check_ptxas_can_name

    file = decl.settings.get("file")
    check_ptxas_can_name(kernel_file.parent / decl.target if file else kernel_file)


def _spill_knob(decl: Declaration, variant: Mapping[str, Any]) -> Knob | None:
    """Without the -maxrregcount in force (the variant's, or the declaration's option)."""
    if "-maxrregcount" in variant and variant["-maxrregcount"] not in (None, False):
        return Knob("without -maxrregcount", variant={"-maxrregcount": None})
    for opt in decl.settings.get("options", ()):
        if opt.startswith(("-maxrregcount", "--maxrregcount")):
            kept = tuple(o for o in decl.settings["options"] if o != opt)
            return Knob(f"without {opt}", settings={"options": kept})
    return None


SPEC = FrontendSpec(
    kind="cuda",
    title="CUDA C++",
    declarations=("cuda", "cuda_file"),
    declare_module="sassview.declare",
    compile=compile_job,
    package="",  # sassview's own dependencies: NVRTC, nvcc and their headers
    extra="",
    version=lambda: distribution_version("nvidia-cuda-nvrtc"),
    vocabulary=Vocabulary(unroll="#pragma unroll N"),
    cxx=True,
    spill_knob=_spill_knob,
    check_names=_check_names,
)
