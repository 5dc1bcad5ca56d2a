// A transpose whose tile rows are written as float4: each row must start on a 16-byte
// boundary, so its length (TILE + PAD floats) must be a multiple of 4, which the
// static_assert says. The column read is a 32-way bank conflict at PAD=0, and padding's
// usual cure, PAD=1 (33-float rows), breaks the float4 rows: it does not compile. A hint
// that offers PAD=1 as the fix is wrong here; tried, it must say so.
#ifndef PAD
#define PAD 0
#endif
#define TILE 32

__global__ void transpose_vec(const float4* __restrict__ in, float* __restrict__ out, int n) {
  static_assert((TILE + PAD) % 4 == 0, "tile rows are written as float4: 16-byte aligned");
  __shared__ __align__(16) float tile[TILE][TILE + PAD];
  int row = blockIdx.y * TILE + threadIdx.y;
  // 8 threads a row, 4 floats each: threadIdx.x < 8
  reinterpret_cast<float4*>(tile[threadIdx.y])[threadIdx.x] = in[(row * n) / 4 + threadIdx.x];
  __syncthreads();
  int x = blockIdx.y * TILE + threadIdx.x, y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
