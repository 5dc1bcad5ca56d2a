// Helpers of tests/data/loops/census.cu, in a header so their loops are loops of an included
// file (the census reads them exactly like the main file's). `// @name` marks a loop statement
// or a call site; labels.json names them.
#pragma once

#define HT 8  // the helper tile

// A register-tile outer product: an 8x8 nest of constant loops, fully unrolled wherever it is
// inlined (64 FFMA per call).
__device__ __forceinline__ void outer8(float (&acc)[HT][HT], const float* a, const float* b) {
#pragma unroll
  for (int m = 0; m < HT; ++m) {  // @h_m
#pragma unroll
    for (int n = 0; n < HT; ++n) {  // @h_n
      acc[m][n] = fmaf(a[m], b[n], acc[m][n]);
    }
  }
}

// A short constant loop, inlined at two call sites of one kernel.
__device__ __forceinline__ float axpy4(const float* x, float a, float y) {
  for (int i = 0; i < 4; ++i) {  // @h_axpy
    y = fmaf(a, x[i * 32], y);
  }
  return y;
}

// A runtime loop inside a header helper: stays a loop wherever it is inlined.
__device__ __forceinline__ float hsum(const float* x, int n) {
  float s = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @h_sum
    s += x[i] * x[i];
  }
  return s;
}

// Not inlined: the slow path a hot loop calls now and then (a CALL in the loop's body).
__device__ __noinline__ void slow_path(float* out, int i, float v) {
  atomicAdd(out + (i & 255), v);
}
