// A tiled transpose that also writes the tile's diagonal. Unpadded, the column read (line 17)
// is 32-way conflicted and the diagonal read (line 18) is conflict-free; PAD=1 makes the rows
// 33 words long: the column read is then conflict-free, but the diagonal's lanes land 34 words
// apart, two to a bank. The knob moves the conflict to another line: it does not remove it.
#ifndef PAD
#define PAD 0
#endif
#define TILE 32

__global__ void transpose_diag(const float* __restrict__ in, float* __restrict__ out,
                               float* __restrict__ diag, int n) {
  __shared__ float tile[TILE][TILE + PAD];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  out[(blockIdx.x * TILE + threadIdx.y) * n + x] = tile[threadIdx.x][threadIdx.y];
  if (threadIdx.y == 0) diag[blockIdx.x * TILE + threadIdx.x] = tile[threadIdx.x][threadIdx.x];
}
