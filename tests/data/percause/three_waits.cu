// Three waits on one mbarrier, each an inline-asm retry loop of the same helper line: a fully
// unrolled loop of three calls leaves three SASS loops of no loop statement at one place.
__device__ __forceinline__ void wait_phase(unsigned bar, unsigned phase) {
    asm volatile(  // @wait
        "{\n"
        ".reg .pred done;\n"
        "RETRY:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra RETRY;\n"
        "}\n" ::"r"(bar), "r"(phase)
        : "memory");
}

extern "C" __global__ void three_waits(float* out) {
    __shared__ unsigned long long bar;
    unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    float acc = 0.0f;
#pragma unroll
    for (int s = 0; s < 3; ++s) {
        wait_phase(addr, s & 1);  // @call
        acc += out[s];
    }
    out[threadIdx.x] = acc;
}
