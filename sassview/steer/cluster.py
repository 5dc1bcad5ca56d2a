"""Sweeps on a Dask cluster: the variants compiled as tasks on its workers.

The local sweep compiles every job in a pool of forked processes into the cache, then reads
each from the cache in order (frontends/jobs.warm_cache). On a cluster the workers take the
pool's place: each task opens the same kernel file (the `Recipe`: path, architectures, build
options, the sweep's grid), compiles one job and disassembles it into the worker's cache;
then this process reads every job as the local sweep does. So the table is the local sweep's
by construction, and where the workers and this machine share a cache (one machine's
SASSVIEW_CACHE_DIR, or SASSVIEW_CACHE_URL on all of them: cache/remote.py) no variant is
compiled twice. A worker that dies has its tasks run again elsewhere (the scheduler's own
retries); Ctrl-C cancels every future still pending.

What it needs of the cluster (docs/cli.md, "Sweeps on a cluster"): sassview and the kernel's
frontends installed on each worker, and the kernel file at the same path (a shared file
system). Dask runs what a client submits on its workers: connect only to a cluster of yours.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sassview.api import BuildOptions, Job, KernelFile
from sassview.errors import InputError, SassviewError, ToolchainError
from sassview.memo import memoized

CLUSTER_ENV = "SASSVIEW_CLUSTER"


@dataclass(frozen=True)
class Recipe:
    """How a worker opens the kernel file the sweep works on (hashable: one open per worker)."""

    path: str
    archs: tuple[str, ...] | None
    build: BuildOptions | None
    grid: tuple[tuple[str, tuple[Any, ...]], ...]

    def open(self) -> KernelFile:
        from sassview.steer.sweep import open_kernel_file, with_grid

        kernel_file = open_kernel_file(Path(self.path), self.archs, "sweep", self.build)
        return with_grid(kernel_file, dict(self.grid))


@dataclass(frozen=True)
class Compiled:
    """What a task says of its job: where it ran, its error if any (the parent meets the
    error again, with its full message, when it reads the job)."""

    job: Job
    host: str
    cache_url: str
    error: str | None


@memoized(8)
def _opened(recipe: Recipe) -> KernelFile:
    return recipe.open()  # a kernel.py is imported once per worker process, not per task


def compile_on_worker(recipe: Recipe, job: Job) -> Compiled:
    """The task: compile and disassemble one job into this worker's cache."""
    from sassview.api import compile_job
    from sassview.disasm import disassemble

    error = None
    try:
        disassemble(compile_job(_opened(recipe), job).cubin)
    except SassviewError as exc:
        error = exc.message
    return Compiled(job, socket.gethostname(), os.environ.get("SASSVIEW_CACHE_URL", ""), error)


def cluster_address(given: str | None) -> str | None:
    """--cluster, else $SASSVIEW_CLUSTER, else None (the local pool)."""
    return given or os.environ.get(CLUSTER_ENV) or None


def warm_on_cluster(
    address: str,
    recipe: Recipe,
    jobs: Sequence[Job],
    progress: Callable[[Job], None] | None = None,
) -> list[Compiled]:
    """Run every job as a task on the cluster at `address`; return when all have finished
    (their errors included), or cancel what is left and re-raise on anything else."""
    client = _connect(address)
    try:
        futures = [
            client.submit(
                compile_on_worker, recipe, job, key=f"sassview-{i}-{_key(job)}", pure=False
            )
            for i, job in enumerate(jobs)
        ]
        done = []
        try:
            from distributed import as_completed

            for future in as_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]
                compiled: Compiled = future.result()
                done.append(compiled)
                if progress is not None:
                    progress(compiled.job)
        except BaseException:
            client.cancel(futures)  # Ctrl-C, SIGTERM, a lost scheduler: nothing left queued
            raise
        return done
    finally:
        client.close()


def unshared_cache_note(done: Sequence[Compiled]) -> str | None:
    """A warning when workers on other machines compiled into caches this one cannot read."""
    here, url = socket.gethostname(), os.environ.get("SASSVIEW_CACHE_URL", "")
    away = sorted({c.host for c in done if c.host != here and (not url or c.cache_url != url)})
    if not away:
        return None
    return (
        f"warning: workers on {', '.join(away)} compiled into caches this machine does not read, "
        "so each variant is compiled again here; set SASSVIEW_CACHE_URL to one store for the "
        "workers and this machine (docs/cli.md)"
    )


def _connect(address: str) -> Any:
    try:
        from distributed import Client
    except ImportError as exc:
        raise ToolchainError(
            f"--cluster needs Dask's distributed ({exc.name} is missing)",
            "pip install 'sassview[agents]' (or: pip install distributed)",
        ) from None
    try:
        return Client(address, timeout=_timeout(), set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise InputError(
            f"no Dask scheduler answered at {address}: {exc}",
            "start one (`dask scheduler`, then `dask worker ADDRESS`) or give its address as "
            "--cluster tcp://HOST:8786 (or $SASSVIEW_CLUSTER)",
        ) from None


def _timeout() -> float:
    text = os.environ.get("SASSVIEW_CLUSTER_TIMEOUT", "")
    return float(text) if text.replace(".", "", 1).isdigit() else 30.0


def _key(job: Job) -> str:
    variant = "-".join(f"{k}={v}" for k, v in sorted(job.variant.items()))
    return f"{job.declaration}-{job.arch}-{variant}".replace(" ", "")


def recipe_for(
    path: Path, archs: Sequence[str] | None, build: BuildOptions | None,
    grid: Mapping[str, tuple[Any, ...]],
) -> Recipe:  # fmt: skip
    return Recipe(str(path.resolve()), tuple(archs) if archs else None, build, tuple(grid.items()))
