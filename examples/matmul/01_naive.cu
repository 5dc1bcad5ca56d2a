// Step 1: one thread per output element, every operand straight from global memory.
// Expect: scalar 32-bit LDG in the inner loop, FFMA, no shared memory, no tensor cores.
extern "C" __global__ void matmul_naive(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    acc += A[row * K + k] * B[k * N + col];
  }
  C[row * N + col] = acc;
}
