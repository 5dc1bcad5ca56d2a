// Helpers of hopper.cu (tests/test_loop_hopper.py): one tensor-core step per call (a wgmma on
// sm_90a, an mma.sync on sm_80: one MMA instruction either way) and a 16-byte register pack
// whose element count is a member of a struct template reached through a typedef.
// `// @name` marks a loop statement or a call site.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

typedef unsigned long long u64;

// d += a * b for one k-step of 16; FIRST: the step that starts the tile (no accumulate in).
template <int FIRST>
__device__ __forceinline__ void mma_step(float (&d)[4], const __nv_bfloat16* sa,
                                         const __nv_bfloat16* sb) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  u64 da = (static_cast<u64>(__cvta_generic_to_shared(sa)) & 0x3FFFF) >> 4;
  u64 db = (static_cast<u64>(__cvta_generic_to_shared(sb)) & 0x3FFFF) >> 4;
  da |= 1ull << 62;
  db |= 1ull << 62;
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, "
      "0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "n"(FIRST ? 0 : 1));
#else
  const unsigned* a = reinterpret_cast<const unsigned*>(sa) + threadIdx.x % 32;
  const unsigned* b = reinterpret_cast<const unsigned*>(sb) + threadIdx.x % 32;
  float c0 = FIRST ? 0.f : d[0], c1 = FIRST ? 0.f : d[1];
  float c2 = FIRST ? 0.f : d[2], c3 = FIRST ? 0.f : d[3];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[32]), "r"(a[64]), "r"(a[96]), "r"(b[0]), "r"(b[32]), "f"(c0), "f"(c1),
        "f"(c2), "f"(c3));
#endif
}

__device__ __forceinline__ void mma_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void mma_commit_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n" ::
                   : "memory");
#endif
}

// 16 bytes of elements in registers; `count` of them.
template <class E>
struct alignas(16) Bytes16 {
  static constexpr const unsigned count = 16 / sizeof(E);
  E v[count];
  __device__ E& operator[](int i) { return v[i]; }
  __device__ const E& operator[](int i) const { return v[i]; }
};
typedef Bytes16<__half> h8;
typedef Bytes16<float> f4;

template <class P>
__device__ __forceinline__ P load16(const void* p) {
  P out;
  *reinterpret_cast<int4*>(&out) = *reinterpret_cast<const int4*>(p);
  return out;
}
