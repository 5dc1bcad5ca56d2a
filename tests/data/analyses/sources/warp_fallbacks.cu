// Warp-level reductions as library code writes them: where ptxas cannot prove the warp
// converged (a lane-dependent branch, a tile narrower than the warp) BRA.DIV picks a copy laid
// after the EXIT; beside them cooperative groups' coalesced group and CUB's block reduction.
// Every loop claim checked by hand in tests/test_real_loops.py.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// cg::reduce over a 32-thread tile in a branch: 5 shuffle steps (the header's loop).
__global__ void tile32_in_branch(const float* x, float* out) {
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    float v = x[threadIdx.x];
    if (threadIdx.x < 32) {
        v = cg::reduce(warp, v, cg::plus<float>());
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
}

// cg::reduce over a 16-thread tile in a branch: 4 shuffle steps.
__global__ void tile16_in_branch(const float* x, float* out) {
    auto half = cg::tiled_partition<16>(cg::this_thread_block());
    float v = x[threadIdx.x];
    if (threadIdx.x < 64) {
        v = cg::reduce(half, v, cg::greater<float>());
        if (half.thread_rank() == 0) out[threadIdx.x / 16] = v;
    }
}

// The hand-written butterfly: a constant loop of __shfl_xor_sync, in a branch.
__global__ void shfl_loop_in_branch(const float* x, float* out, int n) {
    float v = x[threadIdx.x];
    if (threadIdx.x < n) {
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    out[threadIdx.x] = v;
}

// A shuffle in a loop ptxas must keep rolled: the trip count is a kernel argument.
__global__ void shfl_runtime_loop(const float* x, float* out, int steps) {
    float v = x[threadIdx.x];
    if (threadIdx.x < 48) {
#pragma unroll 1
        for (int s = 0; s < steps; ++s) v += __shfl_down_sync(0xffffffffu, v, 1);
    }
    out[threadIdx.x] = v;
}

// __reduce_add_sync (REDUX on sm_80 and later) in a branch, and a constant loop around it.
__global__ void redux_in_branch(const int* x, int* out) {
    int v = x[threadIdx.x];
    if (threadIdx.x < 32) {
        for (int r = 0; r < 3; ++r) v = __reduce_add_sync(0xffffffffu, v) + r;
    }
    out[threadIdx.x] = v;
}

// A tile reduction in a branch inside a run-time loop: the divergent copy jumps back into the
// loop's body, so it is part of the SASS loop.
__global__ void reduce_per_chunk(const float* x, float* out, int chunks) {
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    for (int c = 0; c < chunks; ++c) {
        float v = x[c * blockDim.x + threadIdx.x];
        if (threadIdx.x < 64) v = cg::reduce(tile, v, cg::plus<float>());
        if (tile.thread_rank() == 0) out[c * 8 + threadIdx.x / 16] = v;
    }
}

// A tile of 8 outside any branch: narrower than the warp, so still a BRA.DIV; 3 steps.
__global__ void tile8_reduce(const float* x, float* out) {
    auto t = cg::tiled_partition<8>(cg::this_thread_block());
    float v = cg::reduce(t, x[threadIdx.x], cg::plus<float>());
    if (t.thread_rank() == 0) out[threadIdx.x / 8] = v;
}

// The lanes a data-dependent branch leaves: cg::reduce takes the tile path when all 32 are
// there, else an inclusive scan over the mask (two run-time loops in coalesced_scan.h).
__global__ void coalesced_reduce(const float* x, float* out) {
    float v = x[threadIdx.x];
    if (v > 0.f) {
        auto g = cg::coalesced_threads();
        v = cg::reduce(g, v, cg::plus<float>());
        if (g.thread_rank() == 0) out[threadIdx.x / 32] = v;
    }
}

// CUB's block reduction after a block-stride loop: its warp reduction is template recursion
// over inline asm (no loop statement), the combine of the 4 warps' sums a loop in its header.
#include <cub/block/block_reduce.cuh>
__global__ void cub_block_sum(const float* x, float* out, int n) {
    using Reduce = cub::BlockReduce<float, 128>;
    __shared__ typename Reduce::TempStorage tmp;
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += 128) acc += x[i];
    float v = Reduce(tmp).Sum(acc);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Two values reduced in one butterfly, both shuffles on one line: 10 FADD for 5 steps.
__global__ void two_sums(const float* x, float* out) {
    float a = x[threadIdx.x], b = x[threadIdx.x + 128];
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(~0u, a, o), b += __shfl_xor_sync(~0u, b, o);
    out[threadIdx.x] = a * b;
}

// cg::reduce of a float2 (two shuffles a step) and of a Welford triple (three).
struct Add2 {
    __device__ float2 operator()(float2 p, float2 q) const { return make_float2(p.x + q.x, p.y + q.y); }
};
struct MeanVar { float mean, m2, n; };
struct Welford {
    __device__ MeanVar operator()(const MeanVar& a, const MeanVar& b) const {
        float n = a.n + b.n, d = b.mean - a.mean, r = b.n / n;
        return {a.mean + d * r, a.m2 + b.m2 + d * d * a.n * r, n};
    }
};
__global__ void struct_reduces(const float* x, float* out) {
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    float2 v = cg::reduce(warp, make_float2(x[threadIdx.x], x[threadIdx.x + 128]), Add2());
    MeanVar w = cg::reduce(warp, MeanVar{x[threadIdx.x], 0.f, 1.f}, Welford());
    out[threadIdx.x] = v.x * v.y + w.mean * w.m2;
}

int main() {
    float *x, *y;
    int *a, *b;
    cudaMalloc(&x, 4096);
    cudaMalloc(&y, 4096);
    cudaMalloc(&a, 4096);
    cudaMalloc(&b, 4096);
    tile32_in_branch<<<8, 128>>>(x, y);
    tile16_in_branch<<<8, 128>>>(x, y);
    shfl_loop_in_branch<<<8, 128>>>(x, y, 40);
    shfl_runtime_loop<<<8, 128>>>(x, y, 5);
    redux_in_branch<<<8, 128>>>(a, b);
    reduce_per_chunk<<<8, 128>>>(x, y, 16);
    tile8_reduce<<<8, 128>>>(x, y);
    coalesced_reduce<<<8, 128>>>(x, y);
    cub_block_sum<<<8, 128>>>(x, y, 4096);
    two_sums<<<8, 128>>>(x, y);
    struct_reduces<<<8, 128>>>(x, y);
    cudaDeviceSynchronize();
    return 0;
}
