// Host code of a Hopper kernel's runner: the driver API's tensor map (cuda.h) and cuBLAS for a
// reference result. cuda.h comes with the nvcc wheels; cublas_v2.h with nvidia-cublas.
#include <cuda.h>
#ifdef WITH_CUBLAS
#include <cublas_v2.h>
#endif

__global__ void touch(float* x) { x[threadIdx.x] = 0.0f; }

int main() {
    CUtensorMap map;
    cuuint64_t dims[2] = {128, 128};
    cuuint64_t strides[1] = {128 * sizeof(float)};
    cuuint32_t box[2] = {64, 64};
    cuuint32_t step[2] = {1, 1};
    cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, nullptr, dims, strides, box,
                           step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
#ifdef WITH_CUBLAS
    cublasHandle_t handle;
    cublasCreate(&handle);
#endif
    touch<<<1, 32>>>(nullptr);
    return 0;
}
