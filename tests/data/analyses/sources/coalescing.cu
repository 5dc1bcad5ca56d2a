// Global and shared accesses whose sectors and bank conflicts are known by construction
// (sassview coalescing and bank_conflicts tests). A warp is 32 consecutive threadIdx.x unless
// the test gives a block shape; every global base is a cudaMalloc pointer (256-byte aligned).
#define N 1024

// i = 32k + lane: lane stride 4 bytes, 4 sectors per warp for the load and the store.
extern "C" __global__ void stride1(const float* __restrict__ a, float* __restrict__ out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i];
}

// Load stride 8 bytes: 8 sectors; store stride 4: 4 sectors.
extern "C" __global__ void stride2(const float* __restrict__ a, float* __restrict__ out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[2 * i];
}

// Load stride 128 bytes: 32 sectors, one per lane.
extern "C" __global__ void stride32(const float* __restrict__ a, float* __restrict__ out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[32 * i];
}

// threadIdx.x walks a row: stride 4, 4 sectors (16x16 blocks: two rows of 64 bytes, 4 sectors).
extern "C" __global__ void rows(const float* __restrict__ a, float* __restrict__ out) {
  out[threadIdx.y * N + threadIdx.x] = a[threadIdx.y * N + threadIdx.x];
}

// threadIdx.x walks a column: stride 4096 bytes, 32 sectors (16x16 blocks: still 32).
extern "C" __global__ void columns(const float* __restrict__ a, float* __restrict__ out) {
  out[threadIdx.x * N + threadIdx.y] = a[threadIdx.x * N + threadIdx.y];
}

// 64-bit per lane: 256 bytes, 8 sectors, the minimum.
extern "C" __global__ void vec2(const float2* __restrict__ a, float2* __restrict__ out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i];
}

// 128-bit per lane: 512 bytes, 16 sectors, the minimum.
extern "C" __global__ void vec4(const float4* __restrict__ a, float4* __restrict__ out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i];
}

// One float past the base: 128 bytes from offset 4 span 5 sectors.
extern "C" __global__ void misaligned(const float* __restrict__ a, float* __restrict__ out) {
  out[threadIdx.x] = a[threadIdx.x + 1];
}

// Every lane reads one address: 1 sector (the minimum for a broadcast).
extern "C" __global__ void broadcast(const float* __restrict__ a, float* __restrict__ out) {
  out[threadIdx.x] = a[blockIdx.x];
}

// The address of the second load comes from memory: unknown.
extern "C" __global__ void gather(const float* __restrict__ a, const int* __restrict__ idx,
                                  float* __restrict__ out) {
  out[threadIdx.x] = a[idx[threadIdx.x]];
}

// A 32x32 tile written by rows, read by rows (no conflict) and by columns (32-way).
extern "C" __global__ void tile_rows_cols(const float* __restrict__ a, float* __restrict__ out) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = a[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x] + tile[threadIdx.x][threadIdx.y];
}

// The same tile padded to 33 columns: the column read has no conflict.
extern "C" __global__ void tile_padded(const float* __restrict__ a, float* __restrict__ out) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = a[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// The same tile XOR-swizzled (column ^ row): the column read has no conflict.
extern "C" __global__ void tile_swizzled(const float* __restrict__ a, float* __restrict__ out) {
  __shared__ float tile[32][32];
  unsigned x = threadIdx.x, y = threadIdx.y;
  tile[y][x ^ y] = a[y * 32 + x];
  __syncthreads();
  out[y * 32 + x] = tile[x][y ^ x];
}

// 64-bit shared accesses: consecutive float2 (no conflict), float2 with stride 2 (2-way).
extern "C" __global__ void shared64(const float2* __restrict__ a, float2* __restrict__ out) {
  __shared__ float2 s[64];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  float2 u = s[threadIdx.x];
  float2 v = s[(2 * threadIdx.x) & 63];
  out[threadIdx.x] = make_float2(u.x + v.x, u.y + v.y);
}

// 128-bit shared accesses: consecutive float4 (no conflict), float4 with stride 2 (2-way).
extern "C" __global__ void shared128(const float4* __restrict__ a, float4* __restrict__ out) {
  __shared__ float4 s[64];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  float4 u = s[threadIdx.x];
  float4 v = s[(2 * threadIdx.x) & 63];
  out[threadIdx.x] = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
}

// A loop over k: the naive SGEMM's A[row*K + k] with row from threadIdx.x (uncoalesced, in a
// loop: a warning) against B[k*K + col] with col from threadIdx.x (coalesced).
extern "C" __global__ void naive_gemm(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int K) {
  unsigned row = blockIdx.x * 32 + threadIdx.x;
  unsigned col = blockIdx.y * 32 + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) {
    acc += A[row * N + k] * B[k * N + col];
  }
  C[row * N + col] = acc;
}

// ldmatrix.x4 of a 16x16 half tile: lane l gives row l % 16, column 8 * (l / 16). Rows of 32
// bytes put rows r and r + 4 of one 8x8 matrix on the same banks: 2-way, 8 wavefronts for 4
// matrices. Rows padded to 24 halves (48 bytes) spread each matrix over all 32 banks: 4.
template <int COLS>
__device__ void ldmatrix_tile(const unsigned* __restrict__ a, unsigned* __restrict__ out) {
  __shared__ __align__(16) unsigned short tile[16][COLS];
  unsigned lane = threadIdx.x;
#pragma unroll
  for (int j = 0; j < COLS / 2; ++j) (&tile[0][0])[lane + 32 * j] = (unsigned short)a[lane + 32 * j];
  __syncthreads();
  unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[lane % 16][8 * (lane / 16)]);
  unsigned r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  out[lane] = r0 + r1 + r2 + r3;
}
extern "C" __global__ void ldmatrix_rows32(const unsigned* __restrict__ a, unsigned* __restrict__ out) {
  ldmatrix_tile<16>(a, out);
}
extern "C" __global__ void ldmatrix_rows48(const unsigned* __restrict__ a, unsigned* __restrict__ out) {
  ldmatrix_tile<24>(a, out);
}

// The naive SGEMM with run-time sizes: x (from threadIdx.x) walks the rows of A and C, so
// A[x*k + i] strides 4k bytes a lane and C[x*n + y] 4n: 32 sectors once k, n >= 9; B[i*n + y]
// is one address for the warp (y from threadIdx.y): 1 sector.
extern "C" __global__ void sgemm_runtime(const float* A, const float* B, float* C, int n, int k) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc += A[x * k + i] * B[i * n + y];
  C[x * n + y] = acc;
}
