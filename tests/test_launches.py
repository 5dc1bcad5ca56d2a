"""The block a kernel is launched with, read from its file's host code (analyses/launches.py),
and the memory analyses counting warp 0 of it when no --block says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

import sassview as sv
from sassview.analyses import bank_conflicts, coalescing
from sassview.analyses.base import AnalysisContext
from sassview.analyses.launches import launch_shape

HOST = """
#define TILE 16
constexpr int ROWS = TILE / 2;
static const unsigned THREADS = 128u;
template <int T, int R> __global__ void tile_kernel(float* p);
__global__ void flat(float* p);
__global__ void twice(float* p);
__global__ void runtime(float* p);
int main(int argc, char** argv) {
    float* p = nullptr;
    dim3 block(TILE, ROWS);   // a dim3 variable of constants
    tile_kernel<TILE, ROWS><<<dim3(64, 64), block>>>(p);
    tile_kernel<32, 8><<<dim3(64, 64), dim3{32, 8, 1}, 0>>>(p);
    // flat<<<1, 64>>>(p);  a launch in a comment is not one
    flat<<<(1 << 20) / THREADS, THREADS, 0, 0>>>(p);
    twice<<<8, dim3(16, 16)>>>(p);
    twice<<<8, dim3(8, 32)>>>(p);
    runtime<<<8, argc * 32>>>(p);
}
"""


def test_a_launch_evaluates_from_literals_macros_constants_and_dim3_variables() -> None:
    found = launch_shape(HOST, "tile_kernel<16, 8>(float*)")
    assert found is not None and (found.dims, found.line) == ((16, 8, 1), 12)
    other = launch_shape(HOST, "tile_kernel<32, 8>(float*)")  # its own launch, by the arguments
    assert other is not None and other.dims == (32, 8, 1)
    flat = launch_shape(HOST, "flat(float*)")
    assert flat is not None and (flat.dims, flat.line) == ((128, 1, 1), 15)


def test_launches_that_disagree_or_are_known_at_run_time_give_no_shape() -> None:
    twice = launch_shape(HOST, "twice(float*)")
    assert twice is not None and twice.dims is None
    assert twice.reason == "launched with 16x16x1 (line 16), 8x32x1 (line 17)"
    runtime = launch_shape(HOST, "runtime(float*)")
    assert runtime is not None and runtime.dims is None
    assert runtime.reason == "the launch at line 18 has a run-time block"
    assert launch_shape(HOST, "never_launched(float*)") is None


STENCIL = """
#define W 16
__global__ void rows(const float* __restrict__ in, float* __restrict__ out) {
    __shared__ float t[W][W + 2];
    t[threadIdx.y][threadIdx.x + 1] = in[threadIdx.y * 1024 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 1024 + threadIdx.x] = t[threadIdx.y][threadIdx.x];
}
void run(const float* in, float* out) { rows<<<1, dim3(W, W)>>>(in, out); }
"""


@pytest.mark.compile
def test_the_memory_analyses_count_warp_0_of_the_launched_block(tmp_path: Path) -> None:
    # t[16][18] by a 16x16 block: warp 0 is two rows of 16, 18 words apart: banks 1-16 and
    # 19-31, 0-2 share banks 1 and 2 (2-way). Taken as 32 consecutive threadIdx.x (the
    # default) it would be one row: no conflict. The global rows: 2 sectors each, 4 in all.
    source = tmp_path / "rows.cu"
    source.write_text(STENCIL)
    prog = sv.compile(path=source, arch="sm_90a")
    (k,) = prog.kernels
    ctx = AnalysisContext(prog, k, None, (), None)  # type: ignore[arg-type]
    shared = bank_conflicts.run(ctx).facts
    assert shared["block"] == "one warp of a 16x16x1 block (from the launch at rows.cu:9)"
    assert {(a["direction"], a["ways"]) for a in shared["accesses"]} == {
        ("store", 2),
        ("load", 2),
    }
    glob = coalescing.run(ctx).facts["accesses"]
    assert {(a["direction"], a["sectors"], a["stride"]) for a in glob} == {
        ("load", 4, None),
        ("store", 4, None),
    }


def test_a_mangled_name_matches_its_own_instantiations_launch() -> None:
    # Listings read without a demangler keep the symbol: the identifier is matched, and the
    # simple template arguments are read from it (`ILi16ELi8EE`: <16, 8>), so the
    # instantiation is told apart as by its demangled name; arguments not read (a pointer
    # type) leave every launch of the name, which must then agree.
    flat = launch_shape(HOST, "_Z4flatPf")
    assert flat is not None and flat.dims == (128, 1, 1)
    own = launch_shape(HOST, "_Z11tile_kernelILi16ELi8EEvPf")
    assert own is not None and own.dims == (16, 8, 1)
    both = launch_shape(HOST, "_Z11tile_kernelIPfLi8EEvPf")  # not read: 16x8 and 32x8
    assert both is not None and both.dims is None and "launched with" in both.reason


@pytest.mark.compile
def test_occupancy_reads_the_launched_block_size(tmp_path: Path) -> None:
    # No __launch_bounds__: occupancy used to sweep 64..1024 threads; the launch says 16x16.
    from sassview.analyses import occupancy

    source = tmp_path / "rows.cu"
    source.write_text(STENCIL)
    prog = sv.compile(path=source, arch="sm_90a")
    (k,) = prog.kernels
    facts = occupancy.run(AnalysisContext(prog, k, None, (), None)).facts  # type: ignore[arg-type]
    assert facts["block_source"] == "launch"
    assert [p["threads"] for p in facts["points"]] == [256]
    assert facts["text"].endswith("(as launched at rows.cu:9)")


def test_a_launch_reads_macros_as_the_preprocessor_leaves_them() -> None:
    # -DBLOCK=128: an #ifndef-guarded default yields to it, a plain #define replaces it
    # (as the compiler does, with its warning #47-D), and a macro of macros follows.
    guarded = (
        "#ifndef BLOCK\n#define BLOCK 256\n#endif\n#define HALF (BLOCK / 2)\n"
        "__global__ void k(float* p);\nvoid run(float* p) { k<<<8, HALF>>>(p); }\n"
    )
    found = launch_shape(guarded, "k(float*)", ("-DBLOCK=128",))
    assert found is not None and found.dims == (64, 1, 1)
    plain = guarded.replace("#ifndef BLOCK\n", "").replace("#endif\n", "")
    found = launch_shape(plain, "k(float*)", ("-DBLOCK=128",))
    assert found is not None and found.dims == (128, 1, 1)
    found = launch_shape(guarded, "k(float*)")
    assert found is not None and found.dims == (128, 1, 1)
