#pragma once
// Warp and block reductions, and a kernel of their own. Relies on what its includer brings first:
// ops/config.cuh (ops::tile_dim) and the Floating concept.

namespace ops {

template <Floating T>
__device__ __forceinline__ T warp_max(T v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

template <Floating T>
__device__ __forceinline__ T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// One warp per row: the row's sum into out[row].
__global__ void row_sum(const float* __restrict__ in, float* __restrict__ out, int cols) {
  int row = blockIdx.x;
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) acc += in[row * cols + c];
  acc = warp_sum(acc);
  if (threadIdx.x == 0) out[row] = acc * (1.0f / tile_dim) * tile_dim;
}

}  // namespace ops
