// The same wgmma k-loop three ways, for the `ptxas` analysis (ptxas' own advisories).
#define WGMMA(d, da, db)                                                                      \
  asm volatile("{\n"                                                                          \
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "                         \
               "{%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"                                   \
               "}\n"                                                                          \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                               \
               : "l"(da), "l"(db))

__device__ __noinline__ float twice(float x) { return x * 2.0f; }

// Fence, wgmma, commit and wait per k-step: nothing touches the accumulators in between.
__global__ void waits_each_step(const unsigned long long* descs, float* out, int n) {
  float d[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; ++k) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    WGMMA(d, descs[0] + k, descs[1] + k);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

// One wait after the loop, groups left in flight across k-steps: ptxas 13.5 finds non-wgmma
// instructions defining accumulators inside the pipeline stage (C7515) and serializes: a
// WARPGROUP.DEPBAR after every HGMMA of the unrolled loop.
__global__ void waits_after_loop(const unsigned long long* descs, float* out, int n) {
  float d[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; ++k) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    WGMMA(d, descs[0] + k, descs[1] + k);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

// An accumulator read by a call inside the pipeline: ptxas injects waits (C7517) and
// serializes (C7511).
__global__ void call_in_pipeline(const unsigned long long* descs, float* out, int n) {
  float d[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; ++k) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    WGMMA(d, descs[0] + k, descs[1] + k);
    d[0] = twice(d[0]);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}

// A plain add on an accumulator between two wgmma of one group: the same two advisories.
__global__ void add_in_pipeline(const unsigned long long* descs, float* out, int n) {
  float d[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; ++k) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    WGMMA(d, descs[0] + k, descs[1] + k);
    d[1] += 1.0f;
    WGMMA(d, descs[0] + 2 * k, descs[1] + 2 * k);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}
