"""An elementwise add in the CuTe DSL, shaped like the CUTLASS example's (a tiled copy of
4 x 4 fp32 a thread, predicated against a ragged edge), with the two knobs that decide its
access width: the copy atom's bits and what the predicate covers.

    predicate="element"  one flag per element (the example's `elem_less` loop): 32-bit
                         accesses, each under its own predicate; with bits=128 it does not
                         compile (the predicate's shape no longer matches the atom's)
    predicate="atom"     one flag per copy atom, on its first element: with bits=128,
                         128-bit accesses (rows are a multiple of 4: `divisibility=4`)
    predicate="none"     no predicate (the tensor a whole number of tiles)
"""

import cutlass
import cutlass.cute as cute

import sassview as sv


@cute.kernel
def elementwise_add_kernel(
    gA: cute.Tensor,
    gB: cute.Tensor,
    gC: cute.Tensor,
    cC: cute.Tensor,
    shape: cute.Shape,
    thr_layout: cute.Layout,
    val_layout: cute.Layout,
    bits: cutlass.Constexpr,
    predicate: cutlass.Constexpr,
):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    tile = ((None, None), bidx)
    atom = cute.make_copy_atom(
        cute.nvgpu.CopyUniversalOp(), gA.element_type, num_bits_per_copy=bits
    )
    thread = cute.make_tiled_copy_tv(atom, thr_layout, val_layout).get_slice(tidx)
    tA, tB, tC = (thread.partition_S(t[tile]) for t in (gA, gB, gC))
    rA, rB, rC = (cute.make_fragment_like(t) for t in (tA, tB, tC))
    coords = thread.partition_S(cC[tile])
    if cutlass.const_expr(predicate == "none"):
        cute.copy(atom, tA, rA)
        cute.copy(atom, tB, rB)
        rC.store(rA.load() + rB.load())
        cute.copy(atom, rC, tC)
    else:
        if cutlass.const_expr(predicate == "atom"):
            coords = coords[(0, None), None, None]  # each copy atom's first element
        pred = cute.make_rmem_tensor(coords.shape, cutlass.Boolean)
        for i in range(cute.size(pred)):
            pred[i] = cute.elem_less(coords[i], shape)
        cute.copy(atom, tA, rA, pred=pred)  # LOADS
        cute.copy(atom, tB, rB, pred=pred)
        rC.store(rA.load() + rB.load())
        cute.copy(atom, rC, tC, pred=pred)  # STORES


@cute.jit
def elementwise_add(
    mA: cute.Tensor,
    mB: cute.Tensor,
    mC: cute.Tensor,
    bits: cutlass.Constexpr = 32,
    predicate: cutlass.Constexpr = "element",
):
    thr_layout = cute.make_ordered_layout((4, 32), order=(1, 0))
    val_layout = cute.make_ordered_layout((4, 4), order=(1, 0))
    tiler, tv = cute.make_layout_tv(thr_layout, val_layout)
    gA, gB, gC = (cute.zipped_divide(t, tiler) for t in (mA, mB, mC))
    cC = cute.zipped_divide(cute.make_identity_tensor(mC.shape), tiler=tiler)
    elementwise_add_kernel(
        gA, gB, gC, cC, mC.shape, thr_layout, val_layout, bits, predicate
    ).launch(grid=[cute.size(gC, mode=[1]), 1, 1], block=[cute.size(tv, mode=[0]), 1, 1])


def fake() -> list:
    """Three M x N fp32 tensors, row-major; M and N known at run time, N a multiple of 4."""
    m, n = cute.sym_int32(), cute.sym_int32(divisibility=4)
    return [
        cute.runtime.make_fake_tensor(cutlass.Float32, (m, n), stride=(n, 1), assumed_align=16)
        for _ in range(3)
    ]


# As the example writes it, and with the narrow-access hint applied (bits and predicate both).
sv.cute(elementwise_add, *fake(), arch="sm_90a", variants={"bits": [32], "predicate": ["element"]})
sv.cute(elementwise_add, *fake(), arch="sm_90a", variants={"bits": [128], "predicate": ["atom"]})
