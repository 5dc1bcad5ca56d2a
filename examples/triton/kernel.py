"""Triton kernels for sassview: `sassview check examples/triton/kernel.py`.

- `add`: a vector add. With `divisibility` (pointers 16-byte aligned, n a multiple of 16) its
  loads and stores are 128-bit (LDG.E.128 / STG.E.128); without that promise they are 32-bit
  (drop it and `sassview try` finds the knob again).
- `matmul`: a tiled matmul with tl.dot: HMMA (mma.sync) on sm_80, HGMMA (wgmma) on sm_90a,
  with cp.async (LDGSTS) pipelining from num_stages.
- `scale`: an `@triton.autotune` kernel declared as it is: one variant per config.
"""

import triton
import triton.language as tl

import sassview as sv


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def matmul(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


ADD_SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
sv.triton(add, signature=ADD_SIGNATURE, constexprs={"BLOCK": 1024},
          divisibility=list(ADD_SIGNATURE), arch=["sm_80", "sm_90a"])  # fmt: skip

MATMUL_SIGNATURE = {
    "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
    "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
}  # fmt: skip
# Unit strides as constexprs: Triton then knows the rows are contiguous (vector loads, wgmma).
UNIT = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
for arch, block_k in (("sm_80", 32), ("sm_90a", 64)):  # wgmma wants the longer K tile
    sv.triton(
        matmul,
        signature=MATMUL_SIGNATURE,
        constexprs={**UNIT, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": block_k},
        divisibility=list(MATMUL_SIGNATURE),
        arch=arch,
        num_warps=4,
        num_stages=3,
    )


# An autotuned kernel is declared as it is: each Config is one variant, labelled by its values
# (`scale [BLOCK=256, num_warps=4, num_stages=1, maxnreg=32]`). The autotuner's `key` needs
# launches to act on, so every config is compiled.
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 512}, num_warps=4, num_stages=1),
        triton.Config({"BLOCK": 256}, num_warps=4, num_stages=1, maxnreg=32),
    ],
    key=["n"],
)
@triton.jit
def scale(x_ptr, out_ptr, factor, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)


SCALE_SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "factor": "fp32", "n": "i32"}
sv.triton(scale, signature=SCALE_SIGNATURE, divisibility=["x_ptr", "out_ptr", "n"], arch="sm_90a")
