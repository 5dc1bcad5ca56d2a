"""Device and vendor probes, run at import."""

import functools
import importlib.util

import torch
import triton


def _vendor() -> str:
    # Another vendor's torch adds its device module to torch: its kernels live elsewhere.
    if hasattr(torch, "mlu"):
        import torch_mlu  # noqa: F401

        return "cambricon"
    if hasattr(torch, "npu") or importlib.util.find_spec("torch_npu") is not None:
        return "ascend"
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return "intel"
    return "nvidia"


def infer_device() -> str:
    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"


VENDOR = _vendor()
DEVICE = infer_device()
NUM_DEVICES = torch.cuda.device_count()
CAPABILITY = torch.cuda.get_device_capability() if torch.cuda.is_available() else (9, 0)
TORCH_VERSION = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
HAS_CUSTOM_OP = TORCH_VERSION >= (2, 4) and hasattr(torch.library, "custom_op")
IS_ROCM = torch.version.hip is not None
DEFAULT_DEVICE = torch.device(DEVICE)
torch.backends.cuda.matmul.allow_tf32 = True


@functools.lru_cache
def num_sms() -> int:
    return torch.cuda.get_device_properties(0).multi_processor_count


def ensure_contiguous(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        return fn(*args, **kwargs)

    return wrapper


def launch_warps(block: int) -> int:
    return min(max(block // 256, 1), 8 if CAPABILITY[0] < 9 else 16)


next_pow2 = triton.next_power_of_2
