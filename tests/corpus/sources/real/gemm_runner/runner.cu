// A tutorial-style SGEMM runner: a templated tiled kernel, launched from a host function
// template per tile configuration, with std::vector buffers and <algorithm> on the host.
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

template <int BM, int BN, int BK, int TM>
__global__ void sgemm_tiled(int M, int N, int K, const float* A, const float* B, float* C) {
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int row0 = blockIdx.y * BM;
    const int col = blockIdx.x * BN + threadIdx.x % BN;
    const int rows = threadIdx.x / BN * TM;
    float acc[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x)
            As[i] = A[(row0 + i / BK) * K + k0 + i % BK];
        for (int i = threadIdx.x; i < BK * BN; i += blockDim.x)
            Bs[i] = B[(k0 + i / BN) * N + blockIdx.x * BN + i % BN];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k * BN + threadIdx.x % BN];
#pragma unroll
            for (int m = 0; m < TM; ++m) acc[m] += As[(rows + m) * BK + k] * b;
        }
        __syncthreads();
    }
    for (int m = 0; m < TM; ++m) C[(row0 + rows + m) * N + col] = acc[m];
}

template <int BM, int BN, int BK, int TM>
void run_sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
    dim3 grid(N / BN, M / BM);
    sgemm_tiled<BM, BN, BK, TM><<<grid, BM * BN / TM>>>(M, N, K, A, B, C);
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 512;
    std::vector<float> host(n * n);
    std::generate(host.begin(), host.end(), [i = 0]() mutable { return float(i++ % 7); });
    float *a, *b, *c;
    cudaMalloc(&a, host.size() * sizeof(float));
    cudaMalloc(&b, host.size() * sizeof(float));
    cudaMalloc(&c, host.size() * sizeof(float));
    cudaMemcpy(a, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(b, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
    if (n >= 1024)
        run_sgemm<128, 128, 8, 8>(n, n, n, a, b, c);
    else
        run_sgemm<64, 64, 8, 4>(n, n, n, a, b, c);
    cudaMemcpy(host.data(), c, host.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("max %f\n", *std::max_element(host.begin(), host.end()));
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
