// tcgen05.alloc puts a variable in the reserved shared window: ptxas keeps .nv.reservedSmem.cap.
extern "C" __global__ void tc(unsigned* out) {
    __shared__ unsigned slot;
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;"
                 :: "r"((unsigned)__cvta_generic_to_shared(&slot)));
    __syncthreads();
    unsigned a = slot;
    out[threadIdx.x] = a;
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(a));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
}
