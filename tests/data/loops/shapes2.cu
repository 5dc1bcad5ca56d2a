// A second labelled corpus of loop shapes (tests/test_loop_shapes2.py), unlike copies.cu's:
// sizes inherited from a config's base or nested in a policy struct, enums and constexpr
// functions as bounds, block-stride loops around constant tiles, early exits, `#pragma unroll
// 4` on a run-time bound, a double-buffered K loop swapping its buffers by `^= 1`, loops under
// `if constexpr`, loops tied to the launch bounds, counts from sizeof(T), and macros a -D sets
// (SPLIT, guarded) or cannot set (ROWS, redefined here). Compiled with -DSPLIT=2 -DROWS=2
// (record_shapes2.py). Each loop statement and call site carries a `// @name` mark;
// labels_shapes2.json says what the SASS holds.
#include <mma.h>

#include "shapes2.cuh"

#ifndef SPLIT
#define SPLIT 4
#endif
#define ROWS 8  // a -DROWS=2 has no effect: this replaces it

// Register tile with sizes from a config's base class: 4 x 8 a thread, block-stride loads.
template <typename Cfg>
__global__ void __launch_bounds__(Cfg::THREADS)
    gemm_inherit(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                 int M, int N, int K) {
  __shared__ float As[Cfg::BK * Cfg::BM];
  __shared__ float Bs[Cfg::BK * Cfg::BN];
  const int ty = threadIdx.x / (Cfg::BN / Cfg::TN), tx = threadIdx.x % (Cfg::BN / Cfg::TN);
  float acc[Cfg::TM][Cfg::TN] = {};
  A += blockIdx.y * Cfg::BM * K;
  B += blockIdx.x * Cfg::BN;
  for (int k0 = 0; k0 < K; k0 += Cfg::BK) {  // @gi_k
    for (int i = threadIdx.x; i < Cfg::BM * Cfg::BK; i += Cfg::THREADS) {  // @gi_la
      As[(i % Cfg::BK) * Cfg::BM + i / Cfg::BK] = A[(i / Cfg::BK) * K + k0 + i % Cfg::BK];
    }
    for (int i = threadIdx.x; i < Cfg::BK * Cfg::BN; i += Cfg::THREADS) {  // @gi_lb
      Bs[i] = B[(k0 + i / Cfg::BN) * N + i % Cfg::BN];
    }
    __syncthreads();
    for (int k = 0; k < Cfg::BK; ++k) {  // @gi_kk
      for (int m = 0; m < Cfg::TM; ++m) {  // @gi_m
        const float a = As[k * Cfg::BM + ty * Cfg::TM + m];
        for (int n = 0; n < Cfg::TN; ++n) {  // @gi_n
          acc[m][n] += a * Bs[k * Cfg::BN + tx * Cfg::TN + n];
        }
      }
    }
    __syncthreads();
  }
  for (int m = 0; m < Cfg::TM; ++m) {  // @gi_wm
    const int r = blockIdx.y * Cfg::BM + ty * Cfg::TM + m;
    if (r >= M) break;  // rows past M: leave
    for (int n = 0; n < Cfg::TN; n += 4) {  // @gi_wn
      float4 v = make_float4(acc[m][n], acc[m][n + 1], acc[m][n + 2], acc[m][n + 3]);
      *reinterpret_cast<float4*>(&C[r * N + blockIdx.x * Cfg::BN + tx * Cfg::TN + n]) = v;
    }
  }
}

// Double-buffered K loop: two shared tiles, the next one loaded while the current one is
// multiplied, swapped by `cur ^= 1`; the header's micro-kernel at two call sites.
__global__ void __launch_bounds__(256)
    gemm_dbuf(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
              int N, int K) {
  constexpr int BM = 64, BN = 64, BK = 8;
  __shared__ float As[2][BK * BM];
  __shared__ float Bs[2][BK * BN];
  const uint ty = threadIdx.x / 16, tx = threadIdx.x % 16;
  float acc[4][4] = {};
  int cur = 0;
  for (int i = threadIdx.x; i < BK * BM; i += 256) {  // @db_pa
    As[0][(i % BK) * BM + i / BK] = A[(blockIdx.y * BM + i / BK) * K + i % BK];
    Bs[0][i] = B[(i / BN) * N + blockIdx.x * BN + i % BN];
  }
  __syncthreads();
  for (int k0 = BK; k0 < K; k0 += BK) {  // @db_k
    for (int i = threadIdx.x; i < BK * BM; i += 256) {  // @db_load
      As[cur ^ 1][(i % BK) * BM + i / BK] = A[(blockIdx.y * BM + i / BK) * K + k0 + i % BK];
      Bs[cur ^ 1][i] = B[(k0 + i / BN) * N + blockIdx.x * BN + i % BN];
    }
    mac_tile<BK, BM, BN>(acc, As[cur], Bs[cur], ty, tx);  // @db_call1
    __syncthreads();
    cur ^= 1;
  }
  mac_tile<BK, BM, BN>(acc, As[cur], Bs[cur], ty, tx);  // @db_call2
  for (int i = 0; i < 4; ++i) {  // @db_wm
    float4 v = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(&C[(blockIdx.y * BM + ty * 4 + i) * N + blockIdx.x * BN + tx * 4]) =
        v;
  }
}

