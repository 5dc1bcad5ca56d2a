"""Compile every (declaration, architecture, variant) of a kernel file, on all cores.

Compiles are independent, so they run in a pool of forked workers (fork keeps the imported
kernel file and its declarations, so nothing is imported twice). A worker only warms the cache:
it compiles and disassembles, and the parent then reads every result from the cache, which
keeps what crosses process boundaries to an error message. Where fork is unavailable, or for
a single job, everything runs in this process.

Stopping: workers ignore Ctrl-C and SIGHUP (the terminal sends them to the workers too) and
leave them to the parent, which on any exception (KeyboardInterrupt, the CLI's SIGTERM)
terminates the pool at once instead of waiting for the queued jobs. A worker turns SIGTERM into
SystemExit, so its own `finally` blocks end its NVRTC child and its nvdisasm runs and remove its
temporary cubin. A parent killed outright (kill -9) sends that SIGTERM all the same: the workers
are set to receive it when their parent dies (toolchain/lifeline.py).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from sassview.cache import locks as cache_locks
from sassview.cache.scratch import share_with_workers
from sassview.errors import InputError, SassviewError
from sassview.frontends import registry
from sassview.frontends.declaration import Declaration, KernelFile
from sassview.frontends.user_code import UserExit, running_user_code
from sassview.ir import Artifacts
from sassview.toolchain import lifeline


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
    shown = [{k: _short(s.get(k, "")) for k in differ} for s in settings]
    said = shown[same.index(index)]
    if not differ or sum(other == said for other in shown) > 1:  # nothing short tells it apart
        return f"{name}#{same.index(index) + 1}"
    return f"{name}(" + ", ".join(f"{k}={said[k]}" for k in differ) + ")"


_SHORT = 40  # characters of a setting's value in a label; a cuTile ArrayConstraint has ~300


def _short(text: str) -> str:
    """A setting's value as a label shows it: a cuTile array constraint by its element type
    and rank (`float16[2d]`, as the CuTe DSL's names give dtypes), other long text cut."""
    if len(text) <= _SHORT:
        return text
    found = _CONSTRAINT.match(text)
    if found:
        return f"{found.group(1)}[{found.group(2)}d]"
    return text[: _SHORT - 1] + "…"


_CONSTRAINT = re.compile(r"\w+Constraint\(dtype=<DType '(\w+)'>, ndim=(\d+)")


def _flat_settings(decl: Declaration) -> dict[str, str]:
    """A declaration's settings as name -> value text: constexprs and options by their own
    names, CUDA defines (`TILE=128`) by the macro."""
    out: dict[str, str] = {}
    for key, value in decl.settings.items():
        if key in ("heuristics", "autotune_notes") or value in (None, (), {}):  # nothing to
            continue  # tell apart by: functions of the others, words, settings not given
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
    frontend = registry.spec(decl.kind)
    if frontend is None:
        raise InputError(
            f"{decl.name}: no frontend compiles {decl.kind!r} declarations",
            f"frontends: {', '.join(registry.frontends())}",
        )
    try:
        artifacts = frontend.compile(kernel_file, decl, job.arch, job.variant)
    finally:
        # A compile that failed never put its entry: end its claim on the key now, or another
        # process wanting the same kernel would wait for it (cache/locks.py).
        cache_locks.release()
    return replace(
        artifacts, label=job.label(decl, kernel_file), variant=MappingProxyType(dict(job.variant))
    )


# The kernel file a forked worker compiles from (set before the pool forks).
_shared: KernelFile | None = None


def _warm(job: Job) -> tuple[Job, tuple[str, str, str] | None]:
    """In a worker: compile and disassemble one job into the cache; the error if it failed."""
    from sassview.disasm import disassemble

    assert _shared is not None
    try:
        artifacts = compile_job(_shared, job)
        disassemble(artifacts.cubin, artifacts.ptx or "")  # the forms build.py asks for
    except SassviewError as exc:
        return job, (type(exc).__name__, exc.message, exc.hint)
    except Exception as exc:  # reported, then the parent's own attempt shows the real error
        return job, (type(exc).__name__, str(exc), "")
    return job, None


def _exit_on_sigterm(signum: int, frame: object) -> None:
    # Once: a second SIGTERM (the user's to the group, then the pool's) must not cut the
    # `finally` blocks short, which remove the temporary cubin and end the worker's tools.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(128 + signum)


def _start_worker(parent: int) -> None:
    """In each new worker: Ctrl-C and a hang-up (the terminal sends them to the whole group)
    are the parent's to handle; SIGTERM unwinds (see above), and arrives by itself when the
    parent dies without ending the pool (kill -9)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    lifeline.die_with_parent(signal.SIGTERM, parent)


_said_jobs: set[str] = set()


def pool_size() -> int:
    """Compile processes for one sassview process: $SASSVIEW_JOBS, else the CPUs. Under
    pytest-xdist each of N workers takes 1/N of the CPUs (N workers each starting a pool of
    every CPU would run N x CPUs compilers on the machine)."""
    text = os.environ.get("SASSVIEW_JOBS", "").strip()
    if text.isdigit() and int(text) > 0:
        return int(text)
    if text and text not in _said_jobs:  # said, not silently ignored (as MAX_MB does)
        _said_jobs.add(text)
        logging.getLogger("sassview").warning(
            "warning: SASSVIEW_JOBS=%r is not a positive whole number: using %s (give a"
            " number of compile processes, e.g. SASSVIEW_JOBS=4, or unset it)",
            text,
            "the CPUs",
        )
    cpus = os.cpu_count() or 1
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if workers.isdigit() and int(workers) > 1:
        return max(1, cpus // int(workers))
    return cpus


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
    count = min(len(jobs), workers or pool_size())
    if count < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return False
    _shared = kernel_file
    share_with_workers()  # with the cache off, one scratch directory for all, removed here
    lifeline.available()  # prctl looked up before the workers fork
    pool = multiprocessing.get_context("fork").Pool(
        count, initializer=_start_worker, initargs=(os.getpid(),)
    )
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
        with running_user_code():
            warmed = parallel and warm_cache(kernel_file, todo, progress=progress)
            results = []
            for job in todo:
                results.append(compile_job(kernel_file, job))
                if progress is not None and not warmed:
                    progress(job)
    except (SystemExit, UserExit) as exc:
        from sassview.frontends.discover import exit_error  # a warm check never gets here

        raise exit_error(exc, kernel_file.path, importing=False) from None
    return results


def _no_kernels_hint(kf: KernelFile) -> str:
    if kf.undeclared:
        lines = "; ".join(f"line {u.line}: {u.hint}" for u in kf.undeclared)
        return f"declare each kernel (import sassview as sv): {lines}"
    calls = [f"sv.{n}(...)" for s in registry.frontends().values() for n in s.declarations]
    return f"declare kernels with {', '.join(calls[:-1])} or {calls[-1]}"


__all__ = ["Job", "compile_all", "compile_job", "plan", "pool_size", "warm_cache"]
