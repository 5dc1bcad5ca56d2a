// What reduce.cuh expects from its includer.
typedef float value_t;
#define WARPSIZE 32
