__constant__ float coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int counter = 7;

__device__ __noinline__ float poly(float x) {
    return coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3]));
}

extern "C" __global__ void __launch_bounds__(128, 4) bounded(float* __restrict__ y, int n) {
    __shared__ float tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? y[i] : 0.0f;
    __syncthreads();
    if (i < n) {
        y[i] = poly(tile[127 - threadIdx.x]);
    }
    if (i == 0) {
        atomicAdd(&counter, 1);
    }
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __maxnreg__(64) clustered(float* y) {
    y[threadIdx.x] *= 2.0f;
}
