"""A CuTe DSL kernel file that builds its arguments with torch: it needs torch installed."""

import cutlass.cute as cute
import torch
from cutlass.cute.runtime import from_dlpack

import sassview as sv


@cute.jit
def host(mA: cute.Tensor):
    pass


a = from_dlpack(torch.empty(4096, dtype=torch.float16))  # TORCH CALL
sv.cute(host, a, arch="sm_90a")
