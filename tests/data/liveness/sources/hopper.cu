// Hopper: warpgroup MMA (accumulators of 4..32 registers, register A, UP0 scale-d), TMA,
// mbarriers, clusters and stmatrix. sm_90a only.
extern "C" __global__ void wg64(const unsigned long long* descs, float* out, int k) {
  unsigned long long da = descs[0], db = descs[1];
  float d[32];
  #pragma unroll
  for (int j = 0; j < 32; ++j) d[j] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int it = 0; it < k; ++it) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]),"+f"(d[1]),"+f"(d[2]),"+f"(d[3]),"+f"(d[4]),"+f"(d[5]),"+f"(d[6]),"+f"(d[7]),
        "+f"(d[8]),"+f"(d[9]),"+f"(d[10]),"+f"(d[11]),"+f"(d[12]),"+f"(d[13]),"+f"(d[14]),"+f"(d[15]),
        "+f"(d[16]),"+f"(d[17]),"+f"(d[18]),"+f"(d[19]),"+f"(d[20]),"+f"(d[21]),"+f"(d[22]),"+f"(d[23]),
        "+f"(d[24]),"+f"(d[25]),"+f"(d[26]),"+f"(d[27]),"+f"(d[28]),"+f"(d[29]),"+f"(d[30]),"+f"(d[31])
      : "l"(da + it * 2), "l"(db + it * 2), "r"(it));
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  #pragma unroll
  for (int j = 0; j < 32; ++j) out[threadIdx.x * 32 + j] = d[j];
}
extern "C" __global__ void wg_f16_rega(const unsigned long long* descs, const unsigned* ra, unsigned* out) {
  unsigned long long db = descs[1];
  unsigned a0 = ra[threadIdx.x * 4], a1 = ra[threadIdx.x * 4 + 1], a2 = ra[threadIdx.x * 4 + 2], a3 = ra[threadIdx.x * 4 + 3];
  unsigned d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, d7 = 0;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1, 1;\n"
      : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3), "+r"(d4), "+r"(d5), "+r"(d6), "+r"(d7)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  out[threadIdx.x * 8 + 0] = d0; out[threadIdx.x * 8 + 1] = d1; out[threadIdx.x * 8 + 2] = d2; out[threadIdx.x * 8 + 3] = d3;
  out[threadIdx.x * 8 + 4] = d4; out[threadIdx.x * 8 + 5] = d5; out[threadIdx.x * 8 + 6] = d6; out[threadIdx.x * 8 + 7] = d7;
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster(const float* g, float* out, const void* tmap) {
  __shared__ alignas(128) float buf[1024];
  __shared__ unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned s = (unsigned)__cvta_generic_to_shared(buf);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" :: "r"(b));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(s), "l"(tmap), "r"(0), "r"((int)blockIdx.x), "r"(b) : "memory");
  }
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b));
  unsigned rank, remote;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(s + threadIdx.x * 4), "r"(rank ^ 1));
  float r;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(r) : "r"(remote));
  float x = buf[threadIdx.x] + r;
  unsigned lane_elected;
  asm volatile("{ .reg .pred p; elect.sync _|p, 0xffffffff; selp.u32 %0, 1, 0, p; }" : "=r"(lane_elected));
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + lane_elected;
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" :: "l"(tmap), "r"(0), "r"(0), "r"(s) : "memory");
  asm volatile("cp.async.bulk.commit_group;");
  asm volatile("cp.async.bulk.wait_group.read 0;");
}
extern "C" __global__ void __launch_bounds__(384) setmax(float* out) {
  if (threadIdx.x < 128) { asm volatile("setmaxnreg.dec.sync.aligned.u32 40;"); out[threadIdx.x] = 1.f; }
  else { asm volatile("setmaxnreg.inc.sync.aligned.u32 232;"); out[threadIdx.x] = 2.f; }
  unsigned a = (unsigned)__cvta_generic_to_shared(out);
  unsigned r0 = threadIdx.x, r1 = r0 * 3, r2 = r0 * 5, r3 = r0 * 7;
  __shared__ __align__(16) unsigned sm[4096];
  unsigned sa = (unsigned)__cvta_generic_to_shared(&sm[(threadIdx.x % 32) * 8]);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(sa), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  __syncthreads();
  out[threadIdx.x + 512] = (float)sm[threadIdx.x] + a;
}
extern "C" __global__ void wgk(const unsigned long long* descs, float* out, int* iout) {
  unsigned long long da = descs[0], db = descs[1];
  float d[16];
  #pragma unroll
  for (int j = 0; j < 16; ++j) d[j] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, 1, 1, 1;\n"
      : "+f"(d[0]),"+f"(d[1]),"+f"(d[2]),"+f"(d[3]),"+f"(d[4]),"+f"(d[5]),"+f"(d[6]),"+f"(d[7]),
        "+f"(d[8]),"+f"(d[9]),"+f"(d[10]),"+f"(d[11]),"+f"(d[12]),"+f"(d[13]),"+f"(d[14]),"+f"(d[15]) : "l"(da), "l"(db));
  int e[8] = {0,0,0,0,0,0,0,0};
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 0;\n"
      : "+r"(e[0]),"+r"(e[1]),"+r"(e[2]),"+r"(e[3]),"+r"(e[4]),"+r"(e[5]),"+r"(e[6]),"+r"(e[7]) : "l"(da), "l"(db));
  float g[8] = {0,0,0,0,0,0,0,0};
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1;\n"
      : "+f"(g[0]),"+f"(g[1]),"+f"(g[2]),"+f"(g[3]),"+f"(g[4]),"+f"(g[5]),"+f"(g[6]),"+f"(g[7]) : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  #pragma unroll
  for (int j = 0; j < 16; ++j) out[threadIdx.x * 16 + j] = d[j];
  #pragma unroll
  for (int j = 0; j < 8; ++j) { iout[threadIdx.x * 8 + j] = e[j]; out[4096 + threadIdx.x * 8 + j] = g[j]; }
}
extern "C" __global__ void tma3(const void* tmap, float* out) {
  __shared__ alignas(128) float buf[2048];
  __shared__ unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned s = (unsigned)__cvta_generic_to_shared(buf);
  unsigned long long state = 0;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
    asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global [%0, {%1, %2, %3}];" :: "l"(tmap), "r"(1), "r"(2), "r"(3));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 8192;" :: "r"(b));
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                 :: "r"(s), "l"(tmap), "r"(0), "r"((int)blockIdx.x), "r"(7), "r"(b) : "memory");
  }
  __syncthreads();
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(b));
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.shared::cta.b64 p, [%0], %1; @!p bra W; }" :: "r"(b), "l"(state));
  out[threadIdx.x] = buf[threadIdx.x];
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" :: "l"(tmap), "r"(0), "r"(1), "r"(2), "r"(s) : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" :: "l"(out + 1024), "r"(s) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;");
  }
}
