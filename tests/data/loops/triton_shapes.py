"""Triton kernels of the loop-shapes corpus (tests/test_loops_python_shapes.py): the loops kernel
authors write. Each loop statement carries a `# @name` mark; each kernel's docstring labels its
loops, read by hand from the SASS (and the PTX beside it) of record_python_shapes.py's
recordings, one line a loop:

    @mark: <the claim the census must make>  -- <what the listing shows>
    @mark sm_90a: <that arch's claim, where it differs>  -- <what it shows there>

`unknown: <claim>` says the truth is <claim> but the census may not tell it: it must say the
factor (or copies) is unknown, never another number. Kept apart from the tests so the lines
stay put.
"""

import triton
import triton.language as tl


@triton.jit
def ts_static(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """Four taps traced out by `tl.static_range`.

    @ts_static_loop: fully unrolled (4 copies, no loop left) (asked: static_range)  -- no SASS
        loop; 4 LDG and 4 FFMA at the body's line, on both archs
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.static_range(4):  # @ts_static_loop
        acc += tl.load(x_ptr + k * BLOCK + offs) * (k + 2)
    tl.store(out_ptr + offs, acc)


@triton.jit
def ts_constexpr_range(x_ptr, out_ptr, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    """A plain `range` over a constexpr bound (STEPS=8): Triton keeps an scf.for, LLVM copies
    it out.

    @ts_cr_loop: fully unrolled (8 copies, no loop left)  -- no SASS loop; 8 LDG at the body's
        line (7 FFMA, 1 FADD), on both archs
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, STEPS):  # @ts_cr_loop
        acc = acc * 0.5 + tl.load(x_ptr + k * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def ts_dot(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The K loop of a matmul, pipelined at the default num_stages=3.

    @ts_dot_loop: not unrolled  -- one SASS loop, one tl.dot a trip: 16 HMMA.16816 on sm_80,
        2 HGMMA (64x64x16, one at the loop's line) on sm_90a; the prologue's loads outside it
    """
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):  # @ts_dot_loop
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def ts_dot_flat(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The K loop with `tl.range(..., num_stages=1)`: no pipelining.

    @ts_flat_loop: not unrolled  -- one SASS loop, 16 HMMA (sm_80) / 2 HGMMA (sm_90a) a trip
    """
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=1):  # @ts_flat_loop
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def ts_dot_unroll(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The K loop with `loop_unroll_factor=2` (and num_stages=3).

    @ts_du_loop: unrolled by 2 (x2 by Triton), with a remainder loop (asked: loop_unroll_factor=2)
        -- main SASS loop: 32 HMMA (sm_80) / 4 HGMMA (sm_90a), two tl.dot a trip, from the PTX
        loop Triton unrolled; then Triton's remainder loop of one dot (16 HMMA / 2 HGMMA)
    """
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, loop_unroll_factor=2):  # @ts_du_loop
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def ts_unroll2(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """`loop_unroll_factor=2` at num_stages=1: ptxas unrolls Triton's loop again.

    @ts_u2_loop: unrolled by 8 (x2 by Triton, then x4 by ptxas), with a remainder loop (asked:
        loop_unroll_factor=2)  -- PTX: 2 ld a trip, counter steps by 2, then a remainder loop
        of 1; SASS: 8 LDG+FFMA in the main loop (PTX lines of both copies x4), its leftover
        trips straight after it, then Triton's remainder loop x4 by ptxas (4 LDG) and x1
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.range(0, n, loop_unroll_factor=2):  # @ts_u2_loop
        acc = acc * 0.9 + tl.load(x_ptr + k * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def ts_staged_unroll(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """`loop_unroll_factor=2` with `num_stages=3`: Triton pipelines its unrolled loop, and ptxas
    unrolls only the remainder loop.

    @ts_su_loop: unrolled by 2 (x2 by Triton), with a remainder loop (asked: loop_unroll_factor=2)
        -- main SASS loop: the pipelined one, 2 LDGSTS, 2 LDSM, 2 FADD a trip (its counter
        steps by 2); Triton's remainder PTX loop (1 ld) is a SASS loop of 4 LDG+FADD (ptxas x4)
        and one of 1: x4 is the remainder's, not the statement's
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.range(0, n, loop_unroll_factor=2, num_stages=3):  # @ts_su_loop
        acc += tl.load(x_ptr + k * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def ts_range_stages(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """`tl.range(0, n, num_stages=2)` over loads: pipelined through cp.async, not unrolled.

    @ts_rs_loop: not unrolled  -- one SASS loop: 1 LDGSTS, 1 LDSM, 1 FMNMX a trip
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.range(0, n, num_stages=2):  # @ts_rs_loop
        acc = tl.maximum(acc, tl.load(x_ptr + k * BLOCK + offs))
    tl.store(out_ptr + offs, acc)


@triton.jit
def ts_row_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """A masked row reduction in BLOCK steps (`range(0, n, BLOCK)`), the sum after the loop.

    @ts_rsum_loop: unrolled by 4 (x4 by ptxas), with a straight-line remainder  -- BLOCK=256
        over 128 threads: 2 LDG+FADD a trip in the PTX; the SASS loop holds 8 (x4), then 2 and
        1 trips' worth straight after it; no remainder loop
    """
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):  # @ts_rsum_loop
        cols = start + offs
        total += tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(total, axis=0))


@triton.jit
def ts_reduce_each(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """A `tl.max` reduction inside each trip: shuffles and shared memory, one trip a loop.

    @ts_re_loop: not unrolled  -- one SASS loop: 1 LDG, 7 FMNMX, 7 SHFL (5 + 2 across warps),
        1 STS, 1 LDS, 2 BAR, 1 FADD a trip
    """
    offs = tl.arange(0, BLOCK)
    best = 0.0
    for k in range(0, n):  # @ts_re_loop
        best += tl.max(tl.load(x_ptr + k * BLOCK + offs), axis=0)
    tl.store(out_ptr, best)


@triton.jit
def ts_two_exp(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Two `tl.exp` a trip (num_stages=1): a body of two alike patterns is no unroll.

    @ts_te_loop: unrolled by 4 (x4 by ptxas), with a remainder loop  -- PTX: one trip a loop
        (2 ld, 2 ex2); SASS main loop: 8 LDG, 8 MUFU.EX2 (x4); a remainder loop of 2 LDG, 2 MUFU
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.range(0, n, num_stages=1):  # @ts_te_loop
        x = tl.load(x_ptr + k * BLOCK + offs)
        y = tl.load(y_ptr + k * BLOCK + offs)
        acc += tl.exp(x) - tl.exp(y * 0.5)
    tl.store(out_ptr + offs, acc)


@triton.jit
def ts_softmax_passes(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """The two passes of a row softmax: a max loop, then a sum of exp loop.

    @ts_sp_max: unrolled by 4 (x4 by ptxas), with a straight-line remainder  -- 8 LDG+FMNMX a
        trip (2 a thread a copy), then 4 and 2 straight after it
    @ts_sp_sum: unrolled by 4 (x4 by ptxas), with a straight-line remainder  -- 8 LDG, 8
        MUFU.EX2 a trip, then 4 and 2 straight after it
    """
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), dtype=tl.float32)
    for start in range(0, n, BLOCK):  # @ts_sp_max
        cols = start + offs
        m = tl.maximum(m, tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf")))
    top = tl.max(m, axis=0)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):  # @ts_sp_sum
        cols = start + offs
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
        s += tl.exp(x - top)
    tl.store(out_ptr + row, tl.sum(s, axis=0))


@triton.jit
def ts_nest_runtime(x_ptr, out_ptr, n, m, BLOCK: tl.constexpr):
    """Two runtime loops nested, a scale between the inner loop and the outer back edge.

    @ts_nr_outer: not unrolled  -- one FMUL (acc * 0.5) a trip of the outer SASS loop; its
        other LDG are the inner loop's peeled first trip and leftover trips
    @ts_nr_inner: unrolled by 4 (x4 by ptxas), with a remainder loop  -- PTX: 1 ld a trip;
        SASS: 4 LDG+FADD a trip, 2 straight after it, then a remainder loop of 1
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n):  # @ts_nr_outer
        for j in range(0, m):  # @ts_nr_inner
            acc += tl.load(x_ptr + (i * m + j) * BLOCK + offs)
        acc = acc * 0.5
    tl.store(out_ptr + offs, acc)


@triton.jit
def ts_nest_constexpr(x_ptr, out_ptr, n, BLOCK: tl.constexpr, TAPS: tl.constexpr):
    """A runtime loop around TAPS=3 taps traced out by `tl.static_range(TAPS)`.

    @ts_nc_outer: unrolled by 4 (x4 by ptxas), with a remainder loop  -- PTX: 3 ld (one a tap) a
        trip; SASS main loop: 12 FFMA/FADD (4 x 3; 9 LDG, loads shared by the overlapping
        taps), then a remainder loop of 3 LDG, 3 FFMA/FADD
    @ts_nc_inner: fully unrolled (3 copies, no loop left) (asked: static_range)  -- no SASS
        loop of its own; 3 copies a trip of the outer loop
    """
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n):  # @ts_nc_outer
        for t in tl.static_range(TAPS):  # @ts_nc_inner
            acc += tl.load(x_ptr + (i + t) * BLOCK + offs) * (t + 1)
    tl.store(out_ptr + offs, acc)


F32 = {"x_ptr": "*fp32", "out_ptr": "*fp32"}
DOT = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"}
TILE = {"BM": 64, "BN": 64, "BK": 32}

# name -> (signature, constexprs, num_stages): what record_python_shapes.py compiles each
# kernel with (num_stages 3 is Triton's and sassview's default)
BUILDS = {
    "ts_static": (F32, {"BLOCK": 128}, 3),
    "ts_constexpr_range": (F32, {"BLOCK": 128, "STEPS": 8}, 3),
    "ts_dot": (DOT, TILE, 3),
    "ts_dot_flat": (DOT, TILE, 3),
    "ts_dot_unroll": (DOT, TILE, 3),
    "ts_unroll2": ({**F32, "n": "i32"}, {"BLOCK": 128}, 1),
    "ts_staged_unroll": ({**F32, "n": "i32"}, {"BLOCK": 128}, 3),
    "ts_range_stages": ({**F32, "n": "i32"}, {"BLOCK": 128}, 3),
    "ts_row_sum": ({**F32, "n": "i32"}, {"BLOCK": 256}, 3),
    "ts_reduce_each": ({**F32, "n": "i32"}, {"BLOCK": 128}, 3),
    "ts_two_exp": (
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        {"BLOCK": 128},
        3,
    ),
    "ts_softmax_passes": ({**F32, "n": "i32"}, {"BLOCK": 256}, 3),
    "ts_nest_runtime": ({**F32, "n": "i32", "m": "i32"}, {"BLOCK": 128}, 3),
    "ts_nest_constexpr": ({**F32, "n": "i32"}, {"BLOCK": 128, "TAPS": 3}, 3),
}
