// Loops the compilers turn into several SASS loops at one source line, for the views that must
// name each apart (tests/test_loop_names.py). Recorded by record.py (named.<arch>.*).
//
// Labels, read by hand from named.sm_80.sass.txt and named.sm_90a.sass.txt (both alike):
// - horner, line 18: two SASS loops. The first holds 4 LDG and 12 FFMA (4 iterations of 1
//   load and 3 FMA: the main loop, unrolled by 4 as asked), the second 1 LDG and 3 FFMA (one
//   iteration a trip: the remainder loop). Both use their load within a few issue cycles of
//   it: an exposed-load note on each, "line 18 (main loop)" and "line 18 (remainder loop)".
// - strided_sum, line 30: three SASS loops (sm_90a /*01f0*/, /*0600*/, /*0780*/), of 16, 4, 1
//   LDG + FADD a trip (and 8 straight-line between the first two): nothing asked, NVVM and
//   ptxas unrolled by 4 each: "line 30 (main loop)", "(remainder loop 1 of 2)", "(remainder
//   loop 2 of 2)"; the main loop and the last remainder use their load at once (two notes).

__global__ void horner(const float* __restrict__ x, float* __restrict__ y, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll 4
  for (int i = 0; i < n; ++i) {
    float v = x[(size_t)i * 4096 + t];
    acc = fmaf(acc, v, 1.0f);
    acc = fmaf(acc, acc, v);
    acc = fmaf(acc, 0.5f, v);
  }
  y[t] = acc;
}

__global__ void strided_sum(const float* __restrict__ x, float* __restrict__ y, int n) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) {
    acc += x[(size_t)i * 4096 + t];
  }
  y[t] = acc;
}
