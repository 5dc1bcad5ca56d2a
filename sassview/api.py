"""The public entry: point at a kernel (a file or CUDA C++ text), get Programs back.

Everything above the frontends — the CLI, the TUI, the pytest plugin, the exporters — calls
these functions and reads the Programs they return; none has its own way in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sassview.build import build_program
from sassview.cache import release_claim as release_claims
from sassview.frontends.arch import DEFAULT_ARCH, parse_arch_list
from sassview.frontends.build_options import CUDA_SUFFIXES
from sassview.frontends.cuda import compile_cuda
from sassview.frontends.paths import check_ptxas_can_name, input_file
from sassview.ir import Artifacts, Program

if TYPE_CHECKING:
    from sassview.frontends.declaration import KernelFile
    from sassview.frontends.jobs import Job
    from sassview.inspection import Inspection


def compile(  # noqa: A001 - the natural name; sassview.compile reads well
    source: str | bytes | None = None,
    *,
    path: str | Path | None = None,
    arch: str = DEFAULT_ARCH,
    defines: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    options: Sequence[str] = (),
    compiler: str = "auto",
    host_compiler: str | None = None,
    instantiate: Sequence[str] = (),
    include_before: Sequence[str | Path] = (),
    toolchain: str | None = None,
    kernels_in: Sequence[str | Path] = (),
) -> Program:
    """Compile CUDA C++ (text or a file) for one architecture and return its model.

    `compiler`: auto (NVRTC, or nvcc for host code and host headers), nvrtc or nvcc;
    `instantiate`: template kernels to compile (`"tile<128, float>"`); `include_before`: files
    included ahead of the source (a header's includer context); `toolchain`: a CUDA release
    added with `sassview toolchain add` ("12.9"), None or "default" for the installed one."""
    if path is not None:
        check_ptxas_can_name(input_file(path, wanted="a CUDA C++ file"))
    try:
        artifacts = compile_cuda(
            source,
            path=path,
            arch=arch,
            defines=defines,
            include_dirs=include_dirs,
            options=options,
            compiler=compiler,
            host_compiler=host_compiler,
            instantiate=instantiate,
            include_before=include_before,
            toolchain=toolchain,
            kernels_in=kernels_in,
        )
    finally:
        release_claims()  # a failed compile never put its entry (cache/locks.py)
    return build_program(artifacts, where=str(path or "<source>"))


def from_ptx(ptx: str, *, arch: str | None = None, options: Sequence[str] = ()) -> Program:
    from sassview.frontends.files import assemble_ptx

    return build_program(assemble_ptx(ptx, arch=arch, options=tuple(options)), where="<ptx>")


def from_artifacts(artifacts: Artifacts) -> Program:
    return build_program(artifacts, where=artifacts.source_path or "<cubin>")


def load_kernel_file(
    path: str | Path,
    *,
    arch: str | Sequence[str] | None = None,
    parallel: bool = True,
    allow: Callable[[int], None] | None = None,
    toolchain: str | None = None,
) -> tuple[KernelFile, list[Program]]:
    """Import a kernel.py, compile every declared (kernel, arch, variant); `arch` overrides the
    declarations' own architectures. `allow` sees how many compiles that is before any starts,
    and may refuse them by raising (the CLI's --max-variants). `toolchain`: a stored CUDA
    release for its CUDA C++ (NVRTC) and Triton (ptxas) declarations, as the variant value
    `toolchain` (sweep's `-p toolchain=12.9`)."""
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import compile_all

    kernel_file = import_kernel_file(path)
    jobs = kernel_file_jobs(kernel_file, arch=arch, toolchain=toolchain)
    if allow is not None:
        allow(len(jobs))
    artifacts = compile_all(kernel_file, jobs=jobs, parallel=parallel)
    programs = [build_program(a, where=a.label or str(path)) for a in artifacts]
    return kernel_file, programs


def kernel_file_jobs(
    kernel_file: KernelFile,
    *,
    arch: str | Sequence[str] | None = None,
    toolchain: str | None = None,
) -> list[Job]:
    """The compiles `load_kernel_file` makes of `kernel_file`, in the order of its programs
    (each program is its job's): what `check --try` tries a hint's knob on."""
    from sassview.frontends.jobs import plan

    archs = [str(a) for a in parse_arch_list(arch)] if arch is not None else None
    jobs = plan(kernel_file, archs)
    if toolchain not in (None, "default"):
        jobs = _with_toolchain(kernel_file, jobs, str(toolchain))
    return jobs


def _with_toolchain(kernel_file: KernelFile, jobs: list[Job], toolchain: str) -> list[Job]:
    from sassview.errors import InputError
    from sassview.frontends.jobs import Job

    kinds = {kernel_file.declarations[j.declaration].kind for j in jobs}
    other = sorted(kinds - {"cuda", "triton", "gluon"})
    if other:
        raise InputError(
            f"--toolchain {toolchain}: {', '.join(other)} declarations compile with their own "
            "toolchain only",
            "drop --toolchain, or check the CUDA C++ and Triton kernels alone (--kernel)",
        )
    return [Job(j.declaration, j.arch, {**j.variant, "toolchain": toolchain}) for j in jobs]


def load(
    path: str | Path,
    *,
    arch: str | Sequence[str] | None = None,
    defines: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    options: Sequence[str] = (),
    compiler: str = "auto",
    host_compiler: str | None = None,
    instantiate: Sequence[str] = (),
    include_before: Sequence[str | Path] = (),
    toolchain: str | None = None,
    kernels_in: Sequence[str | Path] = (),
    allow: Callable[[int], None] | None = None,
) -> list[Program]:
    """Any file sassview reads -> one Program per (cubin, architecture).

    CUDA C++ is compiled for each architecture in `arch` (default sm_90a); PTX is assembled for
    `arch` or its own .target; cubins and containers are read as they are (`arch` is ignored);
    a kernel.py is imported and each declared kernel compiled (see sassview.declare); a
    Triton cache directory (or a TRITON_KERNEL_DUMP one, or one entry) gives every kernel in
    it, as compiled (`arch` is ignored).
    `compiler`, `host_compiler`, `instantiate`, `include_before` and `toolchain` are
    compile()'s; another `toolchain` than the default compiles CUDA C++ only. `allow` is
    load_kernel_file()'s (a kernel.py's count of compiles, before any starts).
    """
    p = Path(path)
    if toolchain not in (None, "default") and p.suffix not in (*CUDA_SUFFIXES, ".py"):
        from sassview.errors import InputError

        raise InputError(
            f"--toolchain {toolchain}: {p.name} is not CUDA C++; another release compiles "
            "CUDA C++ files only (a kernel.py, PTX and cubins go through the default)",
            "drop --toolchain for this file, or point at the .cu file or kernel.py",
        )
    if p.is_dir() and _directory_kind(p) == "triton-cache":  # kernels a run already compiled
        return load_triton_cache(p)
    input_file(p)  # a directory, a symlink loop or a missing file: said before anything runs
    if p.suffix in CUDA_SUFFIXES:
        archs = parse_arch_list(arch if arch is not None else DEFAULT_ARCH)
        return [
            compile(
                path=p,
                arch=str(a),
                defines=defines,
                include_dirs=include_dirs,
                options=options,
                compiler=compiler,
                host_compiler=host_compiler,
                instantiate=instantiate,
                include_before=include_before,
                toolchain=toolchain,
                kernels_in=kernels_in,
            )
            for a in archs
        ]
    if p.suffix == ".py":
        return load_kernel_file(p, arch=arch, toolchain=toolchain, allow=allow)[1]
    # PTX, cubins, fatbins: frontends/files.py and the tools it runs, imported for those alone
    from sassview.frontends.files import load_file

    archs_for_ptx = parse_arch_list(arch) if arch is not None else [None]
    programs = []
    for a in archs_for_ptx:
        for artifacts in load_file(p, arch=str(a) if a else None):
            programs.append(build_program(artifacts, where=artifacts.source_path or str(p)))
        if p.suffix != ".ptx":
            break
    return programs


def load_triton_cache(path: str | Path, kernel: str | None = None) -> list[Program]:
    """Every kernel of a Triton cache, TRITON_KERNEL_DUMP directory or cache entry, one
    Program each, as Triton compiled it; `kernel` keeps those of that name or whose entry
    starts with it (what a label shows, `add [entry=MRWS5W2Q, ...]`), before any is read."""
    from sassview.frontends.triton_cache import artifacts_of, find_kernels, matching

    kernels = matching(find_kernels(path), kernel) if kernel else find_kernels(path)
    return [from_artifacts(artifacts_of(k)) for k in kernels]


def _directory_kind(path: Path) -> str | None:
    from sassview.frontends.discover import directory_kind

    return directory_kind(path)


def analyze(program: Program, kernel: str | None = None) -> list[Inspection]:
    """The annotated graph (CFG, loops, liveness, every analysis) of each kernel of a Program."""
    from sassview.inspection import inspect_program

    return inspect_program(program, kernel)


def inspect(
    path: str | Path,
    *,
    arch: str | Sequence[str] | None = None,
    kernel: str | None = None,
    defines: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    options: Sequence[str] = (),
    compiler: str = "auto",
    host_compiler: str | None = None,
    instantiate: Sequence[str] = (),
    include_before: Sequence[str | Path] = (),
    toolchain: str | None = None,
    kernels_in: Sequence[str | Path] = (),
    allow: Callable[[int], None] | None = None,
) -> list[Inspection]:
    """Any file sassview reads -> one Inspection per (program, kernel): what every view reads.

    Programs in which `kernel` does not exist are skipped; if no program has it, the error lists
    the kernels there are. The build keywords are load()'s.
    """
    programs = load(
        path,
        arch=arch,
        defines=defines,
        include_dirs=include_dirs,
        options=options,
        compiler=compiler,
        host_compiler=host_compiler,
        instantiate=instantiate,
        include_before=include_before,
        toolchain=toolchain,
        kernels_in=kernels_in,
        allow=allow,
    )
    if kernel is None:
        return [i for p in programs for i in analyze(p)]
    having = [p for p in programs if any(k.matches(kernel) for k in p.kernels)]
    if not having:
        programs[0].kernel(kernel)  # raises InputError listing the kernels
    return [i for p in having for i in analyze(p, kernel)]
