"""A row gather feeding tl.dot (tests/test_triton_strides.py): x's rows are picked by a loaded
index, `rows[:, None] * stride_xm`, so stride_xm is the gathered dimension's, never the
contiguous one's. Labelled by hand from the SASS (sm_90a, Triton 3.9, num_stages=3):

- `gather_dot` with stride_xk an i32: x's loads (line 28) are 16 LDG.E.U16, one element each
  (the contiguous dimension steps by the runtime stride_xk): a runtime-stride finding for
  stride_xk, none for stride_xm.
- `gather_dot` with stride_xk=1: x's loads are 6 LDGSTS.E.BYPASS.128 (w's too, line 29): no
  runtime-stride finding at all (before, stride_xm was reported "along the contiguous
  dimension: it keeps them scalar", beside 128-bit copies).
"""

import triton
import triton.language as tl

import sassview as sv


@triton.jit
def gather_dot(x_ptr, idx_ptr, w_ptr, out_ptr, K, stride_xm, stride_xk,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    rows = tl.load(idx_ptr + offs_m)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(x_ptr + rows[:, None] * stride_xm + (k + offs_k)[None, :] * stride_xk)
        b = tl.load(w_ptr + (k + offs_k)[:, None] * BN + offs_n[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(out_ptr + offs_m[:, None] * BN + offs_n[None, :], acc)


SIGNATURE = {"x_ptr": "*fp16", "idx_ptr": "*i32", "w_ptr": "*fp16", "out_ptr": "*fp32",
             "K": "i32", "stride_xm": "i32"}  # fmt: skip
DIVISIBLE = ["x_ptr", "idx_ptr", "w_ptr", "out_ptr", "K", "stride_xm"]
TILES = {"BM": 64, "BN": 64, "BK": 32}
sv.triton(gather_dot, signature={**SIGNATURE, "stride_xk": "i32"}, constexprs=TILES,
          divisibility=DIVISIBLE, num_warps=4, num_stages=3, arch="sm_90a")  # fmt: skip
sv.triton(gather_dot, signature=SIGNATURE, constexprs={**TILES, "stride_xk": 1},
          divisibility=DIVISIBLE, num_warps=4, num_stages=3, arch="sm_90a")  # fmt: skip
