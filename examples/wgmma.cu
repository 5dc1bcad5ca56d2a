// One Hopper warpgroup MMA (m64n8k16, bf16 in, f32 accumulate) through inline PTX.
// wgmma exists only on sm_90a: compiled for sm_90, ptxas rejects it.
__global__ void wgmma_m64n8k16(const unsigned long long* descs, float* out) {
  unsigned long long da = descs[0], db = descs[1];
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile(
      "{\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  out[threadIdx.x * 4 + 0] = d0; out[threadIdx.x * 4 + 1] = d1;
  out[threadIdx.x * 4 + 2] = d2; out[threadIdx.x * 4 + 3] = d3;
}
