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

// A helper whose loop calls another helper with a loop: the inner one is inlined twice over.
__device__ __forceinline__ float dot4(const float* a, const float* b) {
  float s = 0.0f;
  for (int i = 0; i < 4; ++i) s = fmaf(a[i], b[i], s);  // @h_dot4
  return s;
}

__device__ __forceinline__ float rows2(const float* a, const float* b, int lda) {
  float s = 0.0f;
  for (int r = 0; r < 2; ++r) {  // @h_rows
    s += dot4(a + r * lda, b);  // @h_rows_call
  }
  return s;
}

// A runtime while loop in a helper: one SASS loop per call site.
__device__ __forceinline__ int hcount(const int* x, int limit) {
  int i = 0;
  while (i < limit && x[i] != 0) ++i;  // @h_while
  return i;
}

// A kernel that lives in the header (a .cuh of kernels, included by a runner).
extern "C" __global__ void in_header(const float* __restrict__ x, float* __restrict__ out, int n) {
  float s = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @ih_outer
    for (int j = 0; j < 4; ++j) {  // @ih_inner
      s = fmaf(s, 0.5f, x[i * 4 + j]);
    }
  }
  out[threadIdx.x] = s;
}

// A butterfly warp reduction (the step halves: no trip count from the header).
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);  // @h_warp
  return v;
}

// A template helper whose trip count is its argument, called with two.
template <int N>
__device__ __forceinline__ void accum(float (&a)[N], const float* p) {
#pragma unroll
  for (int i = 0; i < N; ++i) a[i] += p[i * 32];  // @h_accum
}
