// A labelled corpus for tests/test_loop_hopper.py, in the shapes a Hopper GEMM series and a
// training codebase's kernels take: a tile's first k-step issued before a `for (k = 1; ...)`
// loop of the other three (ptxas' line table gives the first MMA a later step's descriptor
// line), and a run-time loop over 16-byte packs whose inner loop runs to a member of a struct
// template reached through a typedef (`h8::count`: no constant the census reads), which ptxas
// unrolls by 4 with the remainder straight after. `// @name` marks a loop statement or a call
// site; labels_hopper.json holds what the SASS of each loop is.
#include "hopper.cuh"

#define KSTEPS 4

// Per K tile: for each of MT row tiles, the first k-step on its own, then steps 1..3.
template <int MT>
__global__ void tile_peeled(float* out, int ktiles) {
  __shared__ alignas(1024) __nv_bfloat16 sa[3 * MT * 64 * 32];
  __shared__ alignas(1024) __nv_bfloat16 sb[3 * 64 * 8];
  float d[MT][4];
  for (int kt = 0; kt < ktiles; ++kt) {  // @tp_kt
    const int stage = kt % 3;
    mma_fence();
#pragma unroll
    for (int m = 0; m < MT; ++m) {  // @tp_m
      const __nv_bfloat16* a = &sa[(stage * MT + m) * 64 * 32];
      mma_step<1>(d[m], a, &sb[stage * 64 * 8]);
#pragma unroll
      for (int k = 1; k < KSTEPS; ++k) {  // @tp_k
        mma_step<0>(d[m], a + k * 16, &sb[stage * 64 * 8 + k * 16]);  // @tp_step
      }
    }
    mma_commit_wait();
  }
  for (int m = 0; m < MT; ++m) {  // @tp_out
    for (int j = 0; j < 4; ++j) out[(m * 4 + j) * blockDim.x + threadIdx.x] = d[m][j];  // @tp_j
  }
}

template __global__ void tile_peeled<2>(float*, int);

// A row's sum of squares over 16-byte packs of halves, one warp a row.
__global__ void pack_sumsq(const __half* __restrict__ x, float* __restrict__ out, int C) {
  const __half* row = x + blockIdx.x * C;
  float s = 0.f;
  for (int c = threadIdx.x * h8::count; c < C; c += 32 * h8::count) {  // @ps_c
    const h8 p = load16<h8>(row + c);
    for (int k = 0; k < h8::count; ++k) {  // @ps_k
      float v = __half2float(p[k]);
      s += v * v;
    }
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);  // @ps_red
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

// y = a * x + y over packs of floats: the pack loop's trips stored back, one pack a trip.
__global__ void pack_axpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) * f4::count; i < n;  // @pa_i
       i += gridDim.x * blockDim.x * f4::count) {
    f4 px = load16<f4>(x + i);
    f4 py = load16<f4>(y + i);
    for (int k = 0; k < f4::count; ++k) py[k] = a * px[k] + py[k];  // @pa_k
    *reinterpret_cast<f4*>(y + i) = py;
  }
}

// Column sums of packs: registers over the rows, then one shared atomicAdd per element, which
// ptxas makes a CAS retry loop each (no instruction adds a float to shared memory).
__global__ void pack_atomic(const __half* __restrict__ x, float* __restrict__ out, int rows) {
  __shared__ float col[32 * h8::count];
  float acc[h8::count];
  for (int k = 0; k < h8::count; ++k) acc[k] = 0.f;  // @pt_zero
  for (int r = threadIdx.y; r < rows; r += blockDim.y) {  // @pt_r
    const h8 p = load16<h8>(x + (r * 32 + threadIdx.x) * h8::count);
    for (int k = 0; k < h8::count; ++k) acc[k] += __half2float(p[k]);  // @pt_k
  }
  for (int k = 0; k < h8::count; ++k) atomicAdd(&col[threadIdx.x + k * 32], acc[k]);  // @pt_add
  __syncthreads();
  if (threadIdx.y == 0) {
    for (int k = 0; k < h8::count; ++k) out[threadIdx.x + k * 32] = col[threadIdx.x + k * 32];  // @pt_out
  }
}
