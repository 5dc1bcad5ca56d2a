// The app launches the library's transpose with its block spelled as locals near the launch.
#include <cstdio>

#include <cuda_runtime.h>

#include "ops/config.cuh"

namespace ops {
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int n);
}

__global__ void scale_rows(float* __restrict__ data, int n, float by) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) data[row * n + col] *= by;
}

int main() {
  const int n = 1024;
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * n * sizeof(float));
  cudaMalloc(&out, n * n * sizeof(float));
  dim3 const block_dim{32U, 8U, 1U};
  dim3 grid_dim(n / 32, n / 32);
  for (int r = 0; r < APP_REPEATS; ++r) scale_rows<<<grid_dim, block_dim>>>(in, n, 0.5f);
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
