// A loop nobody asked to unroll: a runtime trip count, so NVVM and ptxas unroll it and leave
// a remainder loop for the iterations the factor does not cover.
extern "C" __global__ void scale_sum(float* out, const float* in, int n) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {  // @unasked
        acc += in[i] * 1.5f;
    }
    out[threadIdx.x] = acc;
}
