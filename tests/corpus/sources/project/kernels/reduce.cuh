// A header that needs its includer's context: `value_t` and WARPSIZE come from the file that
// includes it (runner.cu, or context.h with --include-before).
#pragma once

__global__ void warp_sum(const value_t* in, value_t* out) {
    value_t v = in[blockIdx.x * WARPSIZE + threadIdx.x];
#pragma unroll
    for (int offset = WARPSIZE / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
