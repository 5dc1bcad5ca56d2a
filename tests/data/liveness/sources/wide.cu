// Wide operands: float4 / double2 / 64-bit integers, their conversions, and the library
// subroutines (CALL/RET) that double and 64-bit division bring in.
extern "C" __global__ void vec(const float4* a, const double2* d, const int2* c, float4* o, double2* od,
                               short* s, char* ch, const uchar4* u4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = a[i];
  double2 w = d[i];
  int2 z = __ldg(&c[i]);
  v.x += w.x; v.y += (float)z.x; v.z += (float)z.y; v.w *= 2.f;
  o[i] = v;
  w.y += v.z; od[i] = w;
  s[i] = (short)(v.x) + s[i + 1];
  ch[i] = (char)v.y + ch[i + 3];
  uchar4 q = u4[i];
  o[i + 1000] = make_float4(q.x, q.y, q.z, q.w);
}
extern "C" __global__ void dbl(const double* a, double* out, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = a[i + n];
  double r = x * y + x / y + (double)f + (double)i;
  r = r > 3.0 ? r * 2.0 : r - 1.0;
  float g = (float)r;
  out[i] = r + (double)(long long)x + (double)g;
  out[i + n] = (double)(unsigned)(r * 7.0) + fma(x, y, r);
}
extern "C" __global__ void int64(const long long* a, unsigned long long* out, long long d) {
  int i = threadIdx.x;
  long long x = a[i], y = a[i + 32];
  unsigned long long u = (unsigned long long)x * (unsigned long long)y + (x >> 7) + ((unsigned long long)y >> 13);
  u ^= (u << 17) | __brevll(u) | (unsigned long long)__popcll(x) | (unsigned long long)__clzll(y);
  u += __umul64hi(u, (unsigned long long)y) + __mul64hi(x, y);
  out[i] = u + x / d + (unsigned long long)y % 1000003ull + (x < y ? 5 : 9);
  out[i + 32] = (unsigned long long)min(x, y) + max((unsigned long long)x, (unsigned long long)y);
}
extern "C" __global__ void atom(int* ai, float* af, double* ad, unsigned long long* al, int* out) {
  __shared__ int sh[256];
  __shared__ float shf[256];
  int t = threadIdx.x;
  sh[t] = 0; shf[t] = 0.f;
  __syncthreads();
  atomicAdd(&sh[t & 7], 1);
  atomicAdd(&shf[t & 3], 1.5f);
  int old = atomicAdd(ai, t);
  atomicAdd(ad + (t & 3), 2.0);
  int c = atomicCAS(ai + 1, t, old);
  unsigned long long e = atomicExch(al, (unsigned long long)t);
  unsigned long long c2 = atomicCAS(al + 1, e, (unsigned long long)c);
  __syncthreads();
  out[t] = sh[t & 7] + (int)shf[t & 3] + c + (int)e + old + (int)c2;
}
extern "C" __global__ void warp(const int* in, int* out) {
  int t = threadIdx.x;
  int v = in[t];
  int s = __shfl_sync(0xffffffff, v, 3) + __shfl_down_sync(0xffffffff, v, 1);
  unsigned b = __ballot_sync(0xffffffff, v > 3);
  int all = __all_sync(0xffffffff, v != 9);
  unsigned m = __match_any_sync(0xffffffff, v);
  int r = __reduce_add_sync(0xffffffff, v);
  double dd = __shfl_sync(0xffffffff, (double)v, 5);
  out[t] = s + b + all + m + r + __popc(b) + __brev(v) + (int)dd;
}
