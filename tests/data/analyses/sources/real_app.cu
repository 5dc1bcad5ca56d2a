// A whole program using the CUDA libraries the way applications do: cooperative groups
// reductions in a templated softmax, WMMA fragments from global memory, cp.async double
// buffering with the pipeline primitives. Its memory use is checked by hand in
// tests/test_real_memory.py (the blocks are main()'s launches).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_pipeline.h>
#include <cstdio>
namespace cg = cooperative_groups;
using namespace nvcuda;

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
    const float* row = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    __shared__ float red[BLOCK / 32];
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, row[c]);
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    m = cg::reduce(warp, m, cg::greater<float>());
    if (warp.thread_rank() == 0) red[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < BLOCK / 32 ? red[threadIdx.x] : -INFINITY;
        v = cg::reduce(warp, v, cg::greater<float>());
        if (threadIdx.x == 0) red[0] = v;
    }
    __syncthreads();
    m = red[0];
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) s += __expf(row[c] - m);
    s = cg::reduce(warp, s, cg::plus<float>());
    for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = __expf(row[c] - m) / s;
}

// WMMA 16x16x16 half GEMM, one warp per 16x16 output tile.
__global__ void wmma_gemm(const half* A, const half* B, float* C, int M, int N, int K) {
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int warpN = blockIdx.y;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + warpM * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + warpN * 16 * K + k, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + warpM * 16 * N + warpN * 16, acc, N, wmma::mem_row_major);
}

// Double-buffered copy through shared memory with the pipeline primitives (cp.async).
__global__ void __launch_bounds__(256) staged_scale(const float4* __restrict__ in, float4* __restrict__ out, int tiles) {
    __shared__ float4 buf[2][256];
    __pipeline_memcpy_async(&buf[0][threadIdx.x], &in[threadIdx.x], sizeof(float4));
    __pipeline_commit();
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles)
            __pipeline_memcpy_async(&buf[(t + 1) & 1][threadIdx.x], &in[(t + 1) * 256 + threadIdx.x], sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 v = buf[t & 1][threadIdx.x];
        v.x *= 2.f; v.y *= 2.f; v.z *= 2.f; v.w *= 2.f;
        out[t * 256 + threadIdx.x] = v;
        __syncthreads();
    }
}

int main() {
    float *x, *y; half *a, *b;
    cudaMalloc(&x, 1 << 24); cudaMalloc(&y, 1 << 24); cudaMalloc(&a, 1 << 22); cudaMalloc(&b, 1 << 22);
    softmax_rows<256><<<1024, 256>>>(x, y, 4096);
    wmma_gemm<<<dim3(8, 64), 128>>>(a, b, y, 1024, 1024, 1024);
    staged_scale<<<1, 256>>>((float4*)x, (float4*)y, 16);
    cudaDeviceSynchronize();
    printf("done\n");
}
