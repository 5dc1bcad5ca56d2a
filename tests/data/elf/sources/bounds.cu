// Launch bounds (max threads, min blocks, max cluster rank), __maxnreg__, __cluster_dims__.
extern "C" __global__ void __launch_bounds__(128, 4) scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
extern "C" __global__ void __launch_bounds__(256, 2, 2) scale3(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
extern "C" __global__ void __maxnreg__(40) maxreg(float* x) { x[threadIdx.x] = 0; }
extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered(float* x) { x[threadIdx.x] = 0; }
