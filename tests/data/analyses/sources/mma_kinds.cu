// One mma.sync per kernel through inline PTX; each has one shape and one type pair.
#define LOAD_A unsigned a0 = a[threadIdx.x * 4], a1 = a[threadIdx.x * 4 + 1], \
    a2 = a[threadIdx.x * 4 + 2], a3 = a[threadIdx.x * 4 + 3], b0 = a[128 + threadIdx.x * 2], \
    b1 = a[129 + threadIdx.x * 2];
#define STORE_F c[threadIdx.x * 4] = d0; c[threadIdx.x * 4 + 1] = d1; \
    c[threadIdx.x * 4 + 2] = d2; c[threadIdx.x * 4 + 3] = d3;

extern "C" __global__ void mma_tf32(const unsigned* a, float* c) {
  LOAD_A
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  STORE_F
}

extern "C" __global__ void mma_s8(const unsigned* a, int* c) {
  LOAD_A
  int d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};\n"
               : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  STORE_F
}

extern "C" __global__ void mma_f16acc(const unsigned* a, unsigned* c) {
  LOAD_A
  unsigned h0 = 0, h1 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
               "{%0,%1};\n"
               : "+r"(h0), "+r"(h1)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  c[threadIdx.x * 2] = h0; c[threadIdx.x * 2 + 1] = h1;
}

extern "C" __global__ void mma_f64(const double* a, double* c) {
  double d0 = 0, d1 = 0, x = a[threadIdx.x], y = a[32 + threadIdx.x];
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d0), "+d"(d1) : "d"(x), "d"(y));
  c[threadIdx.x * 2] = d0; c[threadIdx.x * 2 + 1] = d1;
}

#if __CUDA_ARCH__ >= 890
// fp8 mma.sync: QMMA on sm_120; sm_90 / sm_100 have no fp8 mma.sync and ptxas emulates it.
extern "C" __global__ void mma_e4m3(const unsigned* a, float* c) {
  LOAD_A
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  STORE_F
}
#endif
