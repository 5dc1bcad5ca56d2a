// Vector adds: one 128-bit (float4) and one scalar, plus a misaligned float2 view.
extern "C" __global__ void add_f4(const float4* __restrict__ a, const float4* __restrict__ b,
                                  float4* __restrict__ c, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

extern "C" __global__ void add_scalar(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
