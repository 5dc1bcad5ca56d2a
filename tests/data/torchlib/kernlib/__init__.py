"""kernlib: Triton kernels behind torch ops (imports every op, as such libraries do)."""

from kernlib.ops.matmul import matmul
from kernlib.ops.rmsnorm import RMSNorm, rms_norm
from kernlib.ops.softmax import softmax
from kernlib.utils import DEVICE, VENDOR

__all__ = ["DEVICE", "VENDOR", "RMSNorm", "matmul", "rms_norm", "softmax"]
