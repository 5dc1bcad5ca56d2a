// Blackwell: tensor memory (tcgen05.ld/st/mma, LDTM/STTM/UTCHMMA) and redux.sync. sm_100a only.
extern "C" __global__ void tmem(const unsigned* in, unsigned* out) {
  __shared__ unsigned slot;
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" :: "r"((unsigned)__cvta_generic_to_shared(&slot)));
  __syncthreads();
  unsigned taddr = slot;
  unsigned r[8];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0,%1,%2,%3,%4,%5,%6,%7}, [%8];"
    : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]) : "r"(taddr));
  asm volatile("tcgen05.wait::ld.sync.aligned;");
  unsigned s0 = in[threadIdx.x], s1 = in[threadIdx.x + 128];
  asm volatile("tcgen05.st.sync.aligned.16x64b.x2.b32 [%0], {%1,%2};" :: "r"(taddr + 32), "r"(s0), "r"(s1));
  asm volatile("tcgen05.wait::st.sync.aligned;");
  unsigned long long adesc = in[5], bdesc = in[6];
  unsigned idesc = in[7];
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p; }" :: "r"(taddr), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(s0));
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&slot)));
  unsigned acc = 0;
  for (int j = 0; j < 8; ++j) acc += r[j];
  out[threadIdx.x] = acc;
  __syncthreads();
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(taddr));
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
}
extern "C" __global__ void wide(const float* in, float* out) {
  const float4* p = (const float4*)in;
  float4 a = p[threadIdx.x * 2], b = p[threadIdx.x * 2 + 1];
  float4* q = (float4*)out;
  q[threadIdx.x * 2] = make_float4(a.x + b.w, a.y, a.z, a.w);
  q[threadIdx.x * 2 + 1] = b;
  float m = __reduce_max_sync(0xffffffff, (unsigned)a.x);
  out[4096 + threadIdx.x] = m;
}
