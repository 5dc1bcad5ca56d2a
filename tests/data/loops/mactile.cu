// A labelled corpus of GEMM-shaped kernels for tests/test_loop_mactile.py: the header's
// micro-kernels (mactile.cuh) called with the caller's constants as their template
// arguments: a kernel template's own parameters, constexpr locals, `#define`s, literals at two
// call sites, a parameter passed on through a second helper, and a config struct through a
// type parameter. `// @name` marks a loop statement or a call site; labels_mactile.json holds
// what the SASS of each loop is.
#include "mactile.cuh"

#define DBK 2
#define DBM 4
#define DBN 8

// Shared memory of one K tile: BK rows of 64 floats of A (by m) and of B (by n).
template <int BK>
__device__ __forceinline__ void load_tiles(float* As, float* Bs, const float* A, const float* B,
                                           int k0, int lda, int ldb) {
  for (int i = threadIdx.x; i < BK * 64; i += blockDim.x) {  // @lt_i
    As[i] = A[(i % 64) * lda + k0 + i / 64];
    Bs[i] = B[(k0 + i / 64) * ldb + i % 64];
  }
}

template <int BK, int BM, int BN>
__global__ void gemm_tparams(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int K, int N) {
  __shared__ float As[BK * 64];
  __shared__ float Bs[BK * 64];
  const uint ty = threadIdx.x / (64 / BN), tx = threadIdx.x % (64 / BN);
  float acc[BM][BN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {  // @tp_k
    load_tiles<BK>(As, Bs, A, B, k0, K, N);  // @tp_load
    __syncthreads();
    mac_tile<BK, BM, BN>(acc, As, Bs, ty, tx);  // @tp_mac
    __syncthreads();
  }
  store_tile<BM, BN>(acc, C + (ty * BM) * N + tx * BN, N);  // @tp_store
}

template __global__ void gemm_tparams<8, 4, 4>(const float*, const float*, float*, int, int);
template __global__ void gemm_tparams<4, 8, 2>(const float*, const float*, float*, int, int);

__global__ void gemm_constexpr(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, int K, int N) {
  constexpr int BK = 4, BM = 2, BN = 8;
  __shared__ float As[BK * 64];
  __shared__ float Bs[BK * 64];
  const uint ty = threadIdx.x / 8, tx = threadIdx.x % 8;
  float acc[BM][BN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {  // @ce_k
    load_tiles<BK>(As, Bs, A, B, k0, K, N);  // @ce_load
    __syncthreads();
    mac_tile<BK, BM, BN>(acc, As, Bs, ty, tx);  // @ce_mac
    __syncthreads();
  }
  store_tile<BM, BN>(acc, C + (ty * BM) * N + tx * BN, N);  // @ce_store
}

__global__ void gemm_define(const float* __restrict__ A, const float* __restrict__ B,
                            float* __restrict__ C, int K, int N) {
  __shared__ float As[DBK * 64];
  __shared__ float Bs[DBK * 64];
  const uint ty = threadIdx.x / (64 / DBN), tx = threadIdx.x % (64 / DBN);
  float acc[DBM][DBN] = {};
  for (int k0 = 0; k0 < K; k0 += DBK) {  // @df_k
    load_tiles<DBK>(As, Bs, A, B, k0, K, N);  // @df_load
    __syncthreads();
    mac_tile<DBK, DBM, DBN>(acc, As, Bs, ty, tx);  // @df_mac
    __syncthreads();
  }
  store_tile<DBM, DBN>(acc, C + (ty * DBM) * N + tx * DBN, N);  // @df_store
}

// Two micro-kernels of two shapes in one K loop: each call site its own trip counts.
__global__ void gemm_two_shapes(const float* __restrict__ A, const float* __restrict__ B,
                                float* __restrict__ C, int K, int N) {
  __shared__ float As[4 * 64];
  __shared__ float Bs[4 * 64];
  const uint ty = threadIdx.x / 16, tx = threadIdx.x % 16;
  float lo[2][4] = {}, hi[4][1] = {};
  for (int k0 = 0; k0 < K; k0 += 4) {  // @ts_k
    load_tiles<4>(As, Bs, A, B, k0, K, N);  // @ts_load
    __syncthreads();
    mac_tile<2, 2, 4>(lo, As, Bs, ty, tx);  // @ts_lo
    mac_tile<4, 4, 1>(hi, As, Bs, ty, tx);  // @ts_hi
    __syncthreads();
  }
  store_tile<2, 4>(lo, C + (ty * 2) * N + tx * 4, N);  // @ts_store_lo
  store_tile<4, 1>(hi, C + (ty * 4 + 64) * N + tx, N);  // @ts_store_hi
}

// The tile shape as a config struct, through the kernel's type parameter and on to the helper.
template <typename Cfg>
__global__ void gemm_cfg(const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C, int K, int N, float alpha) {
  __shared__ float As[2 * 64];
  __shared__ float Bs[2 * 64];
  const uint ty = threadIdx.x / (64 / Cfg::TN), tx = threadIdx.x % (64 / Cfg::TN);
  float acc[Cfg::TM][Cfg::TN] = {};
  for (int k0 = 0; k0 < K; k0 += 2) {  // @cf_k
    load_tiles<2>(As, Bs, A, B, k0, K, N);  // @cf_load
    __syncthreads();
    mac_tile<2, Cfg::TM, Cfg::TN>(acc, As, Bs, ty, tx);  // @cf_mac
    __syncthreads();
  }
  scale_tile<Cfg>(acc, alpha);  // @cf_scale
  store_tile<Cfg::TM, Cfg::TN>(acc, C + (ty * Cfg::TM) * N + tx * Cfg::TN, N);  // @cf_store
}

template __global__ void gemm_cfg<Tile82>(const float*, const float*, float*, int, int, float);

// Constexpr locals of template parameters: the kernel's own, and its helper's.
template <int ROWS>
__global__ void rows_local(const float* __restrict__ in, float* __restrict__ out, float s) {
  constexpr int QUARTER = ROWS / 4;
  for (int r = 0; r < QUARTER; ++r) {  // @rl_r
    out[r * 64 + threadIdx.x] = in[r * 64 + threadIdx.x] + s;
  }
  scale_half<ROWS>(out + 4096 + threadIdx.x, in + threadIdx.x, s);  // @rl_half
}

template __global__ void rows_local<16>(const float*, float*, float);
