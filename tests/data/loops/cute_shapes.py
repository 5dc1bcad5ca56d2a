"""CuTe DSL kernels of the loop-shapes corpus (tests/test_loops_python_shapes.py), labelled as
triton_shapes.py's are: each `@cute.kernel`'s docstring says the claim the census must make of
each `# @mark`ed loop and what the SASS of record_python_shapes.py's recordings shows. Kept apart
from the tests so the lines stay put.
"""

import cutlass
import cutlass.cute as cute


@cute.kernel
def cs_taps_kernel(gA: cute.Tensor, gC: cute.Tensor, n: cutlass.Int32):
    """A runtime loop unrolled by 2 around 3 taps traced out by `range_constexpr`.

    @cs_taps_rows: unrolled by 2, with a straight-line remainder (asked: unroll=2)  -- PTX
        counter steps by 2; SASS loop: 6 FFMA/FADD taps (2 x 3; 4 LDG, the overlapping taps'
        loads shared), then one trip's 3 LDG, 3 taps straight after it
    @cs_taps_taps: fully unrolled (3 copies, no loop left) (asked: range_constexpr)  -- no
        SASS loop of its own, 3 taps a copy of the outer loop
    """
    tidx, _, _ = cute.arch.thread_idx()
    acc = cutlass.Float32(0.0)
    for i in cutlass.range(n, unroll=2):  # @cs_taps_rows
        for t in cutlass.range_constexpr(3):  # @cs_taps_taps
            acc = acc * 0.5 + gA[(i + t) * 128 + tidx] * (t + 1.0)
    gC[tidx] = acc


@cute.jit
def cs_taps(mA: cute.Tensor, mC: cute.Tensor, n: cutlass.Int32):
    cs_taps_kernel(mA, mC, n).launch(grid=(1, 1, 1), block=(128, 1, 1))


@cute.kernel
def cs_two_exp_kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor, n: cutlass.Int32):
    """Two `cute.math.exp` a trip, `cutlass.range(n, unroll=4)`.

    @cs_te_loop: unrolled by 4, with a remainder loop (asked: unroll=4)  -- main SASS loop: 8
        LDG, 8 MUFU.EX2 (4 x 2) a trip; a remainder loop of 2 LDG, 2 MUFU.EX2
    """
    tidx, _, _ = cute.arch.thread_idx()
    acc = cutlass.Float32(0.0)
    for i in cutlass.range(n, unroll=4):  # @cs_te_loop
        acc += cute.math.exp(gA[i * 128 + tidx]) - cute.math.exp(gB[i * 128 + tidx] * 0.5)
    gC[tidx] = acc


@cute.jit
def cs_two_exp(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, n: cutlass.Int32):
    cs_two_exp_kernel(mA, mB, mC, n).launch(grid=(1, 1, 1), block=(128, 1, 1))


def tensor(n: int | None = None):  # noqa: ANN201 - a fake tensor for cute.compile
    size = cute.sym_int32() if n is None else n
    return cute.runtime.make_fake_compact_tensor(cutlass.Float32, (size,), assumed_align=16)


# name -> (arguments, archs): what record_python_shapes.py compiles each host function with
def builds() -> dict[str, tuple[tuple[object, ...], tuple[str, ...]]]:
    both = ("sm_80", "sm_90a")
    return {
        "cs_taps": ((tensor(), tensor(128), cutlass.Int32(5)), both),
        "cs_two_exp": ((tensor(), tensor(), tensor(128), cutlass.Int32(5)), both),
    }
