"""Triton kernels whose hints were wrong (tests/test_hints_checked.py): each labelled by hand
from its SASS (sm_90a, Triton 3.9)."""

import triton
import triton.language as tl

import sassview as sv


@triton.jit
def gather_rows(x_ptr, idx_ptr, out_ptr, n_idx, D: tl.constexpr):
    """A row gather: the loop is not pipelined at the launch's num_stages=3 (nor at 4: its
    SASS is the same LDG.E waited on 2 issue cycles later), only by
    `tl.range(..., num_stages=3)` (then 8 LDGSTS, no exposed load)."""
    pid = tl.program_id(0)
    cols = tl.arange(0, D)
    acc = tl.zeros([D], dtype=tl.float32)
    for i in range(0, n_idx):
        row = tl.load(idx_ptr + pid * n_idx + i)
        x = tl.load(x_ptr + row * D + cols).to(tl.float32)
        acc = acc * 0.999 + x * x * 0.5 + tl.exp(x) * 0.25
    tl.store(out_ptr + pid * D + cols, acc)


@triton.jit
def pitched_copy(src_ptr, dst_ptr, n, pitch, BLOCK: tl.constexpr):
    """Every `pitch`-th element: a launch passes the pitch (8 here), never 1."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs * pitch, mask=keep), mask=keep)


sv.triton(
    gather_rows,
    args=dict(
        x_ptr=sv.tensor("fp16", (65536, 128)), idx_ptr=sv.tensor("i32", (4096,)),
        out_ptr=sv.tensor("fp32", (4096, 128)), n_idx=64, D=128,
    ),
    num_warps=1, num_stages=3,
)  # fmt: skip
sv.triton(
    pitched_copy,
    args=dict(
        src_ptr=sv.tensor("fp32", (8192,)), dst_ptr=sv.tensor("fp32", (1024,)), n=1000,
        pitch=8, BLOCK=256,
    ),
)  # fmt: skip


@triton.jit
def capped_dot(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
    """A 128x128 fp16 tile product under maxnreg=96: the accumulator alone is 128 fp32
    registers per thread at 4 warps, so ptxas spills (its report counts the bytes)."""
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, 32):
        a = tl.load(a_ptr + r[:, None] * K + k + tl.arange(0, 32)[None, :])
        b = tl.load(b_ptr + (k + tl.arange(0, 32))[:, None] * BLOCK + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc.to(tl.float16))


sv.triton(
    capped_dot,
    signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
    constexprs={"BLOCK": 128},
    divisibility=["a_ptr", "b_ptr", "c_ptr", "K"],
    options={"maxnreg": 96},
)
