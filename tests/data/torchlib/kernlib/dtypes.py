"""dtype tables and limits, built at import."""

import torch
import triton.language as tl

TORCH_TO_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}
SUPPORTED = (torch.float16, torch.bfloat16, torch.float32)
FP16_MAX = torch.finfo(torch.float16).max
FP8_MAX = torch.finfo(torch.float8_e4m3fn).max
EPS = {dt: torch.finfo(dt).eps for dt in SUPPORTED}
INT32_MAX = torch.iinfo(torch.int32).max
ACC_DTYPE = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.half: torch.float32}
assert torch.float16.itemsize == 2 and torch.bfloat16.is_floating_point
assert FP16_MAX == 65504.0 and FP8_MAX == 448.0
