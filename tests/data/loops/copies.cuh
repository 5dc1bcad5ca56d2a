// Helpers of copies.cu (tests/test_loop_copies.py): a register-tile micro-kernel written the
// way GEMM tutorials write theirs, in a header so its loops are an included file's, inlined at
// a call site inside a rolled K loop. `// @name` marks a loop statement or a call site.
#pragma once

typedef unsigned int uint;

// acc += a (x) b over a TM x TN tile: no pragma, the compilers decide alone.
template <int TM, int TN>
__device__ __forceinline__ void micro_tile(float (&acc)[TM][TN], const float* a,
                                           const float* b) {
  for (uint m = 0; m < TM; ++m) {  // @mt_m
    for (uint n = 0; n < TN; ++n) {  // @mt_n
      acc[m][n] += a[m] * b[n];
    }
  }
}

// Two reductions of a warp in one butterfly: a max and a sum shuffle per step.
__device__ __forceinline__ void warp_max_sum(float& m, float& s) {
  for (int o = 16; o > 0; o >>= 1) {  // @wms_o
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    s += __shfl_xor_sync(0xffffffffu, s, o);
  }
}

// One K step of a register tile, its own k loop first: called inside the main file's K loop,
// so its outermost loop sits in a loop of its own nesting depth (1).
template <int BK, int BM, int BN, int TM, int TN>
__device__ __forceinline__ void tile_step(float (&acc)[TM][TN], const float* As,
                                          const float* Bs, uint row, uint col) {
  for (uint k = 0; k < BK; ++k) {  // @ts_k
    for (uint m = 0; m < TM; ++m) {  // @ts_m
      for (uint n = 0; n < TN; ++n) {  // @ts_n
        acc[m][n] += As[k * BM + row * TM + m] * Bs[k * BN + col * TN + n];
      }
    }
  }
}
