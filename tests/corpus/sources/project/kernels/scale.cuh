// A template kernel in a header: only the runner's launch instantiates it.
#pragma once

template <int BLOCK>
__global__ void scale_rows(float* rows, float factor, int width) {
    float* row = rows + blockIdx.x * width;
    for (int c = threadIdx.x; c < width; c += BLOCK) {
        row[c] *= factor;
    }
}
