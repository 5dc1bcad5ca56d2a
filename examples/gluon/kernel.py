"""A Triton Gluon kernel: y = a * x + y over an explicit blocked layout.

In Gluon the layout is the programmer's: `size_per_thread` elements per thread, contiguous, is
what lets a load be one 128-bit instruction (4 fp32) rather than four 32-bit ones. The two
variants show it in SASS: PER_THREAD=1 loads 32 bits at a time, PER_THREAD=4 128.

    sassview check examples/gluon/kernel.py
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

import sassview as sv


@gluon.jit
def axpy(x_ptr, y_ptr, a, n, BLOCK: gl.constexpr, PER_THREAD: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(
        size_per_thread=[PER_THREAD], threads_per_warp=[32], warps_per_cta=[4], order=[0]
    )
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    keep = offs < n
    x = gl.load(x_ptr + offs, mask=keep)
    y = gl.load(y_ptr + offs, mask=keep)
    gl.store(y_ptr + offs, a * x + y, mask=keep)


sv.gluon(
    axpy,
    args=dict(x_ptr=sv.tensor("fp32", (1 << 20,)), y_ptr=sv.tensor("fp32", (1 << 20,)), a=2.0,
              n=1 << 20, BLOCK=1024),
    arch="sm_90a",
    variants={"PER_THREAD": [1, 4]},
)  # fmt: skip
