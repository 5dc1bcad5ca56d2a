// Tensor-core fragments: mma.sync (f16/bf16 -> f32 and f16, s8 -> s32), ldmatrix, DMMA, TF32.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void ldsm(const unsigned* g, float* out) {
  __shared__ __align__(16) unsigned short s[64 * 64];
  for (int j = threadIdx.x; j < 64 * 64 / 2; j += blockDim.x) ((unsigned*)s)[j] = g[j];
  __syncthreads();
  unsigned addr = (unsigned)__cvta_generic_to_shared(&s[(threadIdx.x % 32) * 64]);
  unsigned a0, a1, a2, a3, b0, b1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(addr + 1024));
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  unsigned h0 = 0, h1 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
      : "+r"(h0), "+r"(h1) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  int i0 = 0, i1 = 0, i2 = 0, i3 = 0;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  out[threadIdx.x] = d0 + d1 + d2 + d3 + __int_as_float(h0 ^ h1) + (float)(i0 + i1 + i2 + i3);
}
extern "C" __global__ void wmma_misc(const double* a, const double* b, double* c, const float* ta, const float* tb, float* tc) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> db;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
  wmma::load_matrix_sync(da, a, 4); wmma::load_matrix_sync(db, b, 4);
  wmma::fill_fragment(dc, 0.0);
  wmma::mma_sync(dc, da, db, dc);
  wmma::store_matrix_sync(c, dc, 8, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, ta, 8); wmma::load_matrix_sync(fb, tb, 8);
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(tc, fc, 16, wmma::mem_row_major);
}
