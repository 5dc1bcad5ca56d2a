// The project's one translation unit: its kernels come from two headers under kernels/,
// found through the build's -I (see compile_commands.json), and host code launches them.
#include <cstdio>
#include <cuda_runtime.h>

#include "gemv.cuh"
#include "softmax.cuh"

int main() {
    const int rows = 256, cols = 1024;
    float *A, *x, *y;
    cudaMalloc(&A, rows * cols * sizeof(float));
    cudaMalloc(&x, cols * sizeof(float));
    cudaMalloc(&y, rows * sizeof(float));
    gemv_rows<<<rows / (BLOCK_THREADS / 32), BLOCK_THREADS>>>(A, x, y, rows, cols);
    softmax_rows<<<rows, BLOCK_THREADS>>>(A, A, cols);
    cudaDeviceSynchronize();
    std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
