// mbarrier + cp.async.bulk on plain sm_90: EICOMPAT ISA_CLASS is 2 here, yet the arch has no suffix.
extern "C" __global__ void bulk(const float* g, float* out) {
    __shared__ alignas(128) float buf[256];
    __shared__ unsigned long long bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned s = (unsigned)__cvta_generic_to_shared(buf);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(b));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" :: "r"(s), "l"(g), "r"(b));
    }
    __syncthreads();
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(b));
    float x = buf[threadIdx.x];
    asm volatile("{ .reg .b16 h; cvt.rn.satfinite.e4m3x2.f32 h, %0, %0; }" :: "f"(x));
    out[threadIdx.x] = x;
}
