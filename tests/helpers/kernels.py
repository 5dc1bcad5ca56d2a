"""Kernels and projects of ours that more than one test module compiles."""

from __future__ import annotations

from pathlib import Path

# A strided scale-and-shift, as a library writes one: 128-bit loads of float4 by default;
# WIDTH=1 reads scalars (a change that matters); SHIFT changes one immediate (one that does not).
SCALE_SHIFT = """\
#ifndef WIDTH
#define WIDTH 4
#endif
#ifndef SHIFT
#define SHIFT 1.0f
#endif
extern "C" __global__ void scale_shift(const float* __restrict__ x, float* __restrict__ y,
                                       float a, int n) {
  int stride = gridDim.x * blockDim.x * WIDTH;
  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) * WIDTH; i + WIDTH <= n; i += stride) {
#if WIDTH == 4
    float4 v = *reinterpret_cast<const float4*>(x + i);
    v.x = a * v.x + SHIFT; v.y = a * v.y + SHIFT; v.z = a * v.z + SHIFT; v.w = a * v.w + SHIFT;
    *reinterpret_cast<float4*>(y + i) = v;
#else
    y[i] = a * x[i] + SHIFT;
#endif
  }
}
"""


# A CMake project with a compile database (tests/data/cmake_project).
CMAKE_PROJECT = Path(__file__).parents[1] / "data" / "cmake_project"
