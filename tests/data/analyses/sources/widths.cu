// One access width per kernel, known by construction (sassview memory_width tests).
struct F3 { float x, y, z; };

// float4 in, float4 out: LDG.E.128 / STG.E.128.
extern "C" __global__ void vec4(const float4* __restrict__ a, float4* __restrict__ out) {
  float4 v = a[threadIdx.x];
  out[threadIdx.x] = make_float4(v.x * 2.0f, v.y * 2.0f, v.z * 2.0f, v.w * 2.0f);
}

// float2 in, float2 out: LDG.E.64 / STG.E.64.
extern "C" __global__ void vec2(const float2* __restrict__ a, float2* __restrict__ out) {
  float2 v = a[threadIdx.x];
  out[threadIdx.x] = make_float2(v.x * 2.0f, v.y * 2.0f);
}

// One float in, one float out: LDG.E / STG.E.
extern "C" __global__ void scalar(const float* __restrict__ a, float* __restrict__ out) {
  out[threadIdx.x] = a[threadIdx.x] * 2.0f;
}

// Four consecutive floats starting one element past a 16-byte boundary: no float4 is possible,
// so four 32-bit loads at [base+0x4], +0x8, +0xc, +0x10.
extern "C" __global__ void offset1(const float* __restrict__ a, float* __restrict__ out) {
  const float* p = a + threadIdx.x * 4 + 1;
  out[threadIdx.x] = p[0] + p[1] + p[2] + p[3];
}

// A 12-byte struct: three 32-bit loads at +0x0, +0x4, +0x8.
extern "C" __global__ void struct3(const F3* __restrict__ a, float* __restrict__ out) {
  F3 v = a[threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.z;
}

// 8- and 16-bit elements.
extern "C" __global__ void narrow_types(const unsigned char* __restrict__ c,
                                        const short* __restrict__ s, int* __restrict__ out) {
  out[threadIdx.x] = c[threadIdx.x] + s[threadIdx.x];
}

// Shared memory written and read as float4: STS.128 / LDS.128.
extern "C" __global__ void shared4(const float4* __restrict__ a, float4* __restrict__ out) {
  __shared__ float4 tile[128];
  tile[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[127 - threadIdx.x];
}
