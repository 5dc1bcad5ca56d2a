// Shared by every kernel header: the block size the build picks (-DBLOCK_THREADS) and a warp sum.
#pragma once
#ifndef BLOCK_THREADS
#error "BLOCK_THREADS comes from the build"
#endif

__device__ inline float warp_sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
