// Column walk through a row-major matrix: lane i reads row i, so lanes are `cols` floats apart.
extern "C" __global__ void column_sum(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x;
    int r = threadIdx.x;
    if (r < rows)
        out[r * cols + c] = in[r * cols + c] * 2.0f;
}

// Narrow loads that a wider access could replace: each thread reads 4 adjacent floats.
extern "C" __global__ void four_scalars(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float* p = in + 4 * i;
        out[i] = p[0] + p[1] + p[2] + p[3];
    }
}
