// A labelled corpus of loop shapes real CUDA kernels use (tests/test_loop_census.py). Each loop
// statement and each call site of an inlined helper carries a `// @name` mark; labels.json says,
// per architecture, what the SASS holds for each (read by hand from the listings recorded
// beside it by record.py). Helpers live in census.cuh.
#include "census.cuh"

#define TM 8
#define TN 8
#define BK 8
#define BM 64
#define QSIZE 3

// Register-tiled SGEMM: a runtime K loop around shared-memory tiles and an 8x8 nest of
// constant loops (the rb loads step by 4: float4).
extern "C" __global__ void __launch_bounds__(64) sgemm_tile(const float* __restrict__ A,
                                                            const float* __restrict__ B,
                                                            float* __restrict__ C, int K) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BM];
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;
  for (int k0 = 0; k0 < K; k0 += BK) {  // @sg_k
    for (int i = 0; i < BK; ++i) {  // @sg_load
      As[i][threadIdx.x] = A[(k0 + i) * BM + threadIdx.x];
      Bs[i][threadIdx.x] = B[(k0 + i) * BM + threadIdx.x];
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {  // @sg_kk
      for (int m = 0; m < TM; ++m) ra[m] = As[k][ty * TM + m];  // @sg_ra
      for (int n = 0; n < TN; n += 4) {  // @sg_rb
        float4 v = *reinterpret_cast<const float4*>(&Bs[k][tx * TN + n]);
        rb[n] = v.x, rb[n + 1] = v.y, rb[n + 2] = v.z, rb[n + 3] = v.w;
      }
      for (int m = 0; m < TM; ++m) {  // @sg_m
        for (int n = 0; n < TN; ++n) {  // @sg_n
          acc[m][n] += ra[m] * rb[n];
        }
      }
    }
    __syncthreads();
  }
  for (int m = 0; m < TM; ++m) {  // @sg_st_m
    for (int n = 0; n < TN; n += 4) {  // @sg_st_n
      float4 v = make_float4(acc[m][n], acc[m][n + 1], acc[m][n + 2], acc[m][n + 3]);
      *reinterpret_cast<float4*>(&C[(ty * TM + m) * BM + tx * TN + n]) = v;
    }
  }
}

// A runtime K loop whose body is a call of an inlined, fully unrolled helper (census.cuh):
// one back-edge, two barriers a trip; the helper's 64 FFMA are not copies of the K loop.
extern "C" __global__ void __launch_bounds__(64) kloop_helper(const float* __restrict__ A,
                                                              const float* __restrict__ B,
                                                              float* __restrict__ C, int K) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BM];
  float acc[HT][HT] = {};
  const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;
  for (int k0 = 0; k0 < K; k0 += BK) {  // @kh_k
    for (int i = 0; i < BK; ++i) {  // @kh_load
      As[i][threadIdx.x] = A[(k0 + i) * BM + threadIdx.x];
      Bs[i][threadIdx.x] = B[(k0 + i) * BM + threadIdx.x];
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {  // @kh_kk
      outer8(acc, &As[k][ty * HT], &Bs[k][tx * HT]);  // @kh_call
    }
    __syncthreads();
  }
  float s = 0.0f;
  for (int m = 0; m < HT; ++m)  // @kh_sum_m
    for (int n = 0; n < HT; ++n) s += acc[m][n];  // @kh_sum_n
  C[blockIdx.x * 64 + threadIdx.x] = s;
}

// One helper inlined at two call sites: two entries for its loop, one per site.
extern "C" __global__ void two_sites(const float* __restrict__ x, float* __restrict__ out,
                                     float a, int n) {
  float y = axpy4(x + threadIdx.x, a, 0.0f);  // @ts_first
  y = axpy4(x + 128 + threadIdx.x, y, y);  // @ts_second
  y += hsum(x, n);  // @ts_sum
  out[threadIdx.x] = y;
}

