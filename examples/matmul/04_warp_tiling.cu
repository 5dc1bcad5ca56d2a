// Step 4: warp tiling. The 128x128 block tile is split into 64x32 warp tiles (8 warps); each
// thread computes 8x8 outputs as a 2x2 grid of 4x4 sub-tiles, reading shared memory as float4.
// Expect: LDG.E.128 and LDS.128, 64 FFMA per k step, no spills, BAR.SYNC around each k tile.
// __launch_bounds__(256, 1): with (256) alone ptxas caps the kernel at 128 registers and spills;
// promising one block per SM lets it use ~160 and keep every accumulator in a register.
// Assumes M, N, K multiples of 128 and 16-byte aligned rows.
#define BM 128
#define BN 128
#define BK 16
#define WM 64
#define WN 32
extern "C" __global__ void __launch_bounds__(256, 1)
matmul_warptile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K) {
  __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m]
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;  // warp tile origin
  const int lm = (lane / 4) * 4, ln = (lane % 4) * 4;  // thread's 4x4 in each sub-tile
  const float* a = A + blockIdx.y * BM * K;
  const float* b = B + blockIdx.x * BN;
  float acc[2][2][4][4] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {  // 128x16 of A: two float4 per thread, stored transposed
      int idx = tid + r * 256, m = idx / 4, kk = (idx % 4) * 4;
      float4 v = *reinterpret_cast<const float4*>(a + m * K + k0 + kk);
      As[kk + 0][m] = v.x; As[kk + 1][m] = v.y; As[kk + 2][m] = v.z; As[kk + 3][m] = v.w;
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {  // 16x128 of B: two float4 per thread
      int idx = tid + r * 256, kk = idx / 32, n = (idx % 32) * 4;
      *reinterpret_cast<float4*>(&Bs[kk][n]) = *reinterpret_cast<const float4*>(b + (k0 + kk) * N + n);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float ra[2][4], rb[2][4];
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        *reinterpret_cast<float4*>(ra[s]) = *reinterpret_cast<const float4*>(&As[k][wm + s * 32 + lm]);
        *reinterpret_cast<float4*>(rb[s]) = *reinterpret_cast<const float4*>(&Bs[k][wn + s * 16 + ln]);
      }
#pragma unroll
      for (int sm = 0; sm < 2; ++sm)
#pragma unroll
        for (int sn = 0; sn < 2; ++sn)
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[sm][sn][i][j] += ra[sm][i] * rb[sn][j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int sm = 0; sm < 2; ++sm)
#pragma unroll
    for (int sn = 0; sn < 2; ++sn)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        int row = blockIdx.y * BM + wm + sm * 32 + lm + i, col = blockIdx.x * BN + wn + sn * 16 + ln;
        *reinterpret_cast<float4*>(&C[row * N + col]) =
            make_float4(acc[sm][sn][i][0], acc[sm][sn][i][1], acc[sm][sn][i][2], acc[sm][sn][i][3]);
      }
}
