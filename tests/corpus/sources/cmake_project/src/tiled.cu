// The translation unit the build compiles: it includes the kernel's header and launches it.
#include <cstdio>

#include "tiles/scale.cuh"

int main() {
    float* data = nullptr;
    cudaMalloc(&data, 1024 * sizeof(float));
    tiled_scale<<<1024 / TILE, TILE>>>(data, 1024);
    cudaDeviceSynchronize();
    std::printf("done\n");
    return 0;
}
