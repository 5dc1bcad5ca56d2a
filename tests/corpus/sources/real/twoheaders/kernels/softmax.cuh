// Row softmax, one block per row, in the same project's kernel directory.
#pragma once
#include "common/launch.cuh"

__global__ void __launch_bounds__(BLOCK_THREADS) softmax_rows(const float* in, float* out,
                                                              int cols) {
    __shared__ float partial[BLOCK_THREADS / 32];
    const float* row = in + blockIdx.x * cols;
    float top = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += BLOCK_THREADS) top = fmaxf(top, row[c]);
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK_THREADS) sum += __expf(row[c] - top);
    sum = warp_sum(sum);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < BLOCK_THREADS / 32; ++w) total += partial[w];
    for (int c = threadIdx.x; c < cols; c += BLOCK_THREADS)
        out[blockIdx.x * cols + c] = __expf(row[c] - top) / total;
}
