"""A CuTe DSL kernel whose PTX is recorded under tests/data/ptx/ (see ../record.py)."""

import cutlass.cute as cute


@cute.kernel
def add_k(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    bdim, _, _ = cute.arch.block_dim()
    i = bidx * bdim + tidx
    m, n = gA.shape
    if i < m * n:
        mi, ni = i // n, i % n
        gC[mi, ni] = gA[mi, ni] + gB[mi, ni]


@cute.jit
def add(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    m, n = mA.shape
    add_k(mA, mB, mC).launch(grid=((m * n + 255) // 256, 1, 1), block=(256, 1, 1))
