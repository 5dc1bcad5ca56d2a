// K loops as pipelined GEMMs write them: a cp.async double buffer (sm_80+), an mbarrier
// pipeline of bulk copies (sm_90a) and a wgmma K loop with an unrolled inner loop of HGMMA
// (sm_90a). No #pragma unroll on the K loops: the compilers decide alone.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

constexpr int kStages = 2;
constexpr int kTile = 256;

// Double-buffered K loop: tile kt+1 is in flight while tile kt is read.
__global__ void double_buffered(const float4* A, float* out, int ktiles) {
  __shared__ float4 tile[kStages][kTile];
  float acc = 0.f;
  cp_async16(&tile[0][threadIdx.x], A + threadIdx.x);
  cp_async_commit();
  for (int kt = 0; kt < ktiles; ++kt) {
    const int cur = kt % kStages;
    if (kt + 1 < ktiles)
      cp_async16(&tile[(kt + 1) % kStages][threadIdx.x], A + (kt + 1) * kTile + threadIdx.x);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    for (int i = 0; i < 8; ++i) {
      float4 v = tile[cur][(threadIdx.x + i * 32) % kTile];
      acc += v.x * v.y + v.z * v.w;
    }
    __syncthreads();
  }
  out[blockIdx.x * kTile + threadIdx.x] = acc;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)),
               "r"(bytes));
}
__device__ __forceinline__ bool mbar_try_wait(unsigned long long* bar, unsigned phase) {
  unsigned ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(smem_addr(bar)), "r"(phase));
  return ok != 0;
}
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
      ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

// A two-stage mbarrier pipeline: thread 0 issues each stage's bulk copy, every thread waits on
// the stage's barrier (a spin loop of try_wait) before reading it.
__global__ void mbarrier_pipeline(const float* A, float* out, int ktiles) {
  __shared__ alignas(128) float stage[kStages][kTile];
  __shared__ unsigned long long full[kStages];
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages; ++s) mbar_init(&full[s], 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(&full[0], sizeof(stage[0]));
    bulk_copy(stage[0], A, sizeof(stage[0]), &full[0]);
  }
  float acc = 0.f;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % kStages;
    if (threadIdx.x == 0 && kt + 1 < ktiles) {
      const int n = (kt + 1) % kStages;
      mbar_expect_tx(&full[n], sizeof(stage[0]));
      bulk_copy(stage[n], A + (kt + 1) * kTile, sizeof(stage[0]), &full[n]);
    }
    while (!mbar_try_wait(&full[s], (kt / kStages) & 1)) {
    }
    acc += stage[s][threadIdx.x] * 2.f;
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

#define WGMMA_M64N8K16(d, da, db)                                                            \
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "                       \
               "{%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"                                 \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                             \
               : "l"(da), "l"(db))

constexpr int kKSteps = 4;  // k16 steps per K tile

// A wgmma K loop: each K tile is 4 HGMMA from an unrolled inner loop; a peeled first tile
// outside the loop is 4 more (8 HGMMA in all).
__global__ void wgmma_k_loop(const unsigned long long* descs, float* out, int ktiles) {
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int k = 0; k < kKSteps; ++k) WGMMA_M64N8K16(d, descs[0] + 2 * k, descs[1] + 2 * k);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  for (int kt = 1; kt < ktiles; ++kt) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int k = 0; k < kKSteps; ++k)
      WGMMA_M64N8K16(d, descs[0] + kt * 64 + 2 * k, descs[1] + kt * 64 + 2 * k);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}
#endif