// A float4 grid-stride loop, then the scalar tail of what is not a multiple of 4.
__global__ void axpy_vec_tail(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  const int n4 = n / 4;
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {  // @vt_v
    float4 xv = reinterpret_cast<const float4*>(x)[i];
    float4 yv = reinterpret_cast<float4*>(y)[i];
    yv.x += a * xv.x;
    yv.y += a * xv.y;
    yv.z += a * xv.z;
    yv.w += a * xv.w;
    reinterpret_cast<float4*>(y)[i] = yv;
  }
  for (int i = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {  // @vt_s
    y[i] += a * x[i];
  }
}

// Elements per 16-byte access from sizeof(T): 8 shorts, 2 doubles.
template <typename T>
__global__ void scale_packed(const int4* __restrict__ src, T* __restrict__ dst, T s) {
  const uint i = blockIdx.x * blockDim.x + threadIdx.x;
  int4 raw = src[i];
  const T* e = reinterpret_cast<const T*>(&raw);
  for (int v = 0; v < Vec<T>::N; ++v) {  // @sp_v
    dst[i * Vec<T>::N + v] = e[v] * s;
  }
}

// Early exits: a constant loop left by `break`, a binary search, a run-time do-while.
__global__ void early_exit(const float* __restrict__ x, const int* __restrict__ keys,
                           int* __restrict__ out, int n, int key) {
  const float* p = x + threadIdx.x;
  float s = 0.0f;
  for (int i = 0; i < 8; ++i) {  // @ee_i
    const float v = p[i * 32];
    if (v < 0.0f) break;
    s += v;
  }
  int lo = 0, hi = n;
  while (lo < hi) {  // @ee_bs
    const int mid = (lo + hi) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  int steps = 0;
  uint h = static_cast<uint>(key) * 2654435761u;
  do {  // @ee_do
    h = h * 1664525u + 1013904223u;
    ++steps;
  } while ((h >> 28) != 0 && steps < n);
  out[threadIdx.x] = static_cast<int>(s) + lo + steps;
}

// `#pragma unroll 4` on a run-time bound (a remainder follows), and a plain run-time loop.
__global__ void dot_unroll4(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int n) {
  const float* ra = a + blockIdx.x * n;
  const float* rb = b + blockIdx.x * n;
  float s = 0.0f;
#pragma unroll 4
  for (int i = 0; i < n; ++i) {  // @du_i
    s += ra[i] * rb[i];
  }
  float t = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) t = fmaxf(t, ra[i]);  // @du_max
  out[blockIdx.x * blockDim.x + threadIdx.x] = s + t;
}

// An inner bound computed from the outer one's constant, and a struct nested in a policy.
template <int N>
__global__ void nest_dep(const float* __restrict__ x, float* __restrict__ y) {
  float acc[N / 2] = {};
  const float* p = x + threadIdx.x;
  for (int i = 0; i < N; ++i) {  // @nd_i
    for (int j = 0; j < N / 2; ++j) {  // @nd_j
      acc[j] += p[(i * (N / 2) + j) * 32];
    }
  }
  for (int r = 0; r < Policy::Tile::kRows; ++r) {  // @nd_r
    for (int c = 0; c < Policy::Tile::kCols; ++c) {  // @nd_c
      y[(r * Policy::Tile::kCols + c) * 32 + threadIdx.x] = acc[(r + c) % (N / 2)];
    }
  }
}

// A row softmax: a max, a sum of expf and a write loop over the row by blockDim.x, warp
// reductions from the header, and the partials of each warp summed by a loop over the warps.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    softmax_row(const float* __restrict__ x, float* __restrict__ y, int n) {
  __shared__ float red[THREADS / 32];
  const float* row = x + blockIdx.x * n;
  float* out = y + blockIdx.x * n;
  float m = -3.0e38f;
  for (int i = threadIdx.x; i < n; i += THREADS) m = fmaxf(m, row[i]);  // @sm_max
  m = warp_max(m);  // @sm_wmax
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += THREADS) s += __expf(row[i] - m);  // @sm_sum
  s = warp_sum(s);  // @sm_wsum
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = s;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < THREADS / 32; ++w) total += red[w];  // @sm_w
  const float inv = 1.0f / total;
  for (int i = threadIdx.x; i < n; i += THREADS) out[i] = __expf(row[i] - m) * inv;  // @sm_out
}

// Loops under `if constexpr`: one instantiation keeps the first, the other the second.
template <bool TRANS>
__global__ void transpose_or_copy(const float* __restrict__ in, float* __restrict__ out, int ld) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y = blockIdx.y * 32 + threadIdx.y;
  if constexpr (TRANS) {
    __shared__ float tile[32][33];
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * ld + x];  // @tc_in
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x, oy = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(oy + j) * ld + ox] = tile[threadIdx.x][threadIdx.y + j];  // @tc_out
  } else {
    for (int j = 0; j < 32; j += 8) out[(y + j) * ld + x] = in[(y + j) * ld + x];  // @tc_copy
  }
}

