"""CuTe DSL copies whose coalescing is known by construction (tests/test_memory_frontends.py).

A 1024 x 1024 float32 row-major tensor is copied tile by tile; each thread moves one element,
the thread-value layout of the copy says which. In `copy_rows` the thread layout (4, 32):(32, 1)
puts 32 consecutive threads along a row, the stride-1 mode: one warp reads 128 contiguous bytes,
4 sectors, and writes them. In `copy_columns` the thread layout (32, 4):(1, 32) puts them down a
column: lanes 4096 bytes apart, 32 sectors for the load and for the store.
"""

import cutlass
import cutlass.cute as cute


@cute.kernel
def tv_copy_kernel(gA: cute.Tensor, gB: cute.Tensor, tv_layout: cute.Layout):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    blk_a = gA[((None, None), bidx)]
    blk_b = gB[((None, None), bidx)]
    thr_a = cute.composition(blk_a, tv_layout)[(tidx, None)]
    thr_b = cute.composition(blk_b, tv_layout)[(tidx, None)]
    frg = cute.make_fragment_like(thr_a)
    cute.autovec_copy(thr_a, frg)  # the load
    cute.autovec_copy(frg, thr_b)  # the store


@cute.jit
def copy_rows(mA: cute.Tensor, mB: cute.Tensor):
    thr_layout = cute.make_layout((4, 32), stride=(32, 1))  # threads along the rows
    val_layout = cute.make_layout((1, 1), stride=(1, 1))
    tiler, tv_layout = cute.make_layout_tv(thr_layout, val_layout)
    gA, gB = cute.zipped_divide(mA, tiler), cute.zipped_divide(mB, tiler)
    tv_copy_kernel(gA, gB, tv_layout).launch(
        grid=(cute.size(gA, mode=[1]), 1, 1), block=(cute.size(tv_layout, mode=[0]), 1, 1)
    )


@cute.jit
def copy_columns(mA: cute.Tensor, mB: cute.Tensor):
    thr_layout = cute.make_layout((32, 4), stride=(1, 32))  # threads down the columns
    val_layout = cute.make_layout((1, 1), stride=(1, 1))
    tiler, tv_layout = cute.make_layout_tv(thr_layout, val_layout)
    gA, gB = cute.zipped_divide(mA, tiler), cute.zipped_divide(mB, tiler)
    tv_copy_kernel(gA, gB, tv_layout).launch(
        grid=(cute.size(gA, mode=[1]), 1, 1), block=(cute.size(tv_layout, mode=[0]), 1, 1)
    )


def fake_args() -> tuple:
    make = cute.runtime.make_fake_compact_tensor
    row_major = (1, 0)  # mode 1 (the columns of a row) is the stride-1 mode
    args = dict(stride_order=row_major, assumed_align=16)
    return tuple(make(cutlass.Float32, (1024, 1024), **args) for _ in range(2))
