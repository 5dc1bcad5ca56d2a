extern __device__ int helper(int x);

__device__ __noinline__ int twice(int x) {
    return 2 * x;
}

extern "C" __global__ void caller(int* out) {
    out[threadIdx.x] = helper(twice(threadIdx.x));
}