// Loops whose bounds are the launch bound's constant: 4 * 128 elements by 128 threads.
#define THREADS_L 128
__global__ void __launch_bounds__(THREADS_L)
    launch_tied(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float buf[4 * THREADS_L];
  for (int i = threadIdx.x; i < 4 * THREADS_L; i += THREADS_L) {  // @lt_fill
    buf[i] = in[blockIdx.x * 4 * THREADS_L + i];
  }
  __syncthreads();
  float s = 0.0f;
  for (int i = 0; i < cdiv(4 * THREADS_L, 96); ++i) s += buf[(threadIdx.x + i * 96) % (4 * THREADS_L)];  // @lt_cdiv
  for (int i = 0; i < Policy::kItems; ++i) {  // @lt_enum
    out[(blockIdx.x * Policy::kItems + i) * THREADS_L + threadIdx.x] = s * buf[i * THREADS_L + threadIdx.x];
  }
}

// Macros a -D sets (SPLIT, guarded: 2) or cannot (ROWS: the file's 8).
__global__ void macro_split(const float* __restrict__ x, float* __restrict__ y) {
  float part[SPLIT];
  for (int s = 0; s < SPLIT; ++s) part[s] = x[s * 64 + threadIdx.x];  // @ms_split
  float t = 0.0f;
  for (int r = 0; r < ROWS; ++r) {  // @ms_rows
    t += part[r % SPLIT] * x[(r + SPLIT) * 64 + threadIdx.x];
  }
  y[threadIdx.x] = t;
}

// Tensor cores in a K loop: a 2 x 2 grid of 16x16x16 wmma tiles a warp, each a pair of HMMA.
using namespace nvcuda;
__global__ void wmma_grid(const half* __restrict__ A, const half* __restrict__ B,
                          float* __restrict__ C, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[2];
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb[2];
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc[2][2];
  for (int i = 0; i < 2; ++i) {  // @wg_zi
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(fc[i][j], 0.0f);  // @wg_zj
  }
  for (int k = 0; k < K; k += 16) {  // @wg_k
    for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], A + i * 16 * K + k, K);  // @wg_la
    for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], B + j * 16 * K + k, K);  // @wg_lb
    for (int i = 0; i < 2; ++i) {  // @wg_mi
      for (int j = 0; j < 2; ++j) wmma::mma_sync(fc[i][j], fa[i], fb[j], fc[i][j]);  // @wg_mj
    }
  }
  for (int i = 0; i < 2; ++i) {  // @wg_si
    for (int j = 0; j < 2; ++j) {  // @wg_sj
      wmma::store_matrix_sync(C + (i * 16) * 32 + j * 16, fc[i][j], 32, wmma::mem_row_major);
    }
  }
}

template __global__ void gemm_inherit<ThreadShape>(const float*, const float*, float*, int, int,
                                                   int);
template __global__ void scale_packed<short>(const int4*, short*, short);
template __global__ void scale_packed<double>(const int4*, double*, double);
template __global__ void nest_dep<6>(const float*, float*);
template __global__ void softmax_row<256>(const float*, float*, int);
template __global__ void transpose_or_copy<true>(const float*, float*, int);
template __global__ void transpose_or_copy<false>(const float*, float*, int);

// A two-stage cp.async pipeline: a prologue stage, then each K tile's copy of the next tile
// (16-byte cp.async a trip of a block-stride loop, under a guard) before the current one is
// read. ptxas pads each LDGSTS group with `@!PT LDS RZ, [RZ]`, which never runs.
#define STAGES 2
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(a), "l"(gmem));
}
__global__ void __launch_bounds__(128)
    cp_async_pipe(const float4* __restrict__ g, float* __restrict__ out, int ktiles, int n) {
  __shared__ float4 stage[STAGES][256];
  for (int s = 0; s < STAGES - 1; ++s) {  // @ca_pro
    for (int i = threadIdx.x; i < 256; i += 128) cp_async16(&stage[s][i], g + s * 256 + i);  // @ca_pi
    asm volatile("cp.async.commit_group;\n" ::);
  }
  float acc[ThreadShape::TM] = {};
  for (int kt = 0; kt < ktiles; ++kt) {  // @ca_k
    const int next = kt + STAGES - 1;
    if (next < ktiles)
      for (int i = threadIdx.x; i < 256; i += 128) cp_async16(&stage[next % STAGES][i], g + next * 256 + i);  // @ca_ld
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 1;\n" ::);
    __syncthreads();
    for (int m = 0; m < ThreadShape::TM; ++m) {  // @ca_m
      const float4 v = stage[kt % STAGES][threadIdx.x + m * 32];
      acc[m] += v.x * v.y + v.z * v.w;
    }
    __syncthreads();
  }
  for (int m = 0; m < ThreadShape::TM; ++m) {  // @ca_wm
    const int at = (blockIdx.x * ThreadShape::TM + m) * 128 + threadIdx.x;
    if (at < n) out[at] = acc[m];
  }
}
