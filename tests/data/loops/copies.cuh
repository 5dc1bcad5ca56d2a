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
