// Blackwell tcgen05.mma through inline PTX (sm_100a): one kind::f16 and one kind::f8f6f4 MMA,
// then tcgen05.commit to an mbarrier. Shapes live in the runtime instruction descriptor.
extern "C" __global__ void tcgen05_mma(const unsigned long long* descs, unsigned idesc,
                                       unsigned taddr, float* out) {
  __shared__ __align__(8) unsigned long long mbar;
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  unsigned long long da = descs[0], db = descs[1];
  if (threadIdx.x == 0) {
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;\n"
                 :: "r"(taddr), "l"(da), "l"(db), "r"(idesc));
    asm volatile("tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, 1;\n"
                 :: "r"(taddr), "l"(da), "l"(db), "r"(idesc));
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n"
                 :: "r"(bar));
  }
  out[threadIdx.x] = 0.0f;
}
