// A dense switch becomes a jump table: BRX through a register, whose targets the CFG does not
// know (nvdisasm prints them as a BRANCH_TARGETS note the parser keeps as a mark).
extern "C" __global__ void sw(const int* k, float* o, float x) {
  int v = k[threadIdx.x];
  float r;
  switch (v) {
    case 0: r = x * 2; break; case 1: r = x + 3; break; case 2: r = x * x; break; case 3: r = x - 7; break;
    case 4: r = sqrtf(x); break; case 5: r = 1.f / x; break; case 6: r = x * 3 + 1; break; case 7: r = -x; break;
    case 8: r = x * 0.5f; break; case 9: r = x + 11; break; case 10: r = x * x * x; break; case 11: r = x - 1; break;
    default: r = 0;
  }
  o[threadIdx.x] = r;
}