// A runtime loop whose body ends in a call that is not inlined (CALL, then the back-edge).
extern "C" __global__ void slow_call(const float* __restrict__ x, float* __restrict__ out,
                                     int n, float limit) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {  // @sc_loop
    float v = x[i] * 2.0f;
    s += v;
    if (v > limit) slow_path(out, i, v);
  }
  out[256 + threadIdx.x] = s;
}

// Bodies of several instructions per line: expf (MUFU.EX2 and its scaling FMULs), if/else,
// and an online-softmax update (max, rescale, add).
extern "C" __global__ void bodies(const float* __restrict__ x, float* __restrict__ out, int n) {
  float s = 0.0f;
#pragma unroll 4
  for (int i = 0; i < n; ++i) {  // @bd_exp
    s += expf(x[i]);
  }
  float t = 0.0f;
#pragma unroll 2
  for (int i = 0; i < n; ++i) {  // @bd_if
    float v = x[i];
    if (v > 0.0f) {
      t += v * 3.0f;
    } else {
      t -= v * 0.5f;
    }
  }
  float m = -3.0e38f, d = 0.0f;
#pragma unroll 4
  for (int i = 0; i < n; ++i) {  // @bd_softmax
    float v = x[i];
    float mn = fmaxf(m, v);
    d = d * expf(m - mn) + expf(v - mn);
    m = mn;
  }
  out[threadIdx.x] = s + t + m + d;
}

// Constant loops of 1, 3, 8 and 16 trips, and the same 16 with a body too big to unroll.
extern "C" __global__ void constants(const float* __restrict__ x, float* __restrict__ out) {
  const float* p = x + threadIdx.x;
  float a = 0.0f;
  for (int i = 0; i < 1; ++i) a += p[i * 64];  // @c1
  for (int i = 0; i < QSIZE; ++i) {  // @c3
    a = a * 1.5f + p[256 + i * 64];
  }
  for (int i = 0; i < 8; ++i) {  // @c8
    a += sqrtf(p[512 + i * 64]);
  }
  for (int i = 0; i < 16; ++i) {  // @c16
    a = fmaf(a, 0.99f, p[1024 + i * 64]);
  }
  for (int i = 0; i < 16; ++i) {  // @c16_big
    float v = p[2048 + i * 64];
    for (int j = 0; j < 24; ++j) {  // @c16_inner
      v = sinf(v) * cosf(v + j);
    }
    a += v;
  }
  out[threadIdx.x] = a;
}

// Pragmas with a factor: on a runtime count (remainder), on a constant count the factor divides
// (no remainder), and one that keeps a constant loop rolled.
extern "C" __global__ void pragmas(const float* __restrict__ x, float* __restrict__ out, int n) {
  float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;
#pragma unroll 4
  for (int i = 0; i < n; ++i) {  // @pr_4
    a += x[i] * 2.0f;
  }
#pragma unroll 8
  for (int i = 0; i < 256; ++i) {  // @pr_8of256
    b += x[threadIdx.x + i * 32] * 3.0f;
  }
#pragma unroll 1
  for (int i = 0; i < 32; ++i) {  // @pr_1of32
    c += x[threadIdx.x + i * 64] * 5.0f;
  }
#pragma unroll 2
  for (int i = 0; i < n; i += 2) {  // @pr_2step2
    d += x[i] * x[i + 1];
  }
  out[threadIdx.x] = a + b + c + d;
}

// while and do loops, and two rolled loops nested.
extern "C" __global__ void shapes(const int* __restrict__ x, int* __restrict__ out, int n) {
  int i = threadIdx.x, s = 0;
  while (x[i] > 0 && i < n) {  // @sh_while
    s += x[i];
    i += 32;
  }
  int j = n;
  do {  // @sh_do
    s ^= x[j & 1023];
    j >>= 1;
  } while (j > 0);
#pragma unroll 1
  for (int r = 0; r < n; ++r) {  // @sh_outer
#pragma unroll 1
    for (int c = 0; c < r; ++c) {  // @sh_inner
      s += x[r * 32 + c];
    }
  }
  out[threadIdx.x] = s;
}

