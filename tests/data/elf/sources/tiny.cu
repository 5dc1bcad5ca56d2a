// The smallest kernel, compiled for each architecture the arch decoding must tell apart.
extern "C" __global__ void tiny(float* out) { out[threadIdx.x] = 1.f; }
