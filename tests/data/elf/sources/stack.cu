// outer: a dynamically indexed local array (stack frame); recur: recursion (stack size UNKNOWN).
__device__ __noinline__ int fib(const int* idx, int n) {
    int t[8];
    #pragma unroll 1
    for (int k = 0; k < 8; ++k) t[k] = k * n;
    return n <= 1 ? t[idx[n] & 7] : fib(idx, n - 1) + fib(idx, n - 2);
}
extern "C" __global__ void outer(const int* idx, int* out, int n) {
    int t[64];
    #pragma unroll 1
    for (int k = 0; k < 64; ++k) t[k] = k * n;
    out[threadIdx.x] = t[idx[threadIdx.x] & 63];
}
extern "C" __global__ void recur(const int* idx, int* out, int n) { out[threadIdx.x] = fib(idx, n); }
