// A kernel in a header: TILE comes from the build (-DTILE), `if constexpr` needs -std=c++17.
#pragma once
#include "tiles/config.cuh"

__global__ void tiled_scale(float* data, int n) {
    int i = blockIdx.x * TILE + threadIdx.x;
    if constexpr (TILE > 32) {
        if (i < n) data[i] *= tile_scale<float>();
    } else {
        if (i < n) data[i] += 1.0f;
    }
}
