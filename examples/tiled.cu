// A shared-memory tile summed by a loop with a run-time trip count, unrolled by 4.
#define TILE 256
__global__ void tiled_sum(const float* __restrict__ in, float* __restrict__ out, int rounds) {
  __shared__ float tile[TILE];
  tile[threadIdx.x] = in[blockIdx.x * TILE + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll 4
  for (int r = 0; r < rounds; ++r) {
    acc += tile[(threadIdx.x + r) % TILE];
  }
  __syncthreads();
  out[blockIdx.x * TILE + threadIdx.x] = acc;
}
