// A labelled corpus of the loops whose copies the census counts (tests/test_loop_copies.py):
// register tiles, vector copies, and bodies holding two of a pattern. Written as tutorials and
// training codebases write them: `uint` inductions, bounds from template parameters and a
// config struct's constexpr members, no pragmas unless the comment says so. Each loop
// statement and call site carries a `// @name` mark; labels_copies.json says what the SASS
// holds (recorded beside this file by record_copies.py).
#include "copies.cuh"

typedef unsigned int uint;

// Register-tiled SGEMM, TM x TN per thread, bounds from template parameters.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemm_regs(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  const uint threads = (BM / TM) * (BN / TN);
  const uint row = threadIdx.x / (BN / TN), col = threadIdx.x % (BN / TN);
  A += blockIdx.y * BM * K;
  B += blockIdx.x * BN;
  C += blockIdx.y * BM * N + blockIdx.x * BN;
  float acc[TM][TN] = {0.0f};
  float ra[TM], rb[TN];
  for (uint k0 = 0; k0 < K; k0 += BK) {  // @sr_k
    for (uint i = threadIdx.x; i < BM * BK; i += threads) {  // @sr_la
      As[(i % BK) * BM + i / BK] = A[(i / BK) * K + i % BK];
    }
    for (uint i = threadIdx.x; i < BK * BN; i += threads) {  // @sr_lb
      Bs[i] = B[(i / BN) * N + i % BN];
    }
    __syncthreads();
    A += BK;
    B += BK * N;
    for (uint k = 0; k < BK; ++k) {  // @sr_kk
      for (uint m = 0; m < TM; ++m) ra[m] = As[k * BM + row * TM + m];  // @sr_ra
      for (uint n = 0; n < TN; ++n) rb[n] = Bs[k * BN + col * TN + n];  // @sr_rb
      for (uint m = 0; m < TM; ++m) {  // @sr_m
        for (uint n = 0; n < TN; ++n) {  // @sr_n
          acc[m][n] += ra[m] * rb[n];
        }
      }
    }
    __syncthreads();
  }
  for (uint m = 0; m < TM; ++m) {  // @sr_wm
    for (uint n = 0; n < TN; ++n) {  // @sr_wn
      C[(row * TM + m) * N + col * TN + n] = acc[m][n];
    }
  }
}

// The same tile with its sizes in a config struct and the inner product in the header's
// micro-kernel; the write-out goes through float4.
struct TileCfg {
  static constexpr int BM = 64, BN = 64, BK = 8;
  static constexpr int ITEMS_M = 4, ITEMS_N = 4;
  static constexpr int THREADS = (BM / ITEMS_M) * (BN / ITEMS_N);
};

template <typename Cfg>
__global__ void __launch_bounds__(Cfg::THREADS)
    sgemm_cfg(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
              int N, int K) {
  __shared__ float As[Cfg::BK][Cfg::BM];
  __shared__ float Bs[Cfg::BK][Cfg::BN];
  const uint tx = threadIdx.x % (Cfg::BN / Cfg::ITEMS_N);
  const uint ty = threadIdx.x / (Cfg::BN / Cfg::ITEMS_N);
  float acc[Cfg::ITEMS_M][Cfg::ITEMS_N] = {};
  float a[Cfg::ITEMS_M], b[Cfg::ITEMS_N];
  for (int k0 = 0; k0 < K; k0 += Cfg::BK) {  // @sc_k
    const uint r = threadIdx.x / Cfg::BK, c = threadIdx.x % Cfg::BK;
    As[c][r] = A[(blockIdx.y * Cfg::BM + r) * K + k0 + c];
    Bs[threadIdx.x / Cfg::BN][threadIdx.x % Cfg::BN] =
        B[(k0 + threadIdx.x / Cfg::BN) * N + blockIdx.x * Cfg::BN + threadIdx.x % Cfg::BN];
    __syncthreads();
    for (uint k = 0; k < Cfg::BK; ++k) {  // @sc_kk
      for (uint i = 0; i < Cfg::ITEMS_M; ++i) a[i] = As[k][ty * Cfg::ITEMS_M + i];  // @sc_a
      for (uint j = 0; j < Cfg::ITEMS_N; ++j) b[j] = Bs[k][tx * Cfg::ITEMS_N + j];  // @sc_b
      micro_tile<Cfg::ITEMS_M, Cfg::ITEMS_N>(acc, a, b);  // @sc_call
    }
    __syncthreads();
  }
  for (uint i = 0; i < Cfg::ITEMS_M; ++i) {  // @sc_wm
    float4 v = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(
        &C[(blockIdx.y * Cfg::BM + ty * Cfg::ITEMS_M + i) * N + blockIdx.x * Cfg::BN +
           tx * Cfg::ITEMS_N]) = v;
  }
}

// Vector copies: constant loops whose body is one 16- or 8-byte access, and run-time loops of
// them (each trip one float4).
template <int VECS>
__global__ void copy_vec(const float4* __restrict__ src, float4* __restrict__ dst) {
  const uint base = blockIdx.x * blockDim.x * VECS + threadIdx.x;
  for (uint v = 0; v < VECS; ++v) {  // @cv_f4
    dst[base + v * blockDim.x] = src[base + v * blockDim.x];
  }
}

