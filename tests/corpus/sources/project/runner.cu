// A runner: host code that includes its kernels from headers and launches them.
#include <cstdio>

typedef float value_t;
#define WARPSIZE 32

#include "kernels/reduce.cuh"
#include "kernels/scale.cuh"

int main() {
    float *rows = nullptr, *sums = nullptr;
    cudaMalloc(&rows, 64 * 256 * sizeof(float));
    cudaMalloc(&sums, 64 * sizeof(float));
    scale_rows<256><<<64, 256>>>(rows, 0.5f, 256);
    warp_sum<<<64 * 256 / WARPSIZE, WARPSIZE>>>(rows, sums);
    cudaDeviceSynchronize();
    std::printf("done\n");
    return 0;
}
