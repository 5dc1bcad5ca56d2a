// Four neighbouring floats per thread, read two ways.
// sum4 reads them as one float4: a single 128-bit load (LDG.E.128).
// sum4_scalar reads them through a float*: ptxas cannot prove the 16-byte alignment, so it
// emits four 32-bit loads (LDG.E) at +0x0, +0x4, +0x8 and +0xc from one base register.
extern "C" __global__ void sum4(const float4* __restrict__ in, float* __restrict__ out) {
  float4 v = in[threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

extern "C" __global__ void sum4_scalar(const float* __restrict__ in, float* __restrict__ out) {
  const float* p = in + threadIdx.x * 4;
  out[threadIdx.x] = p[0] + p[1] + p[2] + p[3];
}
