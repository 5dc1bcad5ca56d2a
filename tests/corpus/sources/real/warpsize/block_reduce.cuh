// A reduction header that relies on its includer: WARPSIZE and `real` are defined by the .cu
// that includes it (reduce.cu), as in codebases whose headers are never compiled alone.
#pragma once

__device__ inline real warp_reduce(real v) {
#pragma unroll
    for (int off = WARPSIZE / 2; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

__global__ void block_reduce(const real* in, real* out, int n) {
    __shared__ real partial[1024 / WARPSIZE];
    real v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    v = warp_reduce(v);
    if (threadIdx.x % WARPSIZE == 0) partial[threadIdx.x / WARPSIZE] = v;
    __syncthreads();
    if (threadIdx.x < WARPSIZE) {
        v = threadIdx.x < blockDim.x / WARPSIZE ? partial[threadIdx.x] : real(0);
        v = warp_reduce(v);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}
