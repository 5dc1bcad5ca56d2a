// Tiled transpose through shared memory, tile sizes from the build (ops/config.cuh).
#include "ops/config.cuh"

namespace ops {

__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[tile_dim][tile_dim + 1];
  int x = blockIdx.x * tile_dim + threadIdx.x;
  int y = blockIdx.y * tile_dim + threadIdx.y;
  for (int j = 0; j < tile_dim; j += block_rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * tile_dim + threadIdx.x;
  y = blockIdx.x * tile_dim + threadIdx.y;
  for (int j = 0; j < tile_dim; j += block_rows) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

}  // namespace ops
