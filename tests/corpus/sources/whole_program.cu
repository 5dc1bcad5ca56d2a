// A whole CUDA program as a tutorial writes one: host headers, main, cudaMalloc and launches of
// template kernels. NVRTC refuses it (<cstdio>, host code); sassview compiles it with nvcc.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

template <int TILE, int STEPS, typename T>
__global__ void axpy_tiles(T alpha, const T* x, T* y, int n) {
    int base = (blockIdx.x * TILE + threadIdx.x) * STEPS;
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
        int i = base + s;
        if (i < n) y[i] = alpha * x[i] + y[i];
    }
}

template <typename T>
__global__ void fill(T* out, T value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

int main() {
    const int n = 1 << 16;
    std::vector<float> host(n, 1.0f);
    float *x = nullptr, *y = nullptr;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    fill<float><<<n / 256, 256>>>(y, 0.0f, n);
    axpy_tiles<128, 4, float><<<n / 512, 128>>>(2.0f, x, y, n);
    axpy_tiles<64, 8, double><<<1, 64>>>(2.0, nullptr, nullptr, 0);
    cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("y[0] = %f\n", host[0]);
    cudaFree(x);
    cudaFree(y);
    return 0;
}
