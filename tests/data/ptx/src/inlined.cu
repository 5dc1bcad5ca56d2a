__device__ __forceinline__ float square(float v) {
    return v * v;
}

__device__ __forceinline__ float norm2(float a, float b) {
    return sqrtf(square(a) + square(b));
}

extern "C" __global__ void magnitude(const float2* __restrict__ in, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 v = in[i];
        out[i] = norm2(v.x, v.y);
    }
}
