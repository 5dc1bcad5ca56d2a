"""A CuTe DSL kernel file the way kernel repositories write one: torch imported at module level
for the launch wrapper's annotations only. sassview compiles it where torch is not installed.
"""

from typing import Optional

import cutlass
import cutlass.cute as cute
import cutlass.torch as cutlass_torch  # the DSL's torch helpers import torch too
import torch
from torch import Tensor

import sassview as sv


@cute.kernel
def scale_kernel(gA: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    i = bidx * 128 + tidx
    gC[i] = gA[i] * 3.0


@cute.jit
def scale(mA: cute.Tensor, mC: cute.Tensor):
    scale_kernel(mA, mC).launch(grid=(cute.size(mA) // 128, 1, 1), block=(128, 1, 1))


def run(a: torch.Tensor, out: Optional[Tensor] = None) -> torch.Tensor:  # noqa: UP045
    """What a user calls on a GPU machine (never called by sassview)."""
    out = torch.empty_like(a) if out is None else out
    stream = cutlass_torch.current_stream()
    scale(a, out, stream)
    return out


def fake() -> cute.Tensor:
    return cute.runtime.make_fake_compact_tensor(cutlass.Float32, (4096,), assumed_align=16)


assert not isinstance(fake(), torch.Tensor)
sv.cute(scale, fake(), fake(), arch="sm_90a")
