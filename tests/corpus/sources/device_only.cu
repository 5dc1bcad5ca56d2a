// Device code only: NVRTC and nvcc both compile it, to the same SASS.
#include <cuda_fp16.h>

__global__ void blend(const __half* a, const float* b, float* out, float t, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? __half2float(a[i]) : 0.0f;
    __syncthreads();
    float acc = 0.0f;
#pragma unroll 4
    for (int k = 0; k < 16; ++k) {
        acc += tile[(threadIdx.x + k) % 256] * t;
    }
    if (i < n) out[i] = acc + b[i];
}

template <int N>
__global__ void stencil(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + N;
    float s = 0.0f;
    for (int k = -N; k <= N; ++k) s += in[i + k];
    out[i] = s / (2 * N + 1);
}

template __global__ void stencil<3>(const float*, float*);
