// Two ways to add vectors. `sassview check examples/vecadd.cu` shows the difference:
// add_f4 moves 128 bits per load (LDG.E.128), add_scalar 32 (LDG.E).
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
