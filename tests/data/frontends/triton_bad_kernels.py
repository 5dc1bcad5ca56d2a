"""Triton kernels that do not compile, for the frontend's error messages."""

import triton
import triton.language as tl


@triton.jit
def type_error_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = x + "oops"  # TYPE ERROR HERE
    tl.store(x_ptr + offs, y)


@triton.jit
def add_text(x):
    return x + "oops"  # HELPER ERROR HERE


@triton.jit
def helper_error_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, add_text(x))  # HELPER CALL HERE
