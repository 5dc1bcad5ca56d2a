// 64 live accumulators. Under -maxrregcount=32 they cannot all stay in registers, so ptxas
// spills; without the cap the kernel fits.
__global__ void accumulate(const float* in, float* out, int n) {
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x * 64 + i];
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = acc[i] * acc[(i + 7) % 64] + 1.0f;
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += acc[i];
  out[threadIdx.x] = s;
}
