"""A Triton Gluon kernel for sassview's tests: a vector add over an explicit blocked layout."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

import sassview as sv


@gluon.jit
def gluon_add(x_ptr, y_ptr, out_ptr, n, BLOCK: gl.constexpr, PER_THREAD: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(
        size_per_thread=[PER_THREAD], threads_per_warp=[32], warps_per_cta=[4], order=[0]
    )
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask)
    y = gl.load(y_ptr + offs, mask=mask)
    gl.store(out_ptr + offs, x + y, mask=mask)


sv.triton(
    gluon_add,
    signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
    constexprs={"BLOCK": 1024},
    divisibility=["x_ptr", "y_ptr", "out_ptr", "n"],
    arch=["sm_90a"],
    variants={"PER_THREAD": [1, 4]},
)
