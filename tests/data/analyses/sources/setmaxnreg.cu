// Warp-specialised kernels in the shape of Hopper GEMM / attention kernels: warp group 0 gives
// registers back (setmaxnreg.dec), the others take them (setmaxnreg.inc). `__launch_bounds__`
// with a min-blocks argument lets ptxas know the count at entry (without it ptxas drops
// setmaxnreg: advisory C7508). sm_90a.
template <int kDec, int kInc>
__device__ void specialised(const float* in, float* out, int n) {
  int wg = threadIdx.x / 128;
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kDec));
    for (int i = threadIdx.x; i < n; i += 128) out[i] = in[i] * 2.f;
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kInc));
    float acc[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = in[threadIdx.x + j * 384];
    for (int k = 0; k < n; ++k) {
#pragma unroll
      for (int j = 0; j < 64; ++j) acc[j] = acc[j] * acc[(j + 1) % 64] + 1.f;
    }
#pragma unroll
    for (int j = 0; j < 64; ++j) out[threadIdx.x + j * 384] = acc[j];
  }
}

// 168 x 384 = 64512 registers: one producer group at 40 and two consumer groups at 232 use
// exactly that (128 x (40 + 2 x 232)).
extern "C" __global__ void __launch_bounds__(384, 1) balanced(const float* in, float* out, int n) {
  specialised<40, 232>(in, out, n);
}

// The producers keep 160: even one consumer group at 232 needs 128 x (232 + 2 x 160) = 70656
// registers, more than the 64512 the launch gave. The increase is never granted.
extern "C" __global__ void __launch_bounds__(384, 1) overcommitted(const float* in, float* out, int n) {
  specialised<160, 232>(in, out, n);
}
