// With -rdc=true the __noinline__ function keeps its own .text section: a non-entry "kernel".
__device__ __noinline__ float helper(float x, int k) {
    float s = 0;
    for (int j = 0; j < k; ++j) s += __sinf(x * j);
    return s;
}
extern "C" __global__ void caller(float* x, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = helper(x[i], k);
}
