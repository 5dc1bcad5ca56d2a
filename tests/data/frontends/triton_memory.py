"""Triton kernels whose memory use is known by construction (tests/test_memory_frontends.py).

With num_warps=4 and BLOCK=128 float32 elements, Triton gives each thread one element: lane l
of warp 0 handles element l.
- `copy_rows`: x[offs] -> y[offs]: 4 sectors per warp for the load and the store.
- `copy_column`: x[offs * N + col] (a column of a row-major N x N matrix) -> y[offs]: lanes
  4N bytes apart, 32 sectors for the load; the store 4.
- `transpose_tile`: a 32x32 tile loaded along its rows and stored along its columns: Triton
  converts the layout through shared memory, with a layout of its own choosing (swizzled or
  padded) so that neither side conflicts; every global access is coalesced.
"""

import triton
import triton.language as tl


@triton.jit
def copy_rows(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))  # rows: coalesced


@triton.jit
def copy_column(x_ptr, y_ptr, col, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs * N + col)  # a column: uncoalesced
    tl.store(y_ptr + offs, v)


@triton.jit
def transpose_tile(x_ptr, y_ptr, N: tl.constexpr, TILE: tl.constexpr):
    r = tl.arange(0, TILE)
    tile = tl.load(x_ptr + r[:, None] * N + r[None, :])  # along rows
    tl.store(y_ptr + r[None, :] * N + r[:, None], tile)  # along columns (transposed)


@triton.jit
def column_walk(X, OUT, M, stride_m, BLOCK_M: tl.constexpr):
    """A column sum: rows * stride_m + col, the stride a run-time argument (tests/
    test_triton_strides.py: a runtime-stride note unless it is specialized divisible by 16)."""
    col = tl.program_id(0)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for off in range(0, M, BLOCK_M):
        rows = off + tl.arange(0, BLOCK_M)
        acc += tl.load(X + rows * stride_m + col, mask=rows < M, other=0.0)
    tl.store(OUT + col, tl.sum(acc, axis=0))
