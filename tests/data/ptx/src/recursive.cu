template <int N> struct Unroll {
    __device__ __forceinline__ static float run(const float* __restrict__ x, float acc, int t) {
        acc = Unroll<N - 1>::run(x, acc, t);
        float v = x[t + N * 97];
        return fmaf(acc, v, v * (N & 7));
    }
};
template <> struct Unroll<0> {
    __device__ __forceinline__ static float run(const float*, float acc, int) { return acc; }
};
extern "C" __global__ void recursive(const float* __restrict__ x, float* __restrict__ y) {
    y[threadIdx.x] = Unroll<12>::run(x, 0.f, threadIdx.x);
}
