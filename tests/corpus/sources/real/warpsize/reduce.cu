// The includer: it sets the context block_reduce.cuh expects, then includes it.
#define WARPSIZE 32
typedef float real;
#include "block_reduce.cuh"
