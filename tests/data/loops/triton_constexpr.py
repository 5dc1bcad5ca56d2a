"""A Triton kernel whose loop bounds are constexprs: the census reads them as compiled
(tests/test_loop_constants.py). Compiled with STAGES=3, BLOCK=128 for sm_90a: the static
range is 3 LDG (one a thread a stage), no loop left."""

import triton
import triton.language as tl


@triton.jit
def tr_stages(x_ptr, out_ptr, STAGES: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(STAGES):  # @stages
        acc += tl.load(x_ptr + s * BLOCK + offs)
    tl.store(out_ptr + offs, acc)
