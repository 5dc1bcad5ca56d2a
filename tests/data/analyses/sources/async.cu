// cp.async with commit/wait groups, named barriers (cpasync); mbarriers, bulk copies, TMA and
// cluster barriers on sm_90a (bulk). Inline PTX throughout, so each SASS form is known.
struct alignas(64) TMap { unsigned char b[128]; };
extern "C" __global__ void cpasync(const float* __restrict__ g, float* __restrict__ out, int k) {
  __shared__ __align__(16) float s[1024];
  unsigned dst = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x * 4]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(g + threadIdx.x * 4));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst + 2048), "l"(g + 1024 + threadIdx.x * 2));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst + 3072), "l"(g + 2048 + threadIdx.x));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 1;\n" ::);
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  asm volatile("bar.sync 1, 128;\n");
  asm volatile("bar.arrive 2, 64;\n");
  asm volatile("barrier.sync 3;\n");
  __syncwarp();
  __syncwarp(0x0000ffff);
  __nanosleep(100);
  __threadfence_block();
  out[threadIdx.x] = s[threadIdx.x] + s[threadIdx.x + 512 + k];
  int c = __syncthreads_count(out[threadIdx.x] > 0);
  out[threadIdx.x+1] = c;
}
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void bulk(const float* __restrict__ g, float* __restrict__ out, const __grid_constant__ TMap tmap, int x, int y) {
  __shared__ __align__(128) float s[1024];
  __shared__ __align__(8) unsigned long long mbar;
  unsigned bar = (unsigned)__cvta_generic_to_shared(&mbar);
  unsigned dst = (unsigned)__cvta_generic_to_shared(s);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(1));
    asm volatile("fence.mbarrier_init.release.cluster;\n");
    asm volatile("fence.proxy.async.shared::cta;\n");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar), "r"(8192));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" :: "r"(dst), "l"(g), "r"(2048), "r"(bar) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
       :: "r"(dst + 2048), "l"(&tmap), "r"(x), "r"(y), "r"(bar) : "memory");
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" :: "l"(g + 4096), "r"(1024));
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global [%0, {%1, %2}];\n" :: "l"(&tmap), "r"(x), "r"(y));
  }
  unsigned long long st;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];\n" : "=l"(st) : "r"(bar));
  asm volatile("{\n.reg .pred P1;\nLAB_WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n" :: "r"(bar));
  asm volatile("{\n.reg .pred P2;\nmbarrier.test_wait.shared::cta.b64 P2, [%0], %1;\n}\n" :: "r"(bar), "l"(st));
  s[threadIdx.x] += 1.0f;
  asm volatile("fence.proxy.async.shared::cta;\n");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" :: "l"(out), "r"(dst), "r"(2048) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];\n" :: "l"(&tmap), "r"(x), "r"(y), "r"(dst + 2048) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" :: "l"(out + 4096), "r"(dst), "r"(1024) : "memory");
    asm volatile("cp.async.bulk.commit_group;\n");
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
  }
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" :: "r"(bar));
  asm volatile("barrier.cluster.arrive;\n");
  asm volatile("barrier.cluster.wait;\n");
}
#endif

// The mbarrier basics sm_80 has too: init, arrive, test_wait (in software there, SYNCS on sm_90).
extern "C" __global__ void mbarrier_basic(float* out) {
  __shared__ __align__(8) unsigned long long mbar;
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" :: "r"(bar), "r"(blockDim.x));
  __syncthreads();
  unsigned long long st;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];\n" : "=l"(st) : "r"(bar));
  asm volatile("{\n.reg .pred P1;\nWAIT:\nmbarrier.test_wait.shared.b64 P1, [%0], %1;\n@!P1 bra WAIT;\n}\n"
               :: "r"(bar), "l"(st));
  out[threadIdx.x] = 1.0f;
}

// ldmatrix x4 / x2.trans / x1 (LDSM.16.M88.4, LDSM.16.MT88.2, LDSM.16.M88) and, from sm_90,
// stmatrix (STSM) of the same shapes.
extern "C" __global__ void ldsm_stsm(float* out) {
  __shared__ __align__(16) unsigned short s[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x * 8]));
  unsigned r0, r1, r2, r3, t0, t1, u0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(t0), "=r"(t1) : "r"(addr + 256));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(u0) : "r"(addr + 512));
#if __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n"
               :: "r"(addr + 1024), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};\n"
               :: "r"(addr + 2048), "r"(t0), "r"(t1));
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" :: "r"(addr + 3072), "r"(u0));
#endif
  out[threadIdx.x] = r0 + r1 + r2 + r3 + t0 + t1 + u0;
}
