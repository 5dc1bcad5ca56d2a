using u32 = unsigned;
using u64 = unsigned long long;

__device__ __forceinline__ void mbar_init(u64* bar, u32 count) {
    u32 addr = static_cast<u32>(__cvta_generic_to_shared(bar));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr), "r"(count));
}

__device__ __forceinline__ void mbar_wait(u64* bar, u32 phase) {
    u32 addr = static_cast<u32>(__cvta_generic_to_shared(bar));
    asm volatile(
        "{\n"
        ".reg .pred P1;\n"
        "LAB_WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
        "@P1 bra.uni DONE;\n"
        "bra.uni LAB_WAIT;\n"
        "DONE:\n"
        "}\n" :: "r"(addr), "r"(phase));
}

extern "C" __global__ void __launch_bounds__(128) wgmma_tile(const u64* __restrict__ descs, float* __restrict__ out) {
    __shared__ alignas(8) u64 bar;
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
    }
    __syncthreads();
    u64 da = descs[0];
    u64 db = descs[1];
    float d[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) d[k] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %10, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
          "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "l"(da), "l"(db), "r"(1));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(0) : "memory");
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(static_cast<u32>(__cvta_generic_to_shared(&bar))) : "memory");
    }
    mbar_wait(&bar, 0);
#pragma unroll
    for (int k = 0; k < 8; ++k) out[threadIdx.x * 8 + k] = d[k];
}
