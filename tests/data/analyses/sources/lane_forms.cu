// Modulo, mask, division and lane-guard forms of the warp model (sassview coalescing and
// bank_conflicts tests), each access counted by hand in its comment. A warp is 32
// consecutive threadIdx.x; every global base is a cudaMalloc pointer (256-byte aligned), and
// a run-time offset like r is taken, as every symbolic part of an address, to keep the
// address a multiple of 32 bytes (r a multiple of 8 floats).

// (threadIdx.x + r) % 256: 32 consecutive floats that wrap at 1024 bytes, a sector boundary:
// the lanes before the wrap and after it touch 4 sectors together for every r that is a
// multiple of 8. The store: 4.
extern "C" __global__ void ring(const float* __restrict__ a, float* __restrict__ out, int r) {
  out[threadIdx.x] = a[(threadIdx.x + r) % 256];
}

// (threadIdx.x + r) % 20: the wrap at 80 bytes is no sector boundary, and 32 lanes span more
// than the ring: the sectors depend on r (unknown, with the reason). The store: 4.
extern "C" __global__ void ring20(const float* __restrict__ a, float* __restrict__ out, int r) {
  out[threadIdx.x] = a[(threadIdx.x + r) % 20];
}

// A shared ring buffer read at (threadIdx.x + r) & 255: the banks are (threadIdx.x + r) mod
// 32, a permutation, for every r: 1 wavefront. The store tile[threadIdx.x]: 1.
extern "C" __global__ void ring_shared(float* __restrict__ out, int r) {
  __shared__ float tile[256];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + r) & 255];
}

// Division by a constant (IMAD.HI with a magic number): lane l reads row l / 3 of 1024
// floats: lanes 0-2, 3-5, ... share one 4-byte word: 11 rows, 11 sectors. The store: 4.
extern "C" __global__ void by_three(const float* __restrict__ a, float* __restrict__ out) {
  out[threadIdx.x] = a[(threadIdx.x / 3) * 1024];
}

// Lane l % 3 (IMAD.HI, then a multiply-subtract): three floats 4096 bytes apart, read by
// every lane: 3 sectors. The store: 4.
extern "C" __global__ void mod_three(const float* __restrict__ a, float* __restrict__ out) {
  out[threadIdx.x] = a[(threadIdx.x % 3) * 1024];
}

// Only lanes 0-15 run the access (threadIdx.x < 16): 16 lanes at stride 8 bytes are 4
// sectors where 2 (16 lanes x 4 bytes) would do; the store of those 16 lanes: 2 of 2.
extern "C" __global__ void half_warp(const float* __restrict__ a, float* __restrict__ out) {
  if (threadIdx.x < 16) out[threadIdx.x] = a[2 * threadIdx.x];
}

// Lanes 8-31 run the load (threadIdx.x >= 8): 24 lanes at 4 bytes from byte 32: 3 sectors,
// the minimum (24 x 4 bytes); the store likewise.
extern "C" __global__ void upper_lanes(const float* __restrict__ a, float* __restrict__ out) {
  if (threadIdx.x >= 8) out[threadIdx.x] = a[threadIdx.x];
}

// The even lanes only (threadIdx.x % 2 == 0): 16 lanes at stride 8 bytes span 4 sectors,
// where 16 x 4 bytes would take 2: uncoalesced; the store the same.
extern "C" __global__ void even_lanes(const float* __restrict__ a, float* __restrict__ out) {
  if ((threadIdx.x & 1) == 0) out[threadIdx.x] = a[threadIdx.x];
}

// A shared column read by lanes 0-7 only (@P0 EXIT after the barrier): 8 lanes 32 words
// apart all ask bank 1: 8-way, 8 wavefronts where 1 would do (not 32-way); the store of the
// column by all 32 lanes: 32-way. The global store of lanes 0-7: 1 sector of 1.
extern "C" __global__ void tile_col8(float* __restrict__ out) {
  __shared__ float tile[32][32];
  tile[threadIdx.x][0] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x < 8) out[threadIdx.x] = tile[threadIdx.x][1];
}

// An if/else on the lane (branches): lanes 0-15 load a[64 * t + i] (16 lanes 256 bytes
// apart: 16 sectors where 2 would do, in a loop), lanes 16-31 load b[t] (16 lanes from byte
// 64: 2 of 2); after the join every lane stores: 4 of 4.
extern "C" __global__ void if_else(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ out, int n) {
  float v;
  if (threadIdx.x < 16) {
    v = a[64 * threadIdx.x];
#pragma unroll 1
    for (int i = 1; i < n; ++i) v += a[64 * threadIdx.x + i];
  } else {
    v = b[threadIdx.x];
  }
  out[threadIdx.x] = v;
}

// An unsigned range test: threadIdx.x - 5 < 20 holds in lanes 5-24 only (below 5 the
// difference wraps to a large unsigned number): 20 lanes of 4 bytes from byte 20 span 4
// sectors where 80 bytes need 3, for the load and the store.
extern "C" __global__ void unsigned_window(const float* __restrict__ a, float* __restrict__ out) {
  if (threadIdx.x - 5u < 20u) out[threadIdx.x] = a[threadIdx.x];
}

// A signed modulo by a constant that is not a power of two (int t: IMAD.HI by 0x66666667,
// its sign bit, LEA.HI.SX32, a multiply-subtract): lane l reads a[(l % 20) * 8], 32 bytes
// apart: lanes 0-19 touch 20 sectors, lanes 20-31 the first 12 of them again: 20 sectors
// where 4 would do. The store: 4.
extern "C" __global__ void signed_mod20(const float* __restrict__ a, float* __restrict__ out) {
  int t = threadIdx.x;
  out[t] = a[(t % 20) * 8];
}

// The same modulo of t + r, r a kernel argument: where the lanes wrap depends on r, and the
// multiply-high reads the sum, not the lanes: unknown, with the reason (never a guess). The
// store: 4.
extern "C" __global__ void signed_ring20(const float* __restrict__ a, float* __restrict__ out,
                                         int r) {
  int t = threadIdx.x;
  out[t] = a[(t + r) % 20];
}
