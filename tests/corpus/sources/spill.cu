// Compiled with -maxrregcount=32: 64 live accumulators cannot fit, so ptxas spills.
// local_array uses a dynamically indexed array, which lives in local memory without spilling.
__global__ void spill(const float* in, float* out, int n) {
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

__global__ void local_array(const int* idx, float* out) {
  float table[32];
  for (int i = 0; i < 32; ++i) table[i] = i * 0.5f;
  out[threadIdx.x] = table[idx[threadIdx.x] & 31];
}
