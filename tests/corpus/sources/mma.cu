// Tensor cores on sm_80+: one mma.sync m16n8k16 (bf16 in, f32 accumulate) per warp.
#include <cuda_bf16.h>
__global__ void mma_sync(const unsigned* a, const unsigned* b, float* c) {
  unsigned a0 = a[threadIdx.x * 4 + 0], a1 = a[threadIdx.x * 4 + 1];
  unsigned a2 = a[threadIdx.x * 4 + 2], a3 = a[threadIdx.x * 4 + 3];
  unsigned b0 = b[threadIdx.x * 2 + 0], b1 = b[threadIdx.x * 2 + 1];
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  c[threadIdx.x * 4 + 0] = d0; c[threadIdx.x * 4 + 1] = d1;
  c[threadIdx.x * 4 + 2] = d2; c[threadIdx.x * 4 + 3] = d3;
}

// cp.async into shared memory, then a plain FFMA loop.
__global__ void cp_async_ffma(const float* __restrict__ g, float* __restrict__ out, int k) {
  __shared__ __align__(16) float s[128 * 4];
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x * 4]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(g + threadIdx.x * 4));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc = fmaf(s[(threadIdx.x + i) % 512], s[i % 512], acc);
  out[threadIdx.x] = acc;
}
