// A -D the file overrides: compiled with -DTILE=16 and -DSTEPS=3; the file's own #define of
// TILE wins (the compiler warns), its #ifndef-guarded STEPS yields to the -D.
#define TILE 32
#ifndef STEPS
#define STEPS 5
#endif

__global__ void tile_sum(const float* in, float* out) {
  float s = 0.f;
  for (int i = 0; i < TILE; ++i) s += __expf(in[threadIdx.x + i * 256]);
  for (int j = 0; j < STEPS; ++j) s = __sinf(s);
  out[threadIdx.x] = s;
}
