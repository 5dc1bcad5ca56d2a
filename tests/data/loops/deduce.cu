// A labelled corpus for tests/test_loop_deduce.py: deduce.cuh's helpers called with their
// template arguments deduced from the arguments (arrays by reference, 1-D and 2-D, a tag, a
// config object, a struct template by reference and by pointer, types by a header's aliases,
// data members), and a header loop on the same line number as its call. `// @name` marks a
// loop statement or a call site; labels_deduce.json holds what the SASS of each loop is.
#include "deduce.cuh"

// The call on line 12, as scale_col's loop is on line 12 of deduce.cuh: ptxas' line table
// starts no row for it, the PTX's .loc names the header.
__global__ void same_line(const float* __restrict__ in, float* __restrict__ out, float s) {
  const int t = threadIdx.x;
  scale_col<4>(out + t, in + t, s);  // @sl_call
}

// A K loop around a register tile whose extents the accumulator gives.
template <int BM>
__global__ void acc_deduced(const float* __restrict__ A, const float* __restrict__ B,
                            float* __restrict__ C, int K) {
  float acc[BM][4] = {};
  for (int k0 = 0; k0 < K; ++k0) {  // @ad_k
    outer_acc(acc, A + k0 * 256 + threadIdx.x, B + k0 * 128 + threadIdx.x);  // @ad_mac
  }
  store_tile(acc, C + threadIdx.x, 4096);  // @ad_store
}

template __global__ void acc_deduced<2>(const float*, const float*, float*, int);
template __global__ void acc_deduced<8>(const float*, const float*, float*, int);

#define SBK 8
#define STM 4

// A shared tile's rows and a register row: BK and TM deduced from the arrays declared here.
__global__ void smem_deduced(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int K) {
  __shared__ float As[SBK][64];
  const uint ty = threadIdx.x / 16;
  float acc[STM] = {}, r[6];
  for (int k0 = 0; k0 < K; k0 += SBK) {  // @sd_k
    for (int i = threadIdx.x; i < SBK * 64; i += blockDim.x) As[i / 64][i % 64] = A[k0 * 64 + i];  // @sd_ld
    __syncthreads();
    mac_smem(acc, As, B + k0 * 32 + threadIdx.x, ty);  // @sd_mac
    __syncthreads();
  }
  for (int i = 0; i < 6; ++i) r[i] = acc[i % STM] * A[i * 32 + threadIdx.x];  // @sd_r
  const float q = sum_sq(r);  // @sd_sum6
  C[threadIdx.x] = q + sum_sq(acc);  // @sd_sum4
}

// Trip counts carried by tag arguments: a struct template's, and cuda::std's.
__global__ void tags(float* __restrict__ p, float v) {
  float* q = p + threadIdx.x;
  zero_n(Int<3>{}, q);  // @tg_zero
  const Int<5> five;
  neg_tag(five, q + 1024);  // @tg_neg
  add_ic(cuda::std::integral_constant<int, 6>{}, q + 2048, v);  // @tg_add
  neg_tag(cuda::std::integral_constant<int, 2>{}, q + 4096);  // @tg_neg_ic
}

// A config object by value, its type deduced; its members set the store's extents.
__global__ void cfg_object(const float* __restrict__ A, float* __restrict__ C) {
  const Tile44 cfg;
  float acc[Tile44::TM][Tile44::TN];
  for (int m = 0; m < Tile44::TM; ++m) {  // @co_m
    for (int n = 0; n < Tile44::TN; ++n) acc[m][n] = A[(m * 4 + n) * 32 + threadIdx.x] * 2.f;  // @co_n
  }
  store_cfg(cfg, acc, C + threadIdx.x);  // @co_store
}

// A struct template's fragment, by pointer, by reference and through a type parameter.
template <int M>
__global__ void frag_kernel(const float* __restrict__ in, float* __restrict__ out) {
  Frag<M, 4> f;
  frag_load(&f, in + threadIdx.x);  // @fk_load
  frag_rows(f, in + 4096 + threadIdx.x);  // @fk_rows
  frag_store(f, out + threadIdx.x);  // @fk_store
}

template __global__ void frag_kernel<3>(const float*, float*);

// A step given at the call, the length deduced: every other element of a loaded row, scaled.
__global__ void step_given(float* __restrict__ p, float s) {
  float v[8];
  for (int i = 0; i < 8; ++i) v[i] = p[i * 32 + threadIdx.x];  // @sg_ld
  scale_every<2>(v, s);  // @sg_every
  for (int i = 0; i < 8; ++i) p[i * 32 + 4096 + threadIdx.x] = v[i];  // @sg_st
}

// Types named through the header's aliases, and an `auto` of a braced temporary.
__global__ void aliased(const float* __restrict__ in, float* __restrict__ out) {
  Frag24 t;
  frag_load(&t, in + threadIdx.x);  // @al_load
  frag_store(t, out + threadIdx.x);  // @al_store
  Row5 r;
  for (int i = 0; i < 5; ++i) r[i] = in[i * 64 + 4096 + threadIdx.x];  // @al_r
  out[8192 + threadIdx.x] = sum_sq(r);  // @al_sum
  auto f = Frag<4, 2>{};
  frag_load(&f, in + 8192 + threadIdx.x);  // @al_auto_load
  frag_rows(f, in + 12288 + threadIdx.x);  // @al_auto_rows
  frag_store(f, out + 12288 + threadIdx.x);  // @al_auto_store
}

// A struct's data members as the arguments: a plain struct's array, a struct template's 2-D
// member and a row of it.
struct Sums {
  float r[6];
};

__global__ void members(const float* __restrict__ in, float* __restrict__ out) {
  Frag<2, 3> f;
  frag_load(&f, in + threadIdx.x);  // @mb_load
  Sums s;
  for (int i = 0; i < 6; ++i) s.r[i] = in[i * 64 + 4096 + threadIdx.x];  // @mb_r
  out[threadIdx.x] = sum_sq(s.r);  // @mb_sum
  out[32 + threadIdx.x] = sum_sq(f.v[1]);  // @mb_row
  store_tile(f.v, out + 4096 + threadIdx.x, 128);  // @mb_store
}
