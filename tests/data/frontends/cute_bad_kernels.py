"""A CuTe DSL kernel that does not compile, for the frontend's error messages."""

import cutlass.cute as cute


@cute.kernel
def type_error_kernel(gA: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    gA[tidx] = gA[tidx] + "oops"  # TYPE ERROR HERE


@cute.jit
def type_error(mA: cute.Tensor):
    type_error_kernel(mA).launch(grid=(1, 1, 1), block=(32, 1, 1))


@cute.jit
def launches_nothing(mA: cute.Tensor):
    pass
