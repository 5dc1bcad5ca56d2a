// tcgen05.mma with instruction descriptors known at compile time (the way CUTLASS-style kernels
// build them from template parameters), and one read from memory (unknown).
extern "C" __global__ void tc_const(const unsigned long long* descs, unsigned taddr, const unsigned* rt) {
  unsigned long long da = descs[0], db = descs[1];
  if (threadIdx.x == 0) {
    // kind::f16, D F32, A/B BF16, K-major, M=128, N=256
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;\n"
                 :: "r"(taddr), "l"(da), "l"(db), "r"(0x08400490u));
    // kind::f8f6f4, D F32, A E4M3, B E5M2, M=64, N=64
    asm volatile("tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, 1;\n"
                 :: "r"(taddr), "l"(da), "l"(db), "r"((4u << 24) | (8u << 17) | (1u << 10) | (0u << 7) | (1u << 4)));
    // i8: D S32, A S8, B U8, M=128 N=32
    asm volatile("tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, 1;\n"
                 :: "r"(taddr), "l"(da), "l"(db), "r"((8u << 24) | (4u << 17) | (0u << 10) | (1u << 7) | (2u << 4)));
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;\n"
                 :: "r"(taddr), "l"(da), "l"(db), "r"(rt[0]));
  }
}
extern "C" __global__ void tc_pair(const unsigned long long* descs, unsigned taddr) {
  unsigned long long da = descs[0], db = descs[1];
  if (threadIdx.x == 0) {
    // kind::tf32, D F32, A/B TF32, M=256 (a CTA pair), N=128
    asm volatile("tcgen05.mma.cta_group::2.kind::tf32 [%0], %1, %2, %3, 1;\n"
                 :: "r"(taddr), "l"(da), "l"(db), "r"((16u << 24) | (16u << 17) | (2u << 10) | (2u << 7) | (1u << 4)));
  }
}
