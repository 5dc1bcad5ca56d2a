// Helpers of tutor.cu (tests/test_loop_tutor.py): the shared-memory fill of a tutorial SGEMM
// written as a header template whose tile loop stops before a partial tile
// (`o + STEP <= ROWS`), its step a template parameter the caller passes from a constexpr
// local. `// @name` marks a loop statement or a call site.
#pragma once

typedef unsigned int uint;

#define TT_DIV_UP(a, b) (((a) + (b)-1) / (b))

// ROWS x 4 floats of A into As (transposed), STEP rows a step, float4 loads.
template <int ROWS, int STEP>
__device__ __forceinline__ void tt_fill(const float* A, float* As, int lda, uint row, uint col) {
  for (uint o = 0; o + STEP <= ROWS; o += STEP) {  // @tf_o
    float4 v = reinterpret_cast<const float4*>(&A[(row + o) * lda + col * 4])[0];
    As[(col * 4 + 0) * ROWS + row + o] = v.x;
    As[(col * 4 + 1) * ROWS + row + o] = v.y;
    As[(col * 4 + 2) * ROWS + row + o] = v.z;
    As[(col * 4 + 3) * ROWS + row + o] = v.w;
  }
}
