"""`sassview sweep --cluster`: the variants run as tasks on a Dask cluster (a loopback
LocalCluster of two worker processes here), and the table is the local sweep's."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_clean_error, run_sassview

distributed = pytest.importorskip("distributed", reason="Dask (pip install 'sassview[agents]')")
pytestmark = pytest.mark.compile

KERNEL = """\
#ifndef TILE
#define TILE 4
#endif
extern "C" __global__ void scale(float* x, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * TILE;
#pragma unroll
  for (int j = 0; j < TILE; ++j)
    if (i + j < n) x[i + j] *= 2.0f;
}
"""


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        env={"SASSVIEW_CACHE_DIR": str(tmp_path / "worker-cache")},
    ) as local:  # fmt: skip
        yield local


def _rows(done: Any) -> list[dict[str, Any]]:
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    return [{k: r[k] for k in ("label", "arch", "kernel", "values", "delta")} for r in rows]


def _sassview_tasks(client: Any) -> set[str]:
    """The keys of this sweep's tasks the scheduler took to `memory` (ran and finished)."""

    def finished(dask_scheduler: Any) -> list[str]:
        return [str(e[0]) for e in dask_scheduler.transition_log if e[2] == "memory"]

    return {k for k in client.run_on_scheduler(finished) if k.startswith("sassview-")}


def test_a_sweep_on_a_cluster_is_the_local_sweep(tmp_path: Path, cluster: Any) -> None:
    source = tmp_path / "tile.cu"
    source.write_text(KERNEL)
    args = ("sweep", source, "-p", "TILE=2,4", "--arch", "sm_80,sm_90a", "--json")
    local = _rows(run_sassview(*args))
    remote = _rows(run_sassview(*args, "--cluster", cluster.scheduler_address))
    assert remote == local
    with distributed.Client(cluster) as client:
        assert len(_sassview_tasks(client)) == 4  # every variant ran on a worker


def test_a_worker_killed_mid_sweep_has_its_variants_run_elsewhere(
    tmp_path: Path, cluster: Any
) -> None:
    import subprocess
    import sys

    source = tmp_path / "tile.cu"
    source.write_text(KERNEL)
    args = ["sweep", str(source), "-p", "TILE=1,2,3,4,5", "--json"]
    sweep = subprocess.Popen(
        [sys.executable, "-m", "sassview", *args, "--cluster", cluster.scheduler_address],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    with distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        for _ in range(6000):  # until the first variant is in (an event, not a duration)
            if _sassview_tasks(client) or sweep.poll() is not None:
                break
            client.run_on_scheduler(lambda: None)  # a round trip: ~ms, bounded by the count
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        out, err = sweep.communicate(timeout=600)
    assert sweep.returncode == 0, err
    got = [r["label"] for r in json.loads(out)["rows"]]
    assert got == [f"tile.cu [TILE={t}]" for t in range(1, 6)]


def test_workers_share_the_remote_cache_so_nothing_compiles_twice(tmp_path: Path) -> None:
    url = (tmp_path / "remote").as_uri()
    source = tmp_path / "tile.cu"
    source.write_text(KERNEL)
    workers = {"SASSVIEW_CACHE_DIR": str(tmp_path / "workers"), "SASSVIEW_CACHE_URL": url}
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, env=workers
    ) as local:
        here = {"SASSVIEW_CACHE_DIR": str(tmp_path / "here"), "SASSVIEW_CACHE_URL": url}
        done = run_sassview(
            "-v", "sweep", source, "-p", "TILE=2,4", "--json", "--cluster",
            local.scheduler_address, env=here,
        )  # fmt: skip
    assert len(_rows(done)) == 2
    assert "nvrtc: compiled" not in done.stderr  # this machine compiled none of them
    assert done.stderr.count("served by the remote cache") >= 2


def test_no_scheduler_at_the_address_is_one_clear_error(tmp_path: Path) -> None:
    source = tmp_path / "tile.cu"
    source.write_text(KERNEL)
    done = run_sassview(
        "sweep", source, "-p", "TILE=2", "--cluster", "tcp://127.0.0.1:9",
        env={"SASSVIEW_CLUSTER_TIMEOUT": "2"},
    )  # fmt: skip
    assert_clean_error(done, "no Dask scheduler answered at tcp://127.0.0.1:9", "--cluster")
