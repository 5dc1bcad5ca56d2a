// Helpers of shapes2.cu (tests/test_loop_shapes2.py): config structs that inherit their sizes
// or nest them, warp reductions written the ways training codebases write them, and a
// micro-kernel called at two sites. `// @name` marks a loop statement or a call site.
#pragma once

typedef unsigned int uint;

// Sizes a config inherits from its base, and a tile nested in a policy struct.
struct BlockShape {
  static constexpr int BM = 32, BN = 64, BK = 8;
};
struct ThreadShape : BlockShape {
  static constexpr int TM = 4, TN = 8;
  static constexpr int THREADS = (BM / TM) * (BN / TN);
};
struct Policy {
  struct Tile {
    static constexpr int kRows = 4;
    static constexpr int kCols = 2;
  };
  enum { kItems = 4, kThreads = 128 };
};

__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }

// A butterfly with its width as a defaulted template parameter and `>= 1` as its test.
template <int kWarp = 32>
__device__ __forceinline__ float warp_max(float v) {
  for (int mask = kWarp >> 1; mask >= 1; mask >>= 1) {  // @wm_mask
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
  }
  return v;
}

// The same with warpSize and a while loop.
__device__ __forceinline__ float warp_sum(float v) {
  int off = warpSize / 2;
  while (off > 0) {  // @ws_off
    v += __shfl_down_sync(0xffffffffu, v, off);
    off /= 2;
  }
  return v;
}

// acc += a (x) b over a 4 x 4 tile read from shared memory: called twice per kernel (in the
// main K loop and once after it, for the last buffer).
template <int BK, int LDA, int LDB>
__device__ __forceinline__ void mac_tile(float (&acc)[4][4], const float* As, const float* Bs,
                                         uint ty, uint tx) {
  for (int k = 0; k < BK; ++k) {  // @mt_k
    float a[4], b[4];
    for (int i = 0; i < 4; ++i) a[i] = As[k * LDA + ty * 4 + i];  // @mt_a
    for (int j = 0; j < 4; ++j) b[j] = Bs[k * LDB + tx * 4 + j];  // @mt_b
    for (int i = 0; i < 4; ++i) {  // @mt_i
      for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);  // @mt_j
    }
  }
}

// Elements of T a 16-byte access holds.
template <typename T>
struct Vec {
  static constexpr int N = 16 / sizeof(T);
};
