// Row softmax, one warp per row: needs the project's -std=c++20 (a concept), TILE_DIM and
// TILES_ROWS_PER_BLOCK (-D), the include directory and --expt-relaxed-constexpr (a constexpr
// host function called on the device).
#include <concepts>

#include "ops/config.cuh"

namespace ops {
template <typename T>
concept Floating = std::floating_point<T>;

constexpr float scale_for(int cols) { return cols > 0 ? 1.0f / cols : 0.0f; }
}  // namespace ops

#include "ops/reduce.cuh"

namespace ops {

__global__ void softmax(const float* __restrict__ in, float* __restrict__ out, int cols) {
  int row = blockIdx.x * TILES_ROWS_PER_BLOCK + threadIdx.y;
  const float* x = in + row * cols;
  float m = -1e30f;
  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, x[c]);
  m = warp_max(m);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += __expf(x[c] - m);
  s = warp_sum(s) * scale_for(1);
  for (int c = threadIdx.x; c < cols; c += 32) out[row * cols + c] = __expf(x[c] - m) / s;
}

}  // namespace ops
