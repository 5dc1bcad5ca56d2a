"""Compile every (declaration, architecture, variant) of a kernel file, on all cores.

Compiles are independent, so they run in a pool of forked workers (fork keeps the imported
kernel file and its declarations, so nothing is imported twice). A worker only warms the cache:
it compiles and disassembles, and the parent then reads every result from the cache, which
keeps what crosses process boundaries to an error message. Where fork is unavailable, or for
a single job, everything runs in this process.

Stopping: workers ignore Ctrl-C (the terminal sends it to them too) and leave it to the parent,
which on any exception (KeyboardInterrupt, the CLI's SIGTERM) terminates the pool at once
instead of waiting for the queued jobs. A worker turns SIGTERM into SystemExit, so its own
`finally` blocks end its NVRTC child and its nvdisasm runs and remove its temporary cubin.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from sassview.declare import Declaration
from sassview.errors import InputError, SassviewError
from sassview.frontends.discover import KernelFile, exit_error
from sassview.ir import Artifacts


@dataclass(frozen=True)
class Job:
    declaration: int  # index into KernelFile.declarations
    arch: str
    variant: dict[str, Any]

    def label(self, decl: Declaration, kernel_file: KernelFile | None = None) -> str:
        """`name [k=v, ...]`: the kernel and its variant's values (an autotune config's too).
        A kernel declared more than once also names the settings that tell its declarations
        apart, `matmul(BLOCK_K=32) [num_stages=2]`; `matmul#2` where none do."""
        name = decl.name
        if kernel_file is not None:
            same = [i for i, d in enumerate(kernel_file.declarations) if d.name == name]
            if len(same) > 1 and self.declaration in same:
                name = _declaration_name(kernel_file, same, self.declaration)
        if not self.variant:
            return name
        return f"{name} [" + ", ".join(f"{k}={v}" for k, v in self.variant.items()) + "]"


def _declaration_name(kf: KernelFile, same: list[int], index: int) -> str:
    """`name(k=v, ...)` with the settings whose values differ among the declarations `same`.
    No ` [` in it: what comes before one is the declaration (the sweep groups by it)."""
    settings = [_flat_settings(kf.declarations[i]) for i in same]
    mine = settings[same.index(index)]
    differ = [k for k, v in mine.items() if any(other.get(k) != v for other in settings)]
    name = kf.declarations[index].name
    if not differ:
        return f"{name}#{same.index(index) + 1}"
    return f"{name}(" + ", ".join(f"{k}={mine[k]}" for k in differ) + ")"


def _flat_settings(decl: Declaration) -> dict[str, str]:
    """A declaration's settings as name -> value text: constexprs and options by their own
    names, CUDA defines (`TILE=128`) by the macro."""
    out: dict[str, str] = {}
    for key, value in decl.settings.items():
        if key == "heuristics":  # functions of the other settings, never told apart by text
            continue
        if isinstance(value, Mapping):
            out.update((str(k), str(v)) for k, v in value.items())
        elif key == "defines":
            out.update(d.partition("=")[::2] for d in value)
        else:
            out[key] = str(value)
    return out


def plan(kernel_file: KernelFile, archs: Sequence[str] | None = None) -> list[Job]:
    """Every job, in declaration order; `archs` (from the command line) overrides each
    declaration's own list."""
    jobs = []
    for i, decl in enumerate(kernel_file.declarations):
        for arch in archs or decl.archs:
            for variant in decl.variant_grid():
                jobs.append(Job(i, arch, variant))
    return jobs


def compile_job(kernel_file: KernelFile, job: Job) -> Artifacts:
    decl = kernel_file.declarations[job.declaration]
    compile_one = _FRONTENDS[decl.kind]
    artifacts = compile_one(kernel_file, decl, job.arch, job.variant)
    return replace(
        artifacts, label=job.label(decl, kernel_file), variant=MappingProxyType(dict(job.variant))
    )


def _cuda(kf: KernelFile, decl: Declaration, arch: str, variant: dict[str, Any]) -> Artifacts:
    from sassview.frontends.build_options import declared_build, resolve_build
    from sassview.frontends.cuda import compile_cuda

    s = decl.settings
    defines = list(s["defines"])
    options = list(s["options"])
    for key, value in variant.items():
        if key.startswith("-"):  # a compiler option: -maxrregcount=32, --use_fast_math (bool)
            if value is True:
                options.append(key)
            elif value is not False and value is not None:
                options.append(f"{key}={value}")
        else:
            defines.append(f"{key}={value}")
    if s["file"]:
        path = kf.path.parent / decl.target
        build = resolve_build(path, declared_build(kf.path.parent, s, defines, options))
        for note in build.notes:  # a kernel.py's compile says it with -v only
            logging.getLogger("sassview").info("%s: %s", decl.name, note.strip())
        return compile_cuda(path=path, arch=arch, **build.options.compile_kwargs())
    includes = [kf.path.parent / i for i in s["include_dirs"]]
    artifacts = compile_cuda(
        _with_line_directive(decl.target, kf), arch=arch, defines=defines,
        include_dirs=[kf.path.parent, *includes], options=options,
    )  # fmt: skip
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


