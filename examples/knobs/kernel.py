"""Two knobs and what they do to the SASS: `sassview check examples/knobs/kernel.py`.

- `-maxrregcount`: 64 live accumulators fit in 96 registers; capped at 32, ptxas spills them to
  local memory (STL/LDL marked SpillRefill) and the report names the option that caused it.
- `#pragma unroll N` on a loop with a runtime trip count and stride: the SASS loop body holds N
  copies of the statement, each followed by an exit test (no remainder loop).
"""

import sassview as sv

ACCUMULATE = r"""
__global__ void accumulate(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x * 64 + i];
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = acc[i] * acc[(i + 7) % 64] + 1.0f;
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += acc[i];
  out[threadIdx.x] = s;
}
"""

SUM = r"""
__global__ void strided_sum(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc = 0.0f;
#pragma unroll UNROLL
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];
  out[threadIdx.x] = acc;
}
"""

sv.cuda(ACCUMULATE, arch="sm_90a", variants={"-maxrregcount": [32, 128]})
sv.cuda(SUM, arch="sm_90a", variants={"UNROLL": [1, 2, 4, 8]})
