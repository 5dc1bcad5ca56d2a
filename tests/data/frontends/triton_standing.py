"""Triton kernels whose hint names a knob that, tried, does not help (tests/test_hint_standing.py):
each labelled by hand from its SASS (sm_90a, Triton 3.9)."""

import triton
import triton.language as tl

import sassview as sv


@triton.jit
def gather_add(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[i] = x[idx[i]] + 1: the x loads are a gather (each lane's address is a loaded
    index), so no divisibility of the pointers or of n can make them one vector access. SASS:
    2 LDG.E of idx (line 17), 2 LDG.E of x (line 18), 2 STG.E of out (line 18); with
    `divisibility=` on all four, idx is one LDG.E.64 and out one STG.E.64, and the two x
    loads stay LDG.E: line 18's narrow-access finding stays (now "at most 64 bits")."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    idx = tl.load(idx_ptr + offs, mask=keep, other=0)
    tl.store(out_ptr + offs, tl.load(x_ptr + idx, mask=keep) + 1.0, mask=keep)


sv.triton(
    gather_add,
    signature={"x_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32", "n": "i32"},
    constexprs={"BLOCK": 256},
    arch="sm_90a",
)