// A warp reduction (a constant loop whose step the header scan cannot count: copies measured),
// and a step of 4 over 16 with float4 loads.
extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ out) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) {  // @wr_shfl
    v += __shfl_xor_sync(0xffffffffu, v, o);
  }
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int i = 0; i < 16; i += 4) {  // @wr_vec
    float4 t = reinterpret_cast<const float4*>(x)[threadIdx.x * 4 + i / 4];
    acc.x += t.x, acc.y += t.y, acc.z += t.z, acc.w += t.w;
  }
  out[threadIdx.x] = v + acc.x + acc.y + acc.z + acc.w;
}

// A trip count known only from a template argument: 3 and 1 (copies measured).
template <int Q>
__global__ void tq(const float* __restrict__ x, float* __restrict__ out) {
  float a = 1.0f;
  for (int i = 0; i < Q; ++i) {  // @tq_loop
    a = a * x[threadIdx.x + i * 32] + 1.0f;
  }
  out[threadIdx.x] = a;
}
template __global__ void tq<3>(const float* __restrict__, float* __restrict__);
template __global__ void tq<1>(const float* __restrict__, float* __restrict__);

// A runtime loop around a constant one whose body is expf; a loop with no code left; a
// pragma factor that does not divide a constant count.
extern "C" __global__ void nest_exp(const float* __restrict__ x, float* __restrict__ out, int n) {
  float s = 0.0f;
  int unused = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @ne_outer
    for (int j = 0; j < 4; ++j) {  // @ne_inner
      s += expf(x[i * 4 + j]);
    }
    for (int j = 0; j < 4; ++j) unused += j;  // @ne_gone
  }
  float t = 0.0f;
#pragma unroll 2
  for (int i = 0; i < 7; ++i) {  // @ne_2of7
    t += x[threadIdx.x + i * 64] * 1.5f;
  }
  out[threadIdx.x] = s + t;
}

// for (;;) with a break, a loop with continue, helpers nested two deep, a while loop in a
// helper at two call sites.
extern "C" __global__ void exits(const int* __restrict__ x, int* __restrict__ out, int n) {
  int i = threadIdx.x, s = 0;
  for (;;) {  // @ex_forever
    if (i >= n || x[i] < 0) break;
    s += x[i];
    i += 64;
  }
  for (int j = 0; j < n; ++j) {  // @ex_continue
    if (x[j] & 1) continue;
    s ^= x[j];
  }
  s += hcount(x, n);  // @ex_count1
  s += hcount(x + 512, n);  // @ex_count2
  out[threadIdx.x] = s;
}

extern "C" __global__ void nested_helpers(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ out, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; ++k) {  // @nh_k
    s += rows2(a + k * 64 + threadIdx.x, b + k * 4, 16);  // @nh_call
  }
  out[threadIdx.x] = s;
}

// A row softmax: a grid-stride loop over rows around three thread-stride loops and two warp
// reductions (one helper, two call sites).
extern "C" __global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y,
                                        int rows, int cols) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {  // @sm_r
    float m = -1e30f;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, x[r * cols + c]);  // @sm_max
    m = -warp_sum(-m);  // @sm_w1
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += 32) s += __expf(x[r * cols + c] - m);  // @sm_sum
    s = warp_sum(s);  // @sm_w2
    for (int c = threadIdx.x; c < cols; c += 32) {  // @sm_out
      y[r * cols + c] = __expf(x[r * cols + c] - m) / s;
    }
  }
}

// One template helper at two call sites with different trip counts.
extern "C" __global__ void two_accums(const float* __restrict__ x, float* __restrict__ y, int n) {
  float a[4] = {}, b[2] = {};
  for (int k = 0; k < n; ++k) {  // @ta_k
    accum(a, x + k * 128);  // @ta_4
    accum(b, x + k * 128 + 64);  // @ta_2
  }
  y[threadIdx.x] = a[0] + a[1] + a[2] + a[3] + b[0] + b[1];
}
