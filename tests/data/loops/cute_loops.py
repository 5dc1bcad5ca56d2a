"""CuTe DSL kernels of the loop corpus (tests/data/loops/labels_python.json labels their loops).

Each loop statement carries a `# @name` mark the labels use; record_python.py compiles them
for sm_80 and sm_90a (the register-reallocating kernel for sm_90a and sm_100a only). Kept
apart from the tests so their lines stay put.
"""

import cutlass
import cutlass.cute as cute


@cute.kernel
def cu_nest_kernel(gA: cute.Tensor, gC: cute.Tensor, m: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    acc = cutlass.Float32(0.0)
    for i in cutlass.range(m):  # @cn_outer
        for j in cutlass.range(4, unroll_full=True):  # @cn_inner
            acc += gA[(i * 4 + j) * 128 + tidx] * 1.5
    gC[tidx] = acc


@cute.jit
def cu_nest(mA: cute.Tensor, mC: cute.Tensor, m: cutlass.Int32):
    cu_nest_kernel(mA, mC, m).launch(grid=(1, 1, 1), block=(128, 1, 1))


@cute.kernel
def cu_constant_kernel(gA: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    acc = cutlass.Float32(0.0)
    for j in cutlass.range(8, unroll=2):  # @cc_two
        acc += gA[j * 128 + tidx] * 3.0
    for j in cutlass.range_constexpr(4):  # @cc_constexpr
        acc = acc * gA[(j + 8) * 128 + tidx] + 1.0
    gC[tidx] = acc


@cute.jit
def cu_constant(mA: cute.Tensor, mC: cute.Tensor):
    cu_constant_kernel(mA, mC).launch(grid=(1, 1, 1), block=(128, 1, 1))


@cute.jit
def _row_sum(gA: cute.Tensor, base: cutlass.Int32, n: cutlass.Int32) -> cutlass.Float32:
    s = cutlass.Float32(0.0)
    for j in cutlass.range(n, unroll=1):  # @ch_rows
        s += gA[base + j * 128]
    return s


@cute.jit
def _polish(x: cutlass.Float32, times: cutlass.Constexpr) -> cutlass.Float32:
    for _ in cutlass.range_constexpr(times):  # @ch_polish
        x = x * 1.5 + 1.0
    return x


@cute.jit
def _store(gC: cute.Tensor, base: cutlass.Int32, x: cutlass.Float32):
    for j in cutlass.range(2, unroll_full=True):  # @ch_store
        gC[base + j * 128] = x + j
    return


@cute.kernel
def cu_helpers_kernel(gA: cute.Tensor, gC: cute.Tensor, n: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    a = _row_sum(gA, tidx, n)  # @ch_call_rows
    b = _polish(a, 3)  # @ch_call_polish
    _store(gC, tidx, b)  # @ch_call_store


@cute.jit
def cu_helpers(mA: cute.Tensor, mC: cute.Tensor, n: cutlass.Int32):
    cu_helpers_kernel(mA, mC, n).launch(grid=(1, 1, 1), block=(128, 1, 1))


@cute.kernel
def cu_regs_kernel(gA: cute.Tensor, gC: cute.Tensor, n: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    cute.arch.setmaxregister_increase(232)  # @cr_regs
    acc = cutlass.Float32(0.0)
    for j in cutlass.range(n):  # @cr_loop
        acc += gA[j * 128 + tidx]
    gC[tidx] = acc


@cute.jit
def cu_regs(mA: cute.Tensor, mC: cute.Tensor, n: cutlass.Int32):
    cu_regs_kernel(mA, mC, n).launch(grid=(1, 1, 1), block=(128, 1, 1))


@cute.jit
def _scaled_sum(gA: cute.Tensor, base: cutlass.Int32, scale: cutlass.Float32) -> cutlass.Float32:
    s = cutlass.Float32(0.0)
    for j in cutlass.range(4, unroll_full=True):  # @c2_sum
        s += gA[base + j * 128] * scale
    return s


@cute.kernel
def cu_two_sites_kernel(gA: cute.Tensor, gC: cute.Tensor, n: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    a = _scaled_sum(gA, tidx, 2.0)  # @c2_first
    for i in cutlass.range(n, unroll=2):  # @c2_loop
        a += _scaled_sum(gA, (i + 1) * 512 + tidx, 0.5)  # @c2_second
    gC[tidx] = a


@cute.jit
def cu_two_sites(mA: cute.Tensor, mC: cute.Tensor, n: cutlass.Int32):
    cu_two_sites_kernel(mA, mC, n).launch(grid=(1, 1, 1), block=(128, 1, 1))


@cute.kernel
def cu_runtime_kernel(gA: cute.Tensor, gC: cute.Tensor, n: cutlass.Int32, m: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    acc = cutlass.Float32(0.0)
    for i in cutlass.range(n, unroll=1):  # @cm_outer
        for j in cutlass.range(m, unroll=4):  # @cm_inner
            acc += gA[(i * m + j) * 128 + tidx]
    for j in cutlass.range(m, unroll_full=True):  # @cm_full_runtime
        acc += gA[j * 128 + tidx] * 0.25
    gC[tidx] = acc


@cute.jit
def cu_runtime(mA: cute.Tensor, mC: cute.Tensor, n: cutlass.Int32, m: cutlass.Int32):
    cu_runtime_kernel(mA, mC, n, m).launch(grid=(1, 1, 1), block=(128, 1, 1))


def tensor(n: int | None = None):  # noqa: ANN201 - a fake tensor for cute.compile
    size = cute.sym_int32() if n is None else n
    return cute.runtime.make_fake_compact_tensor(cutlass.Float32, (size,), assumed_align=16)


# name -> (arguments, archs): what record_python.py compiles each host function with
def builds() -> dict[str, tuple[tuple[object, ...], tuple[str, ...]]]:
    both = ("sm_80", "sm_90a")
    return {
        "cu_nest": ((tensor(), tensor(128), cutlass.Int32(5)), both),
        "cu_constant": ((tensor(), tensor(128)), both),
        "cu_helpers": ((tensor(), tensor(256), cutlass.Int32(5)), both),
        "cu_regs": ((tensor(), tensor(128), cutlass.Int32(5)), ("sm_90a", "sm_100a")),
        "cu_two_sites": ((tensor(), tensor(128), cutlass.Int32(5)), both),
        "cu_runtime": ((tensor(), tensor(128), cutlass.Int32(5), cutlass.Int32(3)), both),
    }
