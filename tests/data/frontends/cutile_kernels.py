"""cuTile Python kernels for sassview's tests: a vector add and a tiled matmul (tensor cores)."""

import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint

import sassview as sv


def array(dtype: object, ndim: int) -> ArrayConstraint:
    """A contiguous, 16-byte aligned array that aliases no other parameter."""
    return ArrayConstraint(
        dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
        may_alias_internally=False, stride_constant=(None,) * (ndim - 1) + (1,),
        base_addr_divisible_by=16,
    )  # fmt: skip


@ct.kernel
def vector_add(a, b, c, TILE: ct.Constant[int]):
    block = ct.bid(0)
    x = ct.load(a, index=(block,), shape=(TILE,))
    y = ct.load(b, index=(block,), shape=(TILE,))
    ct.store(c, index=(block,), tile=x + y)


@ct.kernel
def matmul(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK))
        b = ct.load(B, index=(k, bn), shape=(TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


f32, f16 = array(ct.float32, 1), array(ct.float16, 2)
sv.cutile(
    vector_add, [f32, f32, f32, 256], arch=["sm_100a", "sm_90a"], variants={"TILE": [256, 1024]}
)
sv.cutile(matmul, {"A": f16, "B": f16, "C": f16, "TM": 64, "TN": 64, "TK": 32}, arch="sm_100a")
