// A whole program shaped like an SGEMM tutorial's runner (written here): register-tiled
// kernels instantiated for several tile shapes, launched from main with <<<>>>.
#include <cstdio>
#include <cuda_runtime.h>

template <int BM, int BN, int BK, int TM, int TN>
__global__ void sgemm_tiled(int M, int N, int K, const float* A, const float* B, float* C) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const float* a = A + blockIdx.y * BM * K;
  const float* b = B + blockIdx.x * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += blockDim.x)
      As[i % BK][i / BK] = a[(i / BK) * K + k0 + i % BK];
    for (int i = threadIdx.x; i < BK * BN; i += blockDim.x)
      Bs[i / BN][i % BN] = b[(k0 + i / BN) * N + i % BN];
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      for (int m = 0; m < TM; ++m)
        ra[m] = As[kk][ty * TM + m];
      for (int n = 0; n < TN; ++n)
        rb[n] = Bs[kk][tx * TN + n];
      for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; ++n)
          acc[m][n] += ra[m] * rb[n];
    }
    __syncthreads();
  }
  for (int m = 0; m < TM; ++m)
    for (int n = 0; n < TN; ++n)
      C[(blockIdx.y * BM + ty * TM + m) * N + blockIdx.x * BN + tx * TN + n] = acc[m][n];
}

__global__ void copy4(int n4, const float4* src, float4* dst) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x)
    dst[i] = src[i];
}

__device__ void copy_rows(const float4* src, float4* dst, int rows, int stride) {
  for (int r = 0; r < rows; ++r)
    dst[r * stride] = src[r * stride];
}

__global__ void copy_tile(const float4* src, float4* dst, int stride) {
  const int at = blockIdx.x * 4 * stride + threadIdx.x;
  copy_rows(src + at, dst + at, 4, stride);
}

__global__ void row_stats(int n, const float* x, const float* y, float* out) {
  const float* row = x + blockIdx.x * n;
  const float* other = y + blockIdx.x * n;
  float mx = -1e30f, sum = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    mx = fmaxf(mx, row[i]);
    sum += __expf(other[i]);
  }
  for (int o = 16; o > 0; o >>= 1) {
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
  }
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = mx; out[2 * blockIdx.x + 1] = sum; }
}

template <int BM, int BN, int BK, int TM, int TN>
void run(int n, const float* A, const float* B, float* C) {
  dim3 grid(n / BN, n / BM);
  sgemm_tiled<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN)>>>(n, n, n, A, B, C);
}

int main() {
  const int n = 1024;
  float *A, *B, *C;
  cudaMalloc(&A, n * n * sizeof(float));
  cudaMalloc(&B, n * n * sizeof(float));
  cudaMalloc(&C, n * n * sizeof(float));
  run<64, 64, 8, 8, 8>(n, A, B, C);
  run<128, 128, 8, 8, 4>(n, A, B, C);
  run<64, 64, 16, 4, 4>(n, A, B, C);
  copy4<<<256, 256>>>(n * n / 4, reinterpret_cast<const float4*>(A), reinterpret_cast<float4*>(C));
  copy_tile<<<n / 4, 256>>>(reinterpret_cast<const float4*>(A), reinterpret_cast<float4*>(C), 256);
  row_stats<<<n, 32>>>(n, A, B, C);
  cudaDeviceSynchronize();
  std::printf("done\n");
  cudaFree(A); cudaFree(B); cudaFree(C);
  return 0;
}
