// Predicated code, loops, spills, a non-inlined device function (CALL/RET), an external call
// (vprintf through CALL.ABS), recursion (a stack frame) and a BPT.TRAP-free early exit.
extern "C" __device__ int vprintf(const char*, const char*);
__device__ __noinline__ float helper(float x, int n) { float s = 0; for (int i = 0; i < n; ++i) s += sinf(x * i); return s; }
__device__ __noinline__ int fib(const int* idx, int n) {
  int t[8];
  #pragma unroll 1
  for (int k = 0; k < 8; ++k) t[k] = k * n;
  return n <= 1 ? t[idx[n] & 7] : fib(idx, n - 1) + fib(idx, n - 2);
}
extern "C" __global__ void calls(const float* a, float* o, const int* idx, int n) {
  int i = threadIdx.x;
  o[i] = helper(a[i], n) + (float)fib(idx, n);
  if (i == 0) { struct { int a; double b; } args = {n, a[0]}; vprintf("hello %d %f\n", (const char*)&args); }
}
extern "C" __global__ void pred(const int* a, int* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = a[i];
  int r = 0;
  if (x > 5) r = x * 3; else if (x < -5) r = x - 9; else r = x ^ 0x55;
  if ((x & 1) && (r > n || x < n)) r += a[i + 1];
  for (int j = 0; j < (x & 31); ++j) { if (j == n) break; r += j * x; if (r > 1000) continue; r ^= j; }
  o[i] = r;
  while (r > 1) { r = (r & 1) ? 3 * r + 1 : r >> 1; o[i + 1] = r; }
}
extern "C" __global__ void __launch_bounds__(1024) spill(const float* a, float* o, int n) {
  float v[48];
  #pragma unroll
  for (int j = 0; j < 48; ++j) v[j] = a[threadIdx.x * 48 + j];
  for (int it = 0; it < n; ++it) {
    #pragma unroll
    for (int j = 0; j < 48; ++j) v[j] = v[j] * v[(j + 1) % 48] + v[(j + 7) % 48];
  }
  float s = 0;
  #pragma unroll
  for (int j = 0; j < 48; ++j) s += v[j] * (float)j;
  o[threadIdx.x] = s;
}
