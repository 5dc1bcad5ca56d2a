// ptxas' own subroutines beside a user's own: `x / s` calls the float division slow path
// ptxas appends after the kernel (no line rows of its own: nvdisasm's line table keeps the
// row before it), and `scaled` is a __noinline__ device function called by CALL, with the
// rows of its own lines. tests/test_subroutines.py checks which instructions have a line.
__device__ __noinline__ float scaled(float v, float s) {
    float w = v * s;
    return w + 1.0f;
}

// The slow path is called from the division; the user's function from its call.
__global__ void divide_and_call(const float* x, float* out, float s) {
    float v = x[threadIdx.x];
    float q = v / s;
    out[threadIdx.x] = scaled(q, s);
}
