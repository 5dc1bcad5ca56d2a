"""Triton's MLIR loops (sassview.parse.mlir.for_loops) and what the unroll analysis reads off
them, on recorded stages (tests/data/stages/record.py): the matmul (`for k in range(...)` on
line 43 of tests/data/ptx/src/triton_kernels.py) and the row sum whose loop Triton unrolls by 4
(`tl.range(..., loop_unroll_factor=4)` on line 79)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sassview.analyses.tile_loops import TritonLoop, triton_loops
from sassview.parse.mlir import for_loops

DATA = Path(__file__).parent / "data" / "stages"
KERNEL = "/src/triton_kernels.py"


def stage(name: str) -> str:
    return (DATA / name).read_text()


def copies(loop_ops: tuple, own_line: int) -> Counter[int]:  # type: ignore[type-arg]
    """How many (op, location) pairs of a body occur how many times, its own line left out."""
    pairs = Counter((op.name, op.loc) for op in loop_ops if (KERNEL, own_line) not in op.frames)
    return Counter(pairs.values())


def test_an_unrolled_loop_holds_four_copies_of_each_op_and_its_remainder_one() -> None:
    main, rest = for_loops(stage("rowsum_unroll4.ttir"))
    assert main.frames == rest.frames == {(KERNEL, 79)}
    assert (main.depth, rest.depth) == (0, 0)
    assert main.row < rest.row
    assert all(n % 4 == 0 for n in copies(main.ops, 79))
    assert 1 in copies(rest.ops, 79)
    # The body's ops are the loop statement's line and the line of its body.
    assert {line for op in main.ops for _, line in op.frames} == {79, 80}
    assert "tt.load" in {op.name for op in main.ops}
    assert "tt.num_stages" in rest.attributes


def test_the_matmul_has_one_loop_at_its_for_line() -> None:
    for name in ("matmul.ttir", "matmul.ttgir"):
        (loop,) = for_loops(stage(name))
        assert loop.frames == {(KERNEL, 43)}
        names = {op.name for op in loop.ops}
        assert "tt.dot" in names or "ttng.warp_group_dot" in names


NESTED = """\
module {
  tt.func public @k(%n: i32 loc("n"(#loc))) {
    %0 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f32)  : i32 {
      %1 = arith.addf %a, %a : f32 loc(#loc2)
      %2 = scf.if %p -> (f32) {
        %3 = arith.mulf %1, %1 : f32 loc(#loc3)
        scf.yield %3 : f32 loc(#loc3)
      } else {
        scf.yield %1 : f32 loc(#loc2)
      } loc(#loc2)
      %4 = "tt.reduce"(%t) <{axis = 0 : i32}> ({
      ^bb0(%x: f32 loc(#loc4), %y: f32 loc(#loc4)):
        %5 = arith.maxnumf %x, %y : f32 loc(#loc4)
        tt.reduce.return %5 : f32 loc(#loc4)
      }) : (tensor<4xf32>) -> f32 loc(#loc4)
      scf.for %j = %c0 to %n step %c1  : i32 {
        %6 = arith.subf %a, %a : f32 loc(#loc5)
      } {tt.loop_unroll_factor = 1 : i32} loc(#loc5)
      scf.yield %2 : f32 loc(#loc1)
    } loc(#loc1)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("/k.py":1:1)
#loc1 = loc("/k.py":2:5)
#loc2 = loc("acc"(#loc6))
#loc3 = loc("/k.py":4:9)
#loc4 = loc(callsite(#loc7 at #loc3))
#loc5 = loc("/k.py":6:9)
#loc6 = loc("/k.py":3:9)
#loc7 = loc("/lib/standard.py":180:12)
"""


def test_nested_regions_count_for_their_loop_and_nested_loops_for_themselves() -> None:
    outer, inner = for_loops(NESTED)
    assert (outer.depth, inner.depth) == (0, 1)
    assert outer.frames == {("/k.py", 2)} and inner.frames == {("/k.py", 6)}
    # The scf.if's branches and the reduce's combiner are the outer loop's; the inner loop's
    # body is its own.
    assert [op.name for op in outer.ops] == [
        "arith.addf",
        "arith.mulf",
        "scf.yield",
        "scf.yield",
        "scf.if",  # at its closing line, which holds its location
        "arith.maxnumf",
        "tt.reduce.return",
        "tt.reduce",
        "scf.yield",
    ]
    assert next(op for op in outer.ops if op.name == "scf.if").frames == {("/k.py", 3)}
    assert [op.name for op in inner.ops] == ["arith.subf"]
    assert inner.attributes == "{tt.loop_unroll_factor = 1 : i32}"
    # Aliases resolve through names and inlined calls: both frames of a callsite count.
    reduce_op = next(op for op in outer.ops if op.name == "arith.maxnumf")
    assert reduce_op.frames == {("/lib/standard.py", 180), ("/k.py", 4)}
    assert next(op for op in outer.ops if op.name == "arith.addf").frames == {("/k.py", 3)}


def test_a_damaged_text_ends_the_loops_it_leaves_open() -> None:
    assert for_loops("scf.for %i = %a to %b step %c {\n  %x = arith.addf loc(#loc1)\n") == []
    assert for_loops("}\n}\n} loc(#loc1)\n") == []
    cut = NESTED[: NESTED.index("      scf.yield %2")]
    (inner,) = for_loops(cut)  # the inner loop closed; the outer never did
    assert inner.depth == 1 and inner.frames == frozenset()  # the aliases were cut off too


def test_triton_unrolling_by_line() -> None:
    assert triton_loops({"ttir": stage("rowsum_unroll4.ttir")}, KERNEL) == {
        79: [TritonLoop(4, False), TritonLoop(1, True)]
    }
    assert triton_loops({"ttir": stage("matmul.ttir")}, KERNEL) == {43: [TritonLoop(1, False)]}
    assert triton_loops({"ttir": stage("matmul.ttir")}, "/elsewhere.py") == {}
    assert triton_loops({}, KERNEL) == {}
