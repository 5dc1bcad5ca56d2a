// A warp-specialised kernel whose setmaxnreg and whose work are chosen by two tests of the
// same warp group id: the code after the decrease is the producer's only on the `wg == 0`
// side of the second test. sm_90a.
extern "C" __global__ void __launch_bounds__(384, 1) split_roles(const float* in, float* out,
                                                                 int n) {
  int wg = threadIdx.x / 128;
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  }
  __syncthreads();
  if (wg == 0) {
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
