// Helpers of mactile.cu (tests/test_loop_mactile.py): register-tile micro-kernels whose loop
// bounds are their own template parameters, given at each call site by the caller's
// constants. `// @name` marks a loop statement or a call site.
#pragma once

typedef unsigned int uint;

// acc += a (x) b for one thread's BM x BN tile, BK k-steps out of shared memory.
template <int BK, int BM, int BN>
__device__ __forceinline__ void mac_tile(float (&acc)[BM][BN], const float* As, const float* Bs,
                                         uint ty, uint tx) {
  for (int k = 0; k < BK; ++k) {  // @mt_k
    float a[BM], b[BN];
    for (int m = 0; m < BM; ++m) a[m] = As[k * 64 + ty * BM + m];  // @mt_a
    for (int n = 0; n < BN; ++n) b[n] = Bs[k * 64 + tx * BN + n];  // @mt_b
    for (int m = 0; m < BM; ++m) {  // @mt_m
      for (int n = 0; n < BN; ++n) acc[m][n] = fmaf(a[m], b[n], acc[m][n]);  // @mt_n
    }
  }
}

// One row of the tile to global memory, COLS floats.
template <int COLS>
__device__ __forceinline__ void store_row(const float* row, float* out) {
  for (int n = 0; n < COLS; ++n) out[n] = row[n];  // @sr_n
}

// The tile to global memory: a row at a time, the row's width passed on.
template <int ROWS, int COLS>
__device__ __forceinline__ void store_tile(const float (&acc)[ROWS][COLS], float* C, int ldc) {
  for (int m = 0; m < ROWS; ++m) {  // @st_m
    store_row<COLS>(acc[m], C + m * ldc);  // @st_call
  }
}

// A tile shape as a config struct's members, read through a type parameter.
struct Tile82 {
  static constexpr int TM = 8;
  static constexpr int TN = 2;
};

template <typename Cfg>
__device__ __forceinline__ void scale_tile(float (&acc)[Cfg::TM][Cfg::TN], float alpha) {
  for (int m = 0; m < Cfg::TM; ++m) {  // @sc_m
    for (int n = 0; n < Cfg::TN; ++n) acc[m][n] = __expf(acc[m][n] * alpha);  // @sc_n
  }
}

// Half the rows of a column, the count a constexpr local of the helper's parameter.
template <int ROWS>
__device__ __forceinline__ void scale_half(float* out, const float* in, float s) {
  constexpr int HALF = ROWS / 2;
  for (int r = 0; r < HALF; ++r) out[r * 64] = in[r * 64] * s;  // @sh_r
}
