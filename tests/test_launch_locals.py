"""The launch's block spelled as locals near the launch, read for memory use and occupancy;
`--block` feeds both rows, so they never disagree."""

from __future__ import annotations

import json

import pytest
from conftest import run_sassview as sassview
from helpers.kernels import CMAKE_PROJECT as PROJECT

from sassview.analyses.launches import launch_shape

APP = PROJECT / "app" / "main.cu"
SOURCE = """\
__global__ void scale_rows(float*, int, float);
__global__ void tiled(float*);
__global__ void strided(float*);
void run(float* a, cudaStream_t s) {
  dim3 const block_dim{32U, 8U, 1U};
  scale_rows<<<grid, block_dim>>>(a, 1, 2.f);
  const dim3 tile = dim3(16u, 16u);
  tiled<<<grid, tile, 0, s>>>(a);
  constexpr unsigned kThreads = 128UL;
  dim3 block(kThreads);
  strided<<<grid, block>>>(a);
}
"""


@pytest.mark.parametrize(
    ("kernel", "dims"),
    [
        ("scale_rows(float*, int, float)", (32, 8, 1)),
        ("tiled(float*)", (16, 16, 1)),
        ("strided(float*)", (128, 1, 1)),
    ],
)
def test_dim3_locals_with_const_braces_and_suffixes_are_read(
    kernel: str, dims: tuple[int, int, int]
) -> None:
    found = launch_shape(SOURCE, kernel)
    assert found is not None and found.dims == dims, found


def rows(*args: str) -> tuple[dict[str, object], dict[str, object]]:
    done = sassview("check", APP, "-k", "scale_rows", "--json", *args)
    assert done.returncode == 0, done.stderr
    analysis = json.loads(done.stdout)["programs"][0]["kernels"][0]["analysis"]
    return analysis["occupancy"], analysis["memory_use"]


@pytest.mark.compile
def test_memory_use_and_occupancy_take_one_block() -> None:
    occupancy, memory = rows()
    assert memory["block"] == "one warp of a 32x8x1 block (from the launch at main.cu:25)"
    assert occupancy["block_source"] == "launch"
    assert [p["threads"] for p in occupancy["points"]] == [256]  # type: ignore[union-attr]
    assert str(occupancy["text"]).endswith("(as launched at main.cu:25)")
    occupancy, memory = rows("--block", "8x8")
    assert memory["block"] == "one warp of a 8x8x1 block (from --block)"
    assert [p["threads"] for p in occupancy["points"]] == [64]  # type: ignore[union-attr]
    assert str(occupancy["text"]).endswith("(as --block 8x8x1)")
