extern "C" __global__ void clamp_asm(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                     unsigned limit) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    unsigned r;
    asm volatile(
        "{\n\t"
        ".reg .pred p;\n\t"
        "setp.gt.u32 p, %1, %2;\n\t"
        "selp.u32 %0, %2, %1, p;\n\t"
        "}"
        : "=r"(r)
        : "r"(v), "r"(limit));
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[i] = r + lane;
}
