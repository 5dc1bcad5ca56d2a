// Launch bounds, a non-inlined device function (CALL/RET), and an inlined chain.
__device__ __noinline__ float slow_square(float x) { return x * x + 1.0f; }
__device__ __forceinline__ float inner(float x) { return x * 3.0f + __sinf(x); }
__device__ __forceinline__ float outer(float x) { return inner(x) * inner(x + 1.0f); }

__global__ void __launch_bounds__(128, 4) bounded(float* p) {
  float v = p[threadIdx.x];
  p[threadIdx.x] = outer(v) + slow_square(v);
}
