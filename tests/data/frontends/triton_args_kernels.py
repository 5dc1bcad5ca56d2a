"""Triton kernels declared by example arguments (tests/test_triton_args.py)."""

import triton
import triton.language as tl


@triton.jit
def strided_copy(x_ptr, out_ptr, stride_xm, stride_xk, M, K, BLOCK_K: tl.constexpr):
    """A row copy whose contiguous dimension's stride (stride_xk) is a runtime argument."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_K)
    mask = (cols < K) & (row < M)
    x = tl.load(x_ptr + row * stride_xm + cols * stride_xk, mask=mask)
    tl.store(out_ptr + row * K + cols, x, mask=mask)


@triton.jit
def desc_copy(in_desc, out_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """A tile copy through host-side tensor descriptors (TMA on sm_90a)."""
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    tile = in_desc.load([off_m, off_n])
    out_desc.store([off_m, off_n], tile)


@triton.jit(do_not_specialize=["seed"])
def probe(
    a_ptr, b_ptr, c_ptr, n, odd, one, big, seed, flag, scale, maybe,
    q: "i32",  # noqa: F821 - a Triton type name, as Triton's own tests annotate
    BLOCK: tl.constexpr,
):  # fmt: skip
    """One parameter of every kind a launch specializes differently."""
    i = tl.arange(0, BLOCK)
    x = tl.load(a_ptr + i * one, mask=i < n) + tl.load(b_ptr + i, mask=i < odd)
    if flag:
        x = x * scale
    tl.store(c_ptr + i, x + seed + big + q, mask=i < n)


@triton.jit
def ws_matmul(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              BLOCK_K: tl.constexpr):  # fmt: skip
    """A warp-specialized loop over tensor descriptors; Triton 3.9's NVGPUWarpSpecialization
    pass fails on it for sm_90a with num_warps=4 (an MLIR diagnostic printed from C++)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=True, num_stages=3):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))
