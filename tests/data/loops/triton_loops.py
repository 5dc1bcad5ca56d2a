"""Triton kernels of the loop corpus (tests/data/loops/labels_python.json labels their loops).

Each loop statement carries a `# @name` mark the labels use; record_python.py compiles them
for sm_80 and sm_90a. Kept apart from the tests so their lines stay put.
"""

import triton
import triton.language as tl


@triton.jit
def tr_unroll(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.range(0, n, loop_unroll_factor=4):  # @tu_loop
        acc += tl.load(x_ptr + k * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def tr_static(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.static_range(4):  # @ts_loop
        acc += tl.load(x_ptr + k * BLOCK + offs) * (k + 1)
    tl.store(out_ptr + offs, acc)


@triton.jit
def _row_sum(x_ptr, n, offs, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for j in range(0, n):  # @th_loop
        acc += tl.load(x_ptr + j * BLOCK + offs)
    return acc


@triton.jit
def tr_helper(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = _row_sum(x_ptr, n, offs, BLOCK)  # @th_call
    tl.store(out_ptr + offs, total)


@triton.jit
def tr_nest(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(2):  # @tn_outer
        for j in tl.static_range(3):  # @tn_inner
            acc += tl.load(x_ptr + (i * 3 + j) * BLOCK + offs) * (i + 2 * j + 1)
    tl.store(out_ptr + offs, acc)


@triton.jit
def tr_kloop(
    a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _k in range(0, tl.cdiv(K, BLOCK_K)):  # @tk_loop
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * BLOCK_N
    c_ptrs = c_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16))


@triton.jit
def _axpy4(acc, x_ptr, offs, BLOCK: tl.constexpr):
    for j in tl.static_range(4):  # @t2_axpy
        acc += tl.load(x_ptr + j * BLOCK + offs) * (j + 1)
    return acc


@triton.jit
def tr_two_sites(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    acc = _axpy4(acc, x_ptr, offs, BLOCK)  # @t2_first
    acc = _axpy4(acc, y_ptr, offs, BLOCK)  # @t2_second
    tl.store(out_ptr + offs, acc)


@triton.jit
def tr_kloop_helper(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, n):  # @tkh_loop
        acc = _axpy4(acc, x_ptr + k * 4 * BLOCK, offs, BLOCK)  # @tkh_call
        acc = acc * 0.5
    tl.store(out_ptr + offs, acc)


@triton.jit
def tr_runtime_static(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n):  # @trs_outer
        for j in tl.static_range(2):  # @trs_inner
            acc = acc * 0.75 + tl.load(x_ptr + (i * 2 + j) * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def tr_while(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    i = 0
    while i < n:  # @tw_loop
        acc += tl.load(x_ptr + i * BLOCK + offs)
        i += 1
    tl.store(out_ptr + offs, acc)


@triton.jit
def tr_pipelined(
    a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=3):  # @tp_loop
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * BLOCK_N + offs_n[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :], acc.to(tl.float16))


# name -> (signature, constexprs): what record_python.py compiles each kernel with
BUILDS = {
    "tr_unroll": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128}),
    "tr_static": ({"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"BLOCK": 128}),
    "tr_helper": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128}),
    "tr_nest": ({"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"BLOCK": 128}),
    "tr_kloop": (
        {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
    ),
    "tr_two_sites": ({"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"}, {"BLOCK": 128}),
    "tr_kloop_helper": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128}),
    "tr_runtime_static": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128}),
    "tr_while": ({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128}),
    "tr_pipelined": (
        {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
    ),
}