def _triton(kf: KernelFile, decl: Declaration, arch: str, variant: dict[str, Any]) -> Artifacts:
    from sassview.frontends.triton import apply_heuristics, compile_triton, option_names

    s = dict(decl.settings)
    constexprs = dict(s["constexprs"])
    parameters = set(getattr(decl.target, "arg_names", ()))
    for key, value in variant.items():
        if key in ("num_warps", "num_stages", "num_ctas"):
            s[key] = value
        elif key in parameters or key not in option_names():  # else: no such parameter
            constexprs[key] = value
        else:  # a compile option: maxnreg (an autotune config's), enable_fp_fusion, ...
            s["options"] = {**s["options"], key: value}
    launch = {k: s[k] for k in ("num_warps", "num_stages", "num_ctas")}
    constexprs.update(
        apply_heuristics(decl.name, s["heuristics"], {**launch, **s["options"], **constexprs})
    )
    return compile_triton(
        decl.target, signature=s["signature"], constexprs=constexprs,
        divisibility=s["divisibility"], arch=arch, num_warps=s["num_warps"],
        num_stages=s["num_stages"], num_ctas=s["num_ctas"], options=s["options"],
    )  # fmt: skip


def _cute(kf: KernelFile, decl: Declaration, arch: str, variant: dict[str, Any]) -> Artifacts:
    from sassview.frontends.cute import compile_cute

    return compile_cute(
        decl.target, *decl.args, arch=arch, options=decl.settings["options"], **variant
    )


_FRONTENDS: dict[str, Callable[[KernelFile, Declaration, str, dict[str, Any]], Artifacts]] = {
    "cuda": _cuda,
    "triton": _triton,
    "cute": _cute,
}

# The kernel file a forked worker compiles from (set before the pool forks).
_shared: KernelFile | None = None


def _warm(job: Job) -> tuple[Job, tuple[str, str, str] | None]:
    """In a worker: compile and disassemble one job into the cache; the error if it failed."""
    from sassview.disasm import disassemble

    assert _shared is not None
    try:
        disassemble(compile_job(_shared, job).cubin)
    except SassviewError as exc:
        return job, (type(exc).__name__, exc.message, exc.hint)
    except Exception as exc:  # reported, then the parent's own attempt shows the real error
        return job, (type(exc).__name__, str(exc), "")
    return job, None


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _start_worker() -> None:
    """In each new worker: Ctrl-C is the parent's to handle; SIGTERM unwinds (see above)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)


def warm_cache(
    kernel_file: KernelFile,
    jobs: Sequence[Job],
    workers: int | None = None,
    progress: Callable[[Job], None] | None = None,
) -> bool:
    """Compile the jobs in parallel into the cache; False when it could not run in parallel.
    Errors are not raised here: the parent's pass over the cache meets them again, in order,
    with their full messages. `progress` is called as each job finishes."""
    global _shared
    count = min(len(jobs), workers or os.cpu_count() or 1)
    if count < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return False
    _shared = kernel_file
    pool = multiprocessing.get_context("fork").Pool(count, initializer=_start_worker)
    try:
        for job, _ in pool.imap_unordered(_warm, jobs):
            if progress is not None:
                progress(job)
        pool.close()
    except BaseException:
        pool.terminate()  # SIGTERM to every worker now; queued jobs are dropped
        raise
    finally:
        pool.join()
        _shared = None
    return True


def compile_all(
    kernel_file: KernelFile,
    archs: Sequence[str] | None = None,
    *,
    parallel: bool = True,
    jobs: Sequence[Job] | None = None,
    progress: Callable[[Job], None] | None = None,
) -> list[Artifacts]:
    """Every job's Artifacts, in order (default jobs: `plan(kernel_file, archs)`)."""
    if not kernel_file.declarations:
        raise InputError(
            f"{kernel_file.path.name} declares no kernels",
            _no_kernels_hint(kernel_file),
        )
    todo = list(jobs) if jobs is not None else plan(kernel_file, archs)
    try:  # the file's own code runs again here (a CuTe host function), for every view alike
        warmed = parallel and warm_cache(kernel_file, todo, progress=progress)
        results = []
        for job in todo:
            results.append(compile_job(kernel_file, job))
            if progress is not None and not warmed:
                progress(job)
    except SystemExit as exc:
        raise exit_error(exc, kernel_file.path, importing=False) from None
    return results


def _no_kernels_hint(kf: KernelFile) -> str:
    if kf.undeclared:
        lines = "; ".join(f"line {u.line}: {u.hint}" for u in kf.undeclared)
        return f"declare each kernel (import sassview as sv): {lines}"
    return "declare kernels with sv.cuda(...), sv.cuda_file(...), sv.triton(...) or sv.cute(...)"


__all__ = ["Job", "compile_all", "compile_job", "plan", "warm_cache"]
