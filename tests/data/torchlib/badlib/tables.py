import torch
import triton
import triton.language as tl


@triton.jit
def _gather(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + tl.load(idx_ptr + offs)), mask=offs < n)


LOOKUP = torch.randn(256, dtype=torch.float32)  # TORCH CALL
