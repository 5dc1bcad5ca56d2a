// A tiled transpose whose shared tile is read down its columns: unpadded, the 32 lanes of a
// warp read words 32 apart, all in one bank (32-way); PAD=1 makes the rows 33 words long and
// the column read conflict-free. `sassview try` finds the knob: PAD is a macro.
#ifndef PAD
#define PAD 0
#endif
#define TILE 32

__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[TILE][TILE + PAD];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
