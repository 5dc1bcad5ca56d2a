// y = A x, one warp per row: the kind of kernel a project keeps in a header of its own.
#pragma once
#include "common/launch.cuh"

__global__ void __launch_bounds__(BLOCK_THREADS) gemv_rows(const float* A, const float* x,
                                                           float* y, int rows, int cols) {
    const int row = blockIdx.x * (BLOCK_THREADS / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    float sum = 0.0f;
    for (int c = threadIdx.x % 32; c < cols; c += 32) sum += A[row * cols + c] * x[c];
    sum = warp_sum(sum);
    if (threadIdx.x % 32 == 0) y[row] = sum;
}
