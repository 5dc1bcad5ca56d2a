// Kernels with one loop property each, known by construction (tests/test_cfg_loops.py,
// tests/test_unroll.py). A trailing `// @name` comment marks the line of each loop statement;
// the tests find loops by these marks, so lines may move.

__global__ void unroll4(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc = 0.0f;
#pragma unroll 4
  for (int i = 0; i < n; ++i) {  // @unroll4
    acc += in[i] * 2.0f;
  }
  out[threadIdx.x] = acc;
}

__global__ void unroll1(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @unroll1
    acc += in[i] * 2.0f;
  }
  out[threadIdx.x] = acc;
}

__global__ void full8(const float* __restrict__ in, float* __restrict__ out) {
  float acc = 0.0f;
  for (int i = 0; i < 8; ++i) {  // @full8
    acc += in[threadIdx.x + i * 32] * 2.0f;
  }
  out[threadIdx.x] = acc;
}

__global__ void fullrt(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < n; ++i) {  // @fullrt
    acc += in[i] * 2.0f;
  }
  out[threadIdx.x] = acc;
}

__global__ void nested(const float* __restrict__ in, float* __restrict__ out, int n, int m) {
  float acc = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @outer
#pragma unroll 1
    for (int j = 0; j < m; ++j) {  // @inner
      acc += in[i * m + j];
    }
    acc *= 0.5f;
  }
  out[threadIdx.x] = acc;
}

__global__ void nestfull(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @rolled
    for (int j = 0; j < 4; ++j) {  // @unrolled
      acc += in[i * 4 + j] * 3.0f;
    }
    acc *= 0.5f;
  }
  out[threadIdx.x] = acc;
}

__global__ void whileloop(const int* __restrict__ in, int* __restrict__ out) {
  int x = in[threadIdx.x];
  int steps = 0;
  while (x != 1) {  // @while
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  out[threadIdx.x] = steps;
}

__global__ void dowhile(float* out, int n) {
  float v = out[threadIdx.x];
  int i = 0;
  do {  // @do
    v = v * 0.5f + 1.0f;
    ++i;
  } while (v > 2.0f && i < n);
  out[threadIdx.x] = v;
}

__device__ __noinline__ float dev_sum(const float* p, int n) {
  float s = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @callee
    s += p[i];
  }
  return s;
}

__global__ void callsloop(const float* in, float* out, int n) {
  out[threadIdx.x] = dev_sum(in + threadIdx.x, n);
}

__global__ void early(const int* __restrict__ in, int* __restrict__ out, int n) {
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @early
    if (in[i] == 0) {
      out[threadIdx.x] = i;
      return;
    }
  }
  out[threadIdx.x] = -1;
}

__global__ void dot2(const float* a, const float* b, float* out, int n) {
  float s = 0.0f;
#pragma unroll 2
  for (int i = 0; i < n; ++i) {  // @dot2
    s += a[i] * b[i];
  }
  out[threadIdx.x] = s;
}

__device__ __forceinline__ float inlined_sum(const float* p, int n) {
  float s = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @inlined
    s += p[i];
  }
  return s;
}

__global__ void inl(const float* in, float* out, int n) {
  out[threadIdx.x] = inlined_sum(in, n);  // @callsite
}

__global__ void sw(const int* in, float* out, int n) {
#pragma unroll 1
  for (int i = 0; i < n; ++i) {  // @switch
    switch (in[i] & 15) {
      case 0: out[0] += 1.f; break;
      case 1: out[1] *= 2.f; break;
      case 2: out[2] -= 3.f; break;
      case 3: out[3] = __sinf(out[3]); break;
      case 4: out[4] = __cosf(out[4]); break;
      case 5: out[5] += in[i + 1]; break;
      case 6: out[6] = out[6] * out[6]; break;
      case 7: out[7] = __expf(out[7]); break;
      case 8: out[8] = __logf(out[8]); break;
      default: out[9] += 0.5f;
    }
  }
}

__global__ void invariant(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 1
  for (int j = 0; j < n; ++j) {  // @invouter
#pragma unroll
    for (int i = 0; i < 32; ++i) {  // @invinner
      acc[i % 4] = fmaf(acc[i % 4], in[j], (float)i);  // one load of in[j] serves all 32 copies
    }
  }
  out[threadIdx.x] = acc[0] + acc[1] + acc[2] + acc[3];
}
