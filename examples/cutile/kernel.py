"""cuTile Python kernels: a row softmax and a tiled matmul on Blackwell's tensor cores.

cuTile moves whole tiles: each `ct.load` / `ct.store` is many instructions, chosen by the
compiler (tileiras) from the array constraints the declaration gives (a contiguous last
dimension, 16-byte aligned base). `ct.mma` on fp16 tiles becomes tcgen05 MMAs on sm_100a.

    sassview check examples/cutile/kernel.py
"""

import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint

import sassview as sv


def contiguous(dtype: object, ndim: int) -> ArrayConstraint:
    """A row-major array, 16-byte aligned, aliasing no other parameter."""
    return ArrayConstraint(
        dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
        may_alias_internally=False, stride_constant=(None,) * (ndim - 1) + (1,),
        base_addr_divisible_by=16,
    )  # fmt: skip


@ct.kernel
def softmax_rows(X, Y, TILE: ct.Constant[int]):
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE)).astype(ct.float32)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(row, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(Y.dtype))


@ct.kernel
def matmul(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK))
        b = ct.load(B, index=(k, bn), shape=(TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


f16 = contiguous(ct.float16, 2)
sv.cutile(softmax_rows, {"X": f16, "Y": f16, "TILE": 1024}, arch="sm_100a")
sv.cutile(matmul, {"A": f16, "B": f16, "C": f16, "TM": 128, "TN": 128, "TK": 64}, arch="sm_100a")
