"""A CuTe DSL kernel for sassview: `sassview check examples/cute/kernel.py`.

A vector add the way the CUTLASS DSL examples write a naive elementwise kernel: a @cute.jit
host function launches a @cute.kernel in which each thread adds one element. The tensors are
fake (shapes, dtypes and alignment only), so no GPU is needed; SASS lines map to this file.
"""

import cutlass
import cutlass.cute as cute

import sassview as sv


@cute.kernel
def vector_add_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    bdim, _, _ = cute.arch.block_dim()
    i = bidx * bdim + tidx
    if i < cute.size(gA):
        gC[i] = gA[i] + gB[i]


@cute.jit
def vector_add(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    threads = 256
    blocks = cute.ceil_div(cute.size(mA), threads)
    vector_add_kernel(mA, mB, mC).launch(grid=(blocks, 1, 1), block=(threads, 1, 1))


def fake(n: int) -> cute.Tensor:
    return cute.runtime.make_fake_compact_tensor(cutlass.Float32, (n,), assumed_align=16)


sv.cute(vector_add, fake(1 << 20), fake(1 << 20), fake(1 << 20), arch=["sm_90a", "sm_100a"])
