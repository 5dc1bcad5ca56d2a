// A labelled corpus in the shapes of tutorial SGEMM kernels, for tests/test_loop_tutor.py:
// tile loops that stop before a partial tile (`o + STRIDE <= BM`), constexpr trip counts
// sized with a function-like macro (`TT_DIV_UP(BM, WM)`), a header's fill template called
// in a double-buffered K loop's prologue and body, and a prefetch under `if (t + 1 < tiles)`
// whose loops start at the thread's index. No `#pragma unroll`: the compilers decide.
// `// @name` marks a loop statement or a call site; labels_tutor.json holds what the SASS of
// each loop is.
#include "tutor.cuh"

const int TT_THREADS = 128;

// One K tile of BK columns a trip; the thread's tile WIT x TM rows by TN columns.
template <int BM, int BK, int TM, int TN>
__global__ void __launch_bounds__(TT_THREADS)
    tt_stride(int K, const float* __restrict__ A, const float* __restrict__ B, float* C) {
  constexpr uint STRIDE = (TT_THREADS * 4) / BK;
  constexpr int WM = TM * 16;
  constexpr int WIT = TT_DIV_UP(BM, WM);
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * 64];
  const uint row = threadIdx.x / (BK / 4), col = threadIdx.x % (BK / 4);
  float acc[WIT * TM * TN] = {0.0f};
  for (uint k0 = 0; k0 < K; k0 += BK) {  // @ts_k
    for (uint o = 0; o + STRIDE <= BM; o += STRIDE) {  // @ts_o
      float4 v = reinterpret_cast<const float4*>(&A[(row + o) * K + col * 4])[0];
      As[(col * 4 + 0) * BM + row + o] = v.x;
      As[(col * 4 + 1) * BM + row + o] = v.y;
      As[(col * 4 + 2) * BM + row + o] = v.z;
      As[(col * 4 + 3) * BM + row + o] = v.w;
    }
    Bs[threadIdx.x] = B[threadIdx.x];
    __syncthreads();
    for (uint w = 0; w < WIT; ++w) {  // @ts_w
      for (uint k = 0; k < BK; ++k) {  // @ts_kk
        for (uint m = 0; m < TM; ++m) {  // @ts_m
          for (uint n = 0; n < TN; ++n) {  // @ts_n
            acc[(w * TM + m) * TN + n] += As[k * BM + w * WM + m] * Bs[k * 64 + n * 16 + col];
          }
        }
      }
    }
    __syncthreads();
    A += BK;
    B += BK * 64;
  }
  for (uint w = 0; w < WIT; ++w) {  // @ts_ow
    for (uint m = 0; m < TM; ++m) {  // @ts_om
      C[(w * WM + m) * 64 + threadIdx.x] = acc[(w * TM + m) * TN] + acc[(w * TM + m) * TN + 1];
    }
  }
}

template __global__ void tt_stride<64, 16, 4, 2>(int, const float*, const float*, float*);
template __global__ void tt_stride<256, 8, 2, 2>(int, const float*, const float*, float*);

// Double-buffered: the header's fill before the K loop and for the next tile inside it.
template <int BM, int BK>
__global__ void tt_double(int K, const float* __restrict__ A, float* C) {
  constexpr uint STEP = (TT_THREADS * 4) / BK;
  __shared__ float As[2 * BM * BK];
  const uint row = threadIdx.x / (BK / 4), col = threadIdx.x % (BK / 4);
  float acc = 0.0f;
  int cur = 0;
  tt_fill<BM, STEP>(A, As, K, row, col);  // @td_pro
  __syncthreads();
  for (uint k0 = 0; k0 < K - BK; k0 += BK) {  // @td_k
    tt_fill<BM, STEP>(A + BK, As + (1 - cur) * BM * BK, K, row, col);  // @td_next
    for (uint k = 0; k < BK; ++k) acc += As[cur * BM * BK + k * BM + threadIdx.x % BM];  // @td_kk
    __syncthreads();
    cur = 1 - cur;
    A += BK;
  }
  C[blockIdx.x * TT_THREADS + threadIdx.x] = acc;
}

template __global__ void tt_double<128, 8>(int, const float*, float*);

// A tile loaded by a TS x TS block of threads, each row and column from the thread's index:
// the prefetch of the next tile under `if (t + 1 < tiles)`, a register tile over the current.
template <int TILE, int TS>
__global__ void tt_prefetch(const float* __restrict__ A, float* __restrict__ C, int M, int K) {
  constexpr int PER = TILE / TS;
  __shared__ float As[2][TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  float acc[PER][PER] = {{0.0f}};
  const int tiles = (K + TILE - 1) / TILE;
  int buf = 0;
  for (int i = ty; i < TILE; i += TS) {  // @tp_pi
    for (int j = tx; j < TILE; j += TS) As[0][i][j] = A[(blockIdx.y * TILE + i) * K + j];  // @tp_pj
  }
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {  // @tp_t
    const int rd = buf;
    buf = 1 - buf;
    if (t + 1 < tiles) {
      const int next = (t + 1) * TILE;
      for (int i = ty; i < TILE; i += TS) {  // @tp_i
        for (int j = tx; j < TILE; j += TS) {  // @tp_j
          const int r = blockIdx.y * TILE + i, c = next + j;
          As[buf][i][j] = (r < M && c < K) ? A[r * K + c] : 0.0f;
        }
      }
    }
    for (int k = 0; k < TILE; ++k) {  // @tp_k
      for (int m = 0; m < PER; ++m) {  // @tp_m
        for (int n = 0; n < PER; ++n) acc[m][n] += As[rd][ty * PER + m][k] * As[rd][k][tx * PER + n];  // @tp_n
      }
    }
    __syncthreads();
  }
  for (int m = 0; m < PER; ++m) {  // @tp_om
    for (int n = 0; n < PER; ++n) C[(ty * PER + m) * M + tx * PER + n] = acc[m][n];  // @tp_on
  }
}

template __global__ void tt_prefetch<32, 8>(const float*, float*, int, int);
