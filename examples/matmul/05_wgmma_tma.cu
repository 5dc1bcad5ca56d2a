// Step 5: Hopper. One warpgroup (128 threads) computes a 64x64 tile of C = A * B^T with
// bf16 inputs and fp32 accumulation: the tensor memory accelerator (TMA) copies 64x64 tiles
// of A and B into shared memory (completion tracked by an mbarrier), and warpgroup MMAs
// (wgmma.mma_async m64n64k16) consume them straight from shared memory.
// Expect on sm_90a: UTMALDG (TMA loads), SYNCS (mbarrier), HGMMA.64x64x16.F32.BF16, and
// WARPGROUP.ARRIVE / WARPGROUP.DEPBAR around them. Plain sm_90 rejects wgmma: use sm_90a.
// The host builds the two tensor maps (cuTensorMapEncodeTiled, 128-byte swizzle, 64x64 box).
#include <cuda_bf16.h>

struct alignas(64) TensorMap { unsigned long long opaque[16]; };  // a CUtensorMap, by value

constexpr int BM = 64, BN = 64, BK = 64;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Shared-memory matrix descriptor for wgmma: K-major tile, 128-byte swizzle.
__device__ __forceinline__ unsigned long long descriptor(const void* tile) {
  unsigned long long d = (smem_addr(tile) & 0x3FFFF) >> 4;
  d |= 1ull << 16;                 // leading byte offset (unused with swizzling)
  d |= (1024ull >> 4) << 32;       // stride byte offset: 8 rows of 128 bytes
  d |= 1ull << 62;                 // 128-byte swizzle
  return d;
}

__device__ __forceinline__ void tma_load(void* dst, const TensorMap* map, int x, int y, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n"
      :: "r"(smem_addr(dst)), "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar)) : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned long long* bar, unsigned phase) {
  asm volatile(
      "{\n.reg .pred done;\nwait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n}\n" :: "r"(smem_addr(bar)), "r"(phase) : "memory");
}

__device__ __forceinline__ void wgmma_64x64x16(float (&d)[32], unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, 1, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db));
}

extern "C" __global__ void __launch_bounds__(128)
matmul_wgmma_tma(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB,
                 float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(1024) __nv_bfloat16 As[BM * BK];
  __shared__ __align__(1024) __nv_bfloat16 Bs[BN * BK];
  __shared__ __align__(8) unsigned long long bar;
  const int tid = threadIdx.x;
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(smem_addr(&bar)));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();

  float acc[32] = {};
  unsigned phase = 0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    if (tid == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                   :: "r"(smem_addr(&bar)), "r"(int(sizeof(As) + sizeof(Bs))) : "memory");
      tma_load(As, &tmA, k0, blockIdx.y * BM, &bar);
      tma_load(Bs, &tmB, k0, blockIdx.x * BN, &bar);
    }
    wait_phase(&bar, phase);
    phase ^= 1;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int k = 0; k < BK; k += 16) {  // 16 bf16 = 32 bytes along K per MMA
      wgmma_64x64x16(acc, descriptor(As + k), descriptor(Bs + k));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // every warp is done with the tiles before TMA overwrites them
  }

  // The wgmma accumulator layout: warp w owns rows 16w..16w+15; each thread two rows, and
  // pairs of adjacent columns every 8 columns: store each pair as one float2 (64-bit STG).
  const int warp = tid / 32, lane = tid % 32;
  const int row0 = blockIdx.y * BM + warp * 16 + lane / 4;
  const int col0 = blockIdx.x * BN + (lane % 4) * 2;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    int col = col0 + i * 8;
    *reinterpret_cast<float2*>(&C[row0 * N + col]) = make_float2(acc[i * 4 + 0], acc[i * 4 + 1]);
    *reinterpret_cast<float2*>(&C[(row0 + 8) * N + col]) = make_float2(acc[i * 4 + 2], acc[i * 4 + 3]);
  }
}