__global__ void copy_f2(const float2* __restrict__ src, float2* __restrict__ dst) {
  const uint base = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  for (uint v = 0; v < 2; ++v) {  // @cv_f2
    float2 x = src[base + v * blockDim.x];
    dst[base + v * blockDim.x] = make_float2(x.x * 2.0f, x.y * 2.0f);
  }
}

__global__ void copy_i4_stride(const int4* __restrict__ src, int4* __restrict__ dst, uint n) {
  for (uint i = blockIdx.x * blockDim.x + threadIdx.x; i < n;  // @cv_i4
       i += gridDim.x * blockDim.x) {
    dst[i] = src[i];
  }
}

__global__ void scale_f4_rows(const float4* __restrict__ src, float4* __restrict__ dst,
                              uint vecs_per_row, float s) {
  const float4* in = src + blockIdx.x * vecs_per_row;
  float4* out = dst + blockIdx.x * vecs_per_row;
  for (uint i = threadIdx.x; i < vecs_per_row; i += blockDim.x) {  // @cv_rows
    float4 x = in[i];
    out[i] = make_float4(x.x * s, x.y * s, x.z * s, x.w * s);
  }
}

// Two of a pattern per iteration: a rolled loop must read as one iteration a trip.
__global__ void two_exp(const float* __restrict__ x, float* __restrict__ y, uint n, float m) {
  for (uint i = blockIdx.x * blockDim.x + threadIdx.x; i < n;  // @te_i
       i += gridDim.x * blockDim.x) {
    y[i] = expf(x[i] - m) + expf(m - x[i]);
  }
}

__global__ void dot_two(const float* __restrict__ a, const float* __restrict__ b,
                        float* __restrict__ out, uint n) {
  float s = 0.0f;
  for (uint i = threadIdx.x; i < n; i += blockDim.x) {  // @dt_i
    s += a[i] * b[i];
  }
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);  // @dt_o
  if (threadIdx.x % 32 == 0) atomicAdd(out, s);
}

__global__ void online_softmax(const float* __restrict__ x, float* __restrict__ stats, uint n) {
  float m = -3.0e38f, s = 0.0f;
  const float* row = x + blockIdx.x * n;
  for (uint i = threadIdx.x; i < n; i += blockDim.x) {  // @os_i
    const float v = row[i];
    const float nm = fmaxf(m, v);
    s = s * expf(m - nm) + expf(v - nm);
    m = nm;
  }
  warp_max_sum(m, s);  // @os_call
  if (threadIdx.x == 0) {
    stats[2 * blockIdx.x] = m;
    stats[2 * blockIdx.x + 1] = s;
  }
}

// The K step in the header, called straight inside the K loop (tile_step's k loop is at
// depth 1 of its file, inside a depth-1 loop here).
__global__ void __launch_bounds__(256)
    sgemm_flat(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int N, int K) {
  __shared__ float As[8 * 64];
  __shared__ float Bs[8 * 64];
  const uint row = threadIdx.x / 16, col = threadIdx.x % 16;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 8) {  // @sf_k
    As[(threadIdx.x % 8) * 64 + threadIdx.x / 8 % 64] =
        A[(blockIdx.y * 64 + threadIdx.x / 8 % 64) * K + k0 + threadIdx.x % 8];
    Bs[threadIdx.x % 512] = B[(k0 + threadIdx.x / 64) * N + blockIdx.x * 64 + threadIdx.x % 64];
    __syncthreads();
    tile_step<8, 64, 64, 4, 4>(acc, As, Bs, row, col);  // @sf_call
    __syncthreads();
  }
  for (uint m = 0; m < 4; ++m) {  // @sf_wm
    for (uint n = 0; n < 4; ++n) C[(blockIdx.y * 64 + row * 4 + m) * N + col * 4 + n] = acc[m][n];  // @sf_wn
  }
}

// A run-time loop of float4 loads asked to unroll by 4: each copy tests the bound (no
// remainder), one LDG.E.128 each.
__global__ void sum_f4(const float4* __restrict__ x, float* out, uint n4) {
  float s = 0.0f;
#pragma unroll 4
  for (uint i = blockIdx.x * blockDim.x + threadIdx.x; i < n4;  // @sf4_i
       i += blockDim.x * gridDim.x) {
    float4 v = x[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);  // @sf4_o
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

// A run-time row loop around a constant loop of two float2 copies.
__global__ void swap_f2_rows(const float2* __restrict__ in, float2* __restrict__ out, int rows) {
  for (int r = 0; r < rows; ++r) {  // @sw_r
    for (uint c = 0; c < 2; ++c) {  // @sw_c
      float2 v = in[(r * 2 + c) * 64 + threadIdx.x];
      out[(r * 2 + c) * 64 + threadIdx.x] = make_float2(v.y, v.x);
    }
  }
}

template __global__ void sgemm_regs<128, 128, 8, 8, 8>(const float*, const float*, float*, int,
                                                       int, int);
template __global__ void sgemm_regs<64, 64, 8, 4, 4>(const float*, const float*, float*, int,
                                                     int, int);
template __global__ void sgemm_cfg<TileCfg>(const float*, const float*, float*, int, int);
template __global__ void copy_vec<4>(const float4*, float4*);
