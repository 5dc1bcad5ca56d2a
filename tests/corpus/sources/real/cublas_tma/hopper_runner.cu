// A Hopper GEMM runner's host side: a TMA descriptor for the A tile (driver API, cuda.h) and
// cuBLAS for the reference result (cublas_v2.h, from the nvidia-cublas wheel).
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale_tile(float* out, const float* in, float alpha, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = alpha * in[i];
}

static CUtensorMap make_map(void* base, int rows, int cols) {
    CUtensorMap map;
    const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
    const cuuint64_t strides[1] = {cuuint64_t(cols) * sizeof(float)};
    const cuuint32_t box[2] = {64, 64};
    const cuuint32_t step[2] = {1, 1};
    CUresult status = cuTensorMapEncodeTiled(
        &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, step,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (status != CUDA_SUCCESS) std::printf("tensor map: %d\n", int(status));
    return map;
}

int main() {
    const int n = 1024;
    float *a, *c;
    cudaMalloc(&a, n * n * sizeof(float));
    cudaMalloc(&c, n * n * sizeof(float));
    CUtensorMap map = make_map(a, n, n);
    (void)map;
    cublasHandle_t handle;
    cublasCreate(&handle);
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, c, n);
    scale_tile<<<n * n / 256, 256>>>(c, c, 0.5f, n * n);
    cublasDestroy(handle);
    return 0;
}
