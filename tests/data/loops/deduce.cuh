// Helpers of deduce.cu (tests/test_loop_deduce.py): device templates whose arguments the
// compiler deduces from the call (`outer_acc(acc, a, b)`), never written at the call site.
// `// @name` marks a loop statement or a call site.
#pragma once
#include <cuda/std/type_traits>

typedef unsigned int uint;

// Four rows of a column, scaled: its loop on the same line number as its call in deduce.cu.
template <int ROWS>
__device__ __forceinline__ void scale_col(float* out, const float* in, float s) {
  for (int r = 0; r < ROWS; ++r) out[r * 64] = in[r * 64] * s;  // @sc_r
}

// acc += a (x) b: both extents deduced from the caller's 2-D accumulator.
template <int TM, int TN>
__device__ __forceinline__ void outer_acc(float (&acc)[TM][TN], const float* a, const float* b) {
  for (int m = 0; m < TM; ++m) {  // @oa_m
    for (int n = 0; n < TN; ++n) acc[m][n] = fmaf(a[m * 32], b[n * 32], acc[m][n]);  // @oa_n
  }
}

// The K steps of a shared tile: BK deduced from the shared array's rows, TM from acc's length.
template <int BK, int TM>
__device__ __forceinline__ void mac_smem(float (&acc)[TM], const float (&As)[BK][64],
                                         const float* b, uint ty) {
  for (uint k = 0; k < BK; ++k) {  // @ms_k
    const float bk = b[k * 32];
    for (uint m = 0; m < TM; ++m) acc[m] = fmaf(As[k][ty * TM + m], bk, acc[m]);  // @ms_m
  }
}

// A sum of squares of a register array of any length.
template <int N>
__device__ __forceinline__ float sum_sq(const float (&x)[N]) {
  float s = 0.f;
  for (int i = 0; i < N; ++i) s = fmaf(x[i], x[i], s);  // @ss_i
  return s;
}

// A step given, the length deduced.
template <int STEP, int R>
__device__ __forceinline__ void scale_every(float (&v)[R], float s) {
  for (int r = 0; r < R; r += STEP) v[r] *= s;  // @se_r
}

// One row of a tile, its width deduced from the row (acc[m] of the tile below).
template <int C>
__device__ __forceinline__ void store_row(const float (&row)[C], float* out) {
  for (int n = 0; n < C; ++n) out[n * 32] = row[n];  // @sr_n
}

template <int R, int C>
__device__ __forceinline__ void store_tile(const float (&acc)[R][C], float* out, int ld) {
  for (int m = 0; m < R; ++m) {  // @st_m
    store_row(acc[m], out + m * ld);  // @st_call
  }
}

// An integer carried by a tag type, as std::integral_constant carries one.
template <int V>
struct Int {
  static constexpr int value = V;
};

template <int N>
__device__ __forceinline__ void zero_n(Int<N>, float* p) {
  for (int i = 0; i < N; ++i) p[i * 32] = 0.f;  // @zn_i
}

template <class Tag>
__device__ __forceinline__ void neg_tag(Tag, float* p) {
  for (int i = 0; i < Tag::value; ++i) p[i * 32] = -p[i * 32];  // @nt_i
}

template <int N>
__device__ __forceinline__ void add_ic(cuda::std::integral_constant<int, N>, float* p, float v) {
  for (int i = 0; i < N; ++i) p[i * 32] += v;  // @ai_i
}

// A tile shape as a config object passed by value: its members through the deduced type.
struct Tile44 {
  static constexpr int TM = 4;
  static constexpr int TN = 4;
};

template <class Cfg>
__device__ __forceinline__ void store_cfg(Cfg cfg, const float (&acc)[Cfg::TM][Cfg::TN],
                                          float* out) {
  for (int m = 0; m < Cfg::TM; ++m) {  // @sf_m
    for (int n = 0; n < Cfg::TN; ++n) out[(m * Cfg::TN + n) * 32] = acc[m][n];  // @sf_n
  }
}

// A fragment of registers as a struct template, passed by reference and by pointer.
template <int M, int N>
struct Frag {
  static constexpr int ROWS = M;
  float v[M][N];
};

template <int M, int N>
__device__ __forceinline__ void frag_load(Frag<M, N>* f, const float* in) {
  for (int m = 0; m < M; ++m) {  // @fl_m
    for (int n = 0; n < N; ++n) f->v[m][n] = in[(m * N + n) * 32];  // @fl_n
  }
}

template <int M, int N>
__device__ __forceinline__ void frag_store(const Frag<M, N>& f, float* out) {
  for (int m = 0; m < M; ++m) {  // @fs_m
    for (int n = 0; n < N; ++n) out[(m * N + n) * 32] = f.v[m][n];  // @fs_n
  }
}

template <class F>
__device__ __forceinline__ void frag_rows(F& f, const float* in) {
  for (int m = 0; m < F::ROWS; ++m) f.v[m][0] += in[m * 32];  // @fr_m
}

// A fragment's type and a row's by the names a config header gives them.
using Frag24 = Frag<2, 4>;
typedef float Row5[5];
