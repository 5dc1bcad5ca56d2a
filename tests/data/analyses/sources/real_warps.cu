// Warps that compute their own place, as application code does: a warp per row from the
// signed global index (`warp = gid / 32`, `lane = gid % 32`), a warp-per-row layernorm-style
// pass with a two-level reduction through shared memory, tiles of 16 threads whose rank 0
// writes, the classic block sum whose thread 0 writes after the loops, and WMMA fragments
// loaded from a padded shared tile with a leading dimension. Its memory use is checked by hand in
// tests/test_real_memory.py (the blocks are main()'s launches).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
namespace cg = cooperative_groups;
using namespace nvcuda;

// One warp per row: the warp id and lane from the signed global index.
__global__ void warp_rows(const float* __restrict__ a, float* __restrict__ out, int n, int rows) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = gid / 32;
    int lane = gid % 32;
    if (warp >= rows) return;
    float s = 0.f;
    for (int j = lane; j < n; j += 32) s += a[warp * n + j];
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0) out[warp] = s;
}

// Rows scaled by their warp's mean: the warp within the block from threadIdx.x (signed), each
// warp's partial sums staged in shared memory, then read back by warp 0.
__global__ void warp_scale(const float* __restrict__ x, float* __restrict__ y, int n) {
    __shared__ float partial[8];
    int tid = threadIdx.x;
    int warp = tid / 32, lane = tid % 32;
    const float* row = x + (size_t)blockIdx.x * n;
    float s = 0.f;
    for (int j = tid; j < n; j += 256) s += row[j];
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0) partial[warp] = s;
    __syncthreads();
    float total = lane < 8 ? partial[lane] : 0.f;
    for (int o = 4; o > 0; o /= 2) total += __shfl_xor_sync(0xffffffff, total, o);
    float mean = total / n;
    for (int j = tid; j < n; j += 256) y[(size_t)blockIdx.x * n + j] = row[j] - mean;
}

// Sums of 16 consecutive values by tiles of 16 threads: each tile's rank 0 writes its sum.
__global__ void tile16_sums(const float* __restrict__ x, float* __restrict__ out) {
    auto t16 = cg::tiled_partition<16>(cg::this_thread_block());
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float v = cg::reduce(t16, x[gid], cg::plus<float>());
    if (t16.thread_rank() == 0) out[gid / 16] = v;
}

// The classic block sum: two loads a thread, a tree in shared memory while more than a warp
// is left, the last warp unrolled through a volatile pointer, thread 0 writes.
__global__ void block_sum(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile float* w = sdata;
        w[tid] += w[tid + 32]; w[tid] += w[tid + 16]; w[tid] += w[tid + 8];
        w[tid] += w[tid + 4]; w[tid] += w[tid + 2]; w[tid] += w[tid + 1];
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// WMMA from shared memory: a 16x16 half tile per warp, padded to 24 halves a row (the
// leading dimension), stored by the warp's lanes, then loaded as matrix_a and matrix_b.
#define LDS 24
__global__ void wmma_shared(const half* __restrict__ A, const half* __restrict__ B, float* C) {
    __shared__ half As[4][16 * LDS];
    __shared__ half Bs[4][16 * LDS];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const half* a = A + (blockIdx.x * 4 + warp) * 256;
    const half* b = B + (blockIdx.x * 4 + warp) * 256;
    for (int e = lane; e < 256; e += 32) {
        As[warp][(e / 16) * LDS + e % 16] = a[e];
        Bs[warp][(e / 16) * LDS + e % 16] = b[e];
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    wmma::load_matrix_sync(fa, As[warp], LDS);
    wmma::load_matrix_sync(fb, Bs[warp], LDS);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(C + (blockIdx.x * 4 + warp) * 256, acc, 16, wmma::mem_row_major);
}

int main() {
    float *x, *y; half *a, *b;
    cudaMalloc(&x, 1 << 24); cudaMalloc(&y, 1 << 24); cudaMalloc(&a, 1 << 22); cudaMalloc(&b, 1 << 22);
    warp_rows<<<512, 256>>>(x, y, 1024, 4096);
    warp_scale<<<1024, 256>>>(x, y, 4096);
    wmma_shared<<<64, 128>>>(a, b, y);
    tile16_sums<<<1024, 256>>>(x, y);
    block_sum<<<1024, 256, 256 * sizeof(float)>>>(x, y, 1u << 20);
    cudaDeviceSynchronize();
    printf("done\n");
}
