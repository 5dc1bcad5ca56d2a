// Loop trip counts from the constants the compiler saw: a config struct's constexpr members,
// template parameters, constexpr locals, enum values, sizeof, unsigned induction variables,
// strides, <= bounds and count-down loops. No #pragma unroll: the compilers decide alone.
typedef unsigned int uint;

struct GemmCfg {
  static constexpr int BM = 64;
  static constexpr int BK = 8;
  static constexpr int TM = 8;
  static constexpr int TN = 4;
};

// A register-tiled SGEMM whose tile sizes come from a config struct.
template <typename Cfg>
__global__ void cfg_sgemm(const float* A, const float* B, float* C, int K) {
  __shared__ float As[Cfg::BK][Cfg::BM];
  __shared__ float Bs[Cfg::BK][Cfg::BM];
  float acc[Cfg::TM][Cfg::TN] = {};
  float a[Cfg::TM], b[Cfg::TN];
  const uint tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  for (int k0 = 0; k0 < K; k0 += Cfg::BK) {
    As[threadIdx.x % Cfg::BK][threadIdx.x / Cfg::BK] = A[k0 + threadIdx.x];
    Bs[threadIdx.x % Cfg::BK][threadIdx.x / Cfg::BK] = B[k0 + threadIdx.x];
    __syncthreads();
    for (uint k = 0; k < Cfg::BK; ++k) {
      for (uint m = 0; m < Cfg::TM; ++m) a[m] = As[k][ty * Cfg::TM + m];
      for (uint n = 0; n < Cfg::TN; ++n) b[n] = Bs[k][tx * Cfg::TN + n];
      for (uint m = 0; m < Cfg::TM; ++m)
        for (uint n = 0; n < Cfg::TN; ++n) acc[m][n] += a[m] * b[n];
    }
    __syncthreads();
  }
  for (uint m = 0; m < Cfg::TM; ++m)
    for (uint n = 0; n < Cfg::TN; ++n) C[(ty * Cfg::TM + m) * 64 + tx * Cfg::TN + n] = acc[m][n];
}
template __global__ void cfg_sgemm<GemmCfg>(const float*, const float*, float*, int);

// Tiles as template parameters, instantiated twice.
template <int TM, int TN>
__global__ void tile_sgemm(const float* A, const float* B, float* C, int K) {
  float acc[TM][TN] = {};
  for (int k = 0; k < K; ++k) {
    float a[TM], b[TN];
    for (int m = 0; m < TM; ++m) a[m] = A[k * 128 + threadIdx.x * TM + m];
    for (int n = 0; n < TN; ++n) b[n] = B[k * 128 + threadIdx.x * TN + n];
    for (int m = 0; m < TM; ++m)
      for (int n = 0; n < TN; ++n) acc[m][n] = fmaf(a[m], b[n], acc[m][n]);
  }
  for (int m = 0; m < TM; ++m)
    for (int n = 0; n < TN; ++n) C[(threadIdx.x * TM + m) * TN + n] = acc[m][n];
}
template __global__ void tile_sgemm<4, 4>(const float*, const float*, float*, int);
template __global__ void tile_sgemm<8, 2>(const float*, const float*, float*, int);

enum { kVec = 4, kRows = 6 };

// Bounds from a constexpr local, an enum, sizeof, a stride, a <= bound and a count-down.
__global__ void shapes(const float4* in, float* out) {
  constexpr int kItems = 12;
  float s = 0.f;
  float v[kItems];
  for (int i = 0; i < kItems; ++i) v[i] = out[threadIdx.x + i * 256];
  for (int i = 0; i < kItems; i += 4) s += v[i] * v[i + 1] + v[i + 2] * v[i + 3];
  for (int r = 0; r < kRows; ++r) s += __expf(v[r]);
  float4 q = in[threadIdx.x];
  const float* f = reinterpret_cast<const float*>(&q);
  for (uint j = 0; j < sizeof(float4) / sizeof(float); ++j) s = fmaxf(s, f[j]);
  for (int i = 1; i <= kVec; ++i) s = s * 0.5f + v[i];
  for (int i = kItems - 1; i >= kItems / 2; --i) s -= v[i];
  for (unsigned i = 0; i < kItems / kVec; ++i) s += __sinf(v[i]);
  out[threadIdx.x] = s;
}
