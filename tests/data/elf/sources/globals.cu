// __device__ and __constant__ variables: cuobjdump's "Common" GLOBAL and CONSTANT[3]/[4].
__device__ int table[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
__device__ int counter;
__constant__ int lut[3] = {1, 2, 3};
extern "C" __global__ void g(int* out, int i) {
    out[threadIdx.x] = table[i] + lut[i];
    atomicAdd(&counter, 1);
}
