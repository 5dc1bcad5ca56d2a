"""A warp-specialized Triton matmul whose K loop's body is a @jit helper: the partitions' mbarrier
waits are at the helper's lines, inlined at the call in the loop (tests/test_finding_per_cause.py).
Needs sm_100a (tcgen05): Triton 3.9's warp specialization fails on it for sm_90a, num_warps=4."""

import triton
import triton.language as tl


@triton.jit
def mma_step(a_desc, b_desc, acc, off_m, off_n, k, BLOCK_K: tl.constexpr):
    a = a_desc.load([off_m, k * BLOCK_K])  # @load_a
    b = b_desc.load([off_n, k * BLOCK_K])
    return tl.dot(a, b.T, acc)  # @dot


@triton.jit
def ws_gemm(
    a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    steps = tl.cdiv(K, BLOCK_K)
    for k in tl.range(0, steps, warp_specialize=True, num_stages=2):  # @k_loop
        acc = mma_step(a_desc, b_desc, acc, off_m, off_n, k, BLOCK_K)  # @step
    c_desc.store([off_m, off_n], acc.to(tl.float16))
