"""A CuTe DSL vector add, the way the CUTLASS examples write a naive elementwise add.

A @cute.jit host function launches a @cute.kernel; each thread adds one element. Kept in its
own file so the line numbers the tests check stay put when the tests change.
"""

import cutlass
import cutlass.cute as cute


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


def fake_args(n: int | None = None, dtype: type = cutlass.Float32) -> tuple:
    """Three fake 1-D tensors of `n` elements (a runtime size when n is None): no GPU needed."""
    size = cute.sym_int32() if n is None else n
    return tuple(
        cute.runtime.make_fake_compact_tensor(dtype, (size,), assumed_align=16) for _ in range(3)
    )


@cute.kernel
def scale_by_two_kernel(gA: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    gC[tidx] = gA[tidx] * 2.0


@cute.kernel
def add_one_kernel(gA: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    gC[tidx] = gA[tidx] + 1.0


def make_host(kernel):  # noqa: ANN001, ANN201 - a factory, as generated launch code is written
    """A host function that launches `kernel`: the hosts it makes share their code and name."""

    @cute.jit
    def host(mA: cute.Tensor, mC: cute.Tensor):
        kernel(mA, mC).launch(grid=(1, 1, 1), block=(128, 1, 1))

    return host


@cute.kernel
def sum_rows_kernel(gA: cute.Tensor, gC: cute.Tensor, n: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    a = cutlass.Float32(0.0)
    for j in cutlass.range(n):  # ROWS: AS LLVM LIKES
        a += gA[j * 128 + tidx]
    b = cutlass.Float32(0.0)
    for j in cutlass.range(n, unroll=4):  # ROWS: UNROLL 4
        b += gA[j * 128 + tidx] * 2.0
    c = cutlass.Float32(0.0)
    for j in cutlass.range(n, unroll=1):  # ROWS: UNROLL 1
        c += gA[j * 128 + tidx] * 3.0
    d = cutlass.Float32(0.0)
    for j in cutlass.range(4, unroll_full=True):  # ROWS: FULL
        d += gA[j * 128 + tidx] * 4.0
    gC[tidx] = a + b + c + d


@cute.jit
def sum_rows(mA: cute.Tensor, mC: cute.Tensor, n: cutlass.Int32):
    """Three loops over n rows, each asking for a different unrolling."""
    sum_rows_kernel(mA, mC, n).launch(grid=(1, 1, 1), block=(128, 1, 1))
