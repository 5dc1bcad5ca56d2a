extern "C" __global__ void rowsum(const float* __restrict__ x, float* __restrict__ out, int n) {
    int row = blockIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        acc += x[row * n + j];
    }
    float acc2 = 0.0f;
#pragma unroll 4
    for (int j = 0; j < n; ++j) {
        acc2 += x[j] * acc;
    }
    atomicAdd(out + row, acc + acc2);
}
