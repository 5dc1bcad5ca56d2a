// A warp-specialised kernel in CUTLASS' shape: the warp group's index broadcast from lane 0
// (`__shfl_sync`, so ptxas knows it is warp-uniform) chooses the setmaxnreg, and the work is
// chosen by a second test written another way (`threadIdx.x < 128`): another predicate, from
// an ISETP on another register. sm_90a.
extern "C" __global__ void __launch_bounds__(384, 1) retest_roles(const float* in, float* out,
                                                                  int n) {
  int wg = __shfl_sync(0xffffffff, threadIdx.x / 128, 0);
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    for (int i = threadIdx.x; i < n; i += 128) out[i] = in[i] * 2.f;
  } else {
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
