// Step 3: 2-D register blocking. A 128x128 block tile, 8x8 outputs per thread, float4 loads
// from global into shared memory and float4 reads of shared memory.
// Expect: LDG.E.128 and LDS.128, 64 FFMA per k step, no spills.
// Assumes M, N, K multiples of 128 / 8 and 16-byte aligned rows (as cudaMalloc gives).
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
extern "C" __global__ void __launch_bounds__(256)
matmul_regblock(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K) {
  __shared__ __align__(16) float As[BK][BM];  // A tile, transposed: As[k][m]
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int trow = tid / (BN / TN), tcol = tid % (BN / TN);
  const float* a = A + blockIdx.y * BM * K;
  const float* b = B + blockIdx.x * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    // 128x8 of A: one float4 per thread, stored transposed.
    float4 va = reinterpret_cast<const float4*>(a + (tid / 2) * K + k0)[tid % 2];
    As[(tid % 2) * 4 + 0][tid / 2] = va.x;
    As[(tid % 2) * 4 + 1][tid / 2] = va.y;
    As[(tid % 2) * 4 + 2][tid / 2] = va.z;
    As[(tid % 2) * 4 + 3][tid / 2] = va.w;
    // 8x128 of B: one float4 per thread.
    reinterpret_cast<float4*>(&Bs[tid / 32][0])[tid % 32] =
        reinterpret_cast<const float4*>(b + (k0 + tid / 32) * N)[tid % 32];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(&ra[i]) = *reinterpret_cast<const float4*>(&As[k][trow * TM + i]);
#pragma unroll
      for (int j = 0; j < TN; j += 4)
        *reinterpret_cast<float4*>(&rb[j]) = *reinterpret_cast<const float4*>(&Bs[k][tcol * TN + j]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
  float* c = C + (blockIdx.y * BM + trow * TM) * N + blockIdx.x * BN + tcol * TN;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      *reinterpret_cast<float4*>(&c[i * N + j]) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}
