"""Control-flow graphs and loops, on kernels written for the purpose (tests/data/graph/loops.cu).

Each kernel has one property known by construction; `// @name` marks the line of each loop
statement. The same checks run on recorded listings (tests/data/graph/loops.<arch>.sass.txt:
no compiler needed) and, marked `compile`, on fresh NVRTC compiles. Re-record after editing
loops.cu with `python -m tests.test_cfg_loops` from the repository root. The corpus test checks
every recorded corpus listing; small hand-written listings pin the edge rules one at a time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from sassview.graph.cfg import ControlFlowGraph, EdgeKind, build_cfg, build_ptx_cfg
from sassview.graph.loops import Loop, find_loops, find_ptx_loops
from sassview.ir import SassInstruction
from sassview.parse.ptx import parse_ptx
from sassview.parse.sass_text import parse_sass_text

DATA = Path(__file__).parent / "data" / "graph"
SOURCE = DATA / "loops.cu"
CORPUS = Path(__file__).parent / "corpus"
RECORDED = ("sm_90a", "sm_120")

Graph = tuple[tuple[SassInstruction, ...], ControlFlowGraph, tuple[Loop, ...]]


def mark(name: str) -> int:
    """The line of loops.cu carrying `// @name`."""
    for number, line in enumerate(SOURCE.read_text().splitlines(), 1):
        if re.search(rf"// @{name}\b", line):
            return number
    raise KeyError(name)


@cache
def _recorded(arch: str) -> dict[str, tuple[SassInstruction, ...]]:
    listing = parse_sass_text((DATA / f"loops.{arch}.sass.txt").read_text(), where=arch)
    return {f.name: f.instructions for f in listing.functions}


@cache
def _live(arch: str) -> dict[str, tuple[SassInstruction, ...]]:
    import sassview

    program = sassview.compile(SOURCE.read_text(), arch=arch)
    return {k.name: k.instructions for k in program.kernels}


SOURCES = [
    *(pytest.param(("recorded", a), id=f"recorded-{a}") for a in RECORDED),
    *(
        pytest.param(("live", a), id=f"live-{a}", marks=pytest.mark.compile)
        for a in ("sm_90a", "sm_80", "sm_120")
    ),
]


@pytest.fixture(params=SOURCES)
def graph(request: pytest.FixtureRequest) -> Callable[[str], Graph]:
    """kernel name -> (instructions, CFG, loops), from a recorded listing or a fresh compile."""
    kind, arch = request.param
    functions = _recorded(arch) if kind == "recorded" else _live(arch)

    def get(kernel: str) -> Graph:
        ins = next(v for k, v in functions.items() if k.startswith(f"_Z{len(kernel)}{kernel}"))
        cfg = build_cfg(ins)
        return ins, cfg, find_loops(cfg, ins)

    return get


def _is_trap(cfg: ControlFlowGraph, ins: tuple[SassInstruction, ...], k: int) -> bool:
    first = ins[cfg.blocks[k].first]
    return first.opcode == "BRA" and first.target == first.address and k == len(cfg.blocks) - 1


def _check_consistent(ins: tuple[SassInstruction, ...], cfg: ControlFlowGraph) -> None:
    """Blocks tile the sequence; successors and predecessors mirror the edges; every branch
    target starts a block; only the trailing `BRA self` trap is unreachable."""
    assert cfg.blocks[0].first == 0 and cfg.blocks[-1].last == len(ins) - 1
    for a, b in zip(cfg.blocks, cfg.blocks[1:], strict=False):
        assert b.first == a.last + 1 and b.start == a.end
    pairs = {(e.src, e.dst) for e in cfg.edges}
    for b in cfg.blocks:
        assert set(b.successors) == {d for s, d in pairs if s == b.index}
        assert set(b.predecessors) == {s for s, d in pairs if d == b.index}
    starts = {b.start for b in cfg.blocks}
    for i in ins:
        if i.target is not None and i.opcode in ("BRA", "CALL"):
            assert i.target in starts, f"target of {i.text} at {i.address:#x} starts no block"
    unreachable = [b.index for b in cfg.blocks if not b.reachable]
    assert unreachable == [len(cfg.blocks) - 1] and _is_trap(cfg, ins, unreachable[0])


def test_straight_line_kernel_is_one_block_then_the_trap(graph: Callable[[str], Graph]) -> None:
    ins, cfg, loops = graph("full8")
    _check_consistent(ins, cfg)
    assert len(cfg.blocks) == 2 and loops == ()
    assert ins[cfg.blocks[0].last].opcode == "EXIT" and cfg.blocks[0].successors == ()
    trap = cfg.blocks[1]
    assert trap.successors == (1,) and {i.opcode for i in ins[trap.first + 1 : trap.last + 1]} == {
        "NOP"
    }


def test_rolled_loop_is_one_self_looping_block(graph: Callable[[str], Graph]) -> None:
    ins, cfg, loops = graph("unroll1")
    _check_consistent(ins, cfg)
    (loop,) = loops
    header = cfg.blocks[loop.header]
    assert loop.blocks == {loop.header} and loop.back_edges == ((loop.header, loop.header),)
    assert loop.depth == 1 and loop.parent is None and loop.source is not None
    assert loop.source.line == mark("unroll1")
    branch = ins[header.last]
    assert branch.opcode == "BRA" and branch.target == header.start  # the back edge
    assert set(header.successors) == {loop.header, loop.header + 1}  # loop again, or leave
    assert loop.addresses == tuple(i.address for i in ins[header.first : header.last + 1])
    assert (loop.first_address, loop.last_address) == (header.start, header.end - 16)


def test_unroll_by_4_leaves_a_main_loop_and_a_remainder_loop(graph: Callable[[str], Graph]) -> None:
    ins, cfg, loops = graph("unroll4")
    _check_consistent(ins, cfg)
    assert len(loops) == 2
    main, rest = loops
    assert main.first_address < rest.first_address and not main.blocks & rest.blocks
    assert all(
        lp.depth == 1 and lp.parent is None and lp.source.line == mark("unroll4") for lp in loops
    )


def test_nested_loops_have_depths_1_and_2(graph: Callable[[str], Graph]) -> None:
    ins, cfg, loops = graph("nested")
    _check_consistent(ins, cfg)
    outer, inner = loops
    assert (
        (outer.depth, inner.depth) == (1, 2)
        and inner.parent == outer.index
        and outer.parent is None
    )
    assert inner.blocks < outer.blocks and outer.header not in inner.blocks
    assert (outer.source.line, inner.source.line) == (mark("outer"), mark("inner"))
    assert outer.first_address <= inner.first_address <= inner.last_address <= outer.last_address


def test_while_and_do_while_loops(graph: Callable[[str], Graph]) -> None:
    for kernel, line in (("whileloop", mark("while")), ("dowhile", mark("do") + 3)):
        ins, cfg, loops = graph(kernel)
        _check_consistent(ins, cfg)
        (loop,) = loops
        # A do-loop's back-edge branch tests the condition on its `} while (...)` line.
        assert loop.depth == 1 and loop.source.line == line


def test_call_and_return_edges_and_a_loop_inside_the_subroutine(
    graph: Callable[[str], Graph],
) -> None:
    ins, cfg, loops = graph("callsloop")
    _check_consistent(ins, cfg)
    (call,) = [e for e in cfg.edges if e.kind is EdgeKind.CALL]
    (ret,) = [e for e in cfg.edges if e.kind is EdgeKind.RETURN]
    caller = cfg.blocks[call.src]
    assert (
        ins[caller.last].opcode == "CALL" and cfg.blocks[call.dst].start == ins[caller.last].target
    )
    assert ret.dst == call.src + 1 and ins[cfg.blocks[ret.src].last].opcode == "RET"
    assert (call.src, call.src + 1, EdgeKind.FALLTHROUGH) in {
        (e.src, e.dst, e.kind) for e in cfg.edges
    }
    (loop,) = loops
    assert loop.first_address > ins[caller.last].target - 1 and loop.source.line == mark("callee")
    assert call.dst not in loop.blocks or loop.header == call.dst


def test_early_return_leaves_the_loop_by_a_second_exit(graph: Callable[[str], Graph]) -> None:
    ins, cfg, loops = graph("early")
    _check_consistent(ins, cfg)
    (loop,) = loops
    exits = {d for k in loop.blocks for d in cfg.blocks[k].successors if d not in loop.blocks}
    assert len(loop.blocks) == 2 and len(exits) == 2
    ends = [b for b in cfg.blocks if b.reachable and ins[b.last].opcode == "EXIT"]
    assert len(ends) == 2 and loop.source.line == mark("early")


def test_loop_inlined_from_a_device_function_gets_the_callee_line(
    graph: Callable[[str], Graph],
) -> None:
    _, _, loops = graph("inl")
    (loop,) = loops
    assert loop.source.line == mark("inlined") != mark("callsite")


def test_switch_in_a_loop(graph: Callable[[str], Graph]) -> None:
    """On sm_100 and later the switch is a jump table: BRX, whose targets nvdisasm's text names
    (BRANCH_TARGETS); the CFG has an edge to each, and the loop around the switch survives."""
    ins, cfg, loops = graph("sw")
    _check_consistent(ins, cfg)
    (loop,) = loops
    assert loop.source.line == mark("switch") and loop.depth == 1
    for b in cfg.blocks:
        last = ins[b.last]
        if last.opcode == "BRX":
            assert last.targets and not b.unknown_successors
            assert {cfg.blocks[s].start for s in b.successors} >= set(last.targets)
            assert b.index in loop.blocks


@pytest.mark.parametrize(
    "listing",
    sorted(CORPUS.glob("*/*/sass.txt")),
    ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}",
)
def test_corpus_listings_build_consistent_graphs(listing: Path) -> None:
    for function in parse_sass_text(listing.read_text(), where=str(listing)).functions:
        cfg = build_cfg(function.instructions)
        _check_consistent(function.instructions, cfg)
        for loop in find_loops(cfg, function.instructions):
            assert all(cfg.blocks[k].reachable for k in loop.blocks)
            assert all(loop.header in cfg.blocks[t].successors for t, _ in loop.back_edges)


def _cfg(body: str) -> tuple[tuple[SassInstruction, ...], ControlFlowGraph]:
    """A CFG from listing lines `ADDR TEXT` (hex address, then the instruction)."""
    lines = ['\t.section\t.text.k,"ax",@progbits', "k:"]
    for row in body.strip().splitlines():
        address, text = row.split(None, 1)
        if text.endswith(":"):
            lines.append(text)
        else:
            lines.append(f"        /*{int(address, 16):04x}*/ {text} ;")
    ins = parse_sass_text("\n".join(lines) + "\n").functions[0].instructions
    return ins, build_cfg(ins)


def _edges(cfg: ControlFlowGraph) -> set[tuple[int, int, str]]:
    return {(e.src, e.dst, e.kind.value) for e in cfg.edges}


def test_guards_decide_which_edges_a_branch_has() -> None:
    ins, cfg = _cfg("""
        0 .L_top:
        00 @P0 BRA `(.L_top)
        10 @!PT BRA `(.L_top)
        20 @PT BRA `(.L_end)
        30 NOP
        40 .L_end:
        40 BRA.U !UP0, `(.L_top)
        50 @P1 EXIT
        60 EXIT
    """)
    assert [b.start for b in cfg.blocks] == [0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60]
    assert _edges(cfg) == {
        (0, 0, "taken"),
        (0, 1, "fallthrough"),  # @P0: both ways
        (1, 2, "fallthrough"),  # @!PT never jumps
        (2, 4, "taken"),  # @PT always does
        (3, 4, "fallthrough"),
        (4, 0, "taken"),
        (4, 5, "fallthrough"),  # the predicate operand makes it conditional
        (5, 6, "fallthrough"),  # a guarded EXIT may not end the thread
    }
    assert [b.reachable for b in cfg.blocks] == [True, True, True, False, True, True, True]


def test_convergence_instructions_are_not_branches_and_brx_has_unknown_successors() -> None:
    ins, cfg = _cfg("""
        00 BSSY B0, `(.L_join)
        10 @P0 BRX R4 -0x20
        20 NOP
        30 BSYNC B0
        40 .L_join:
        40 WARPSYNC 0xffffffff
        50 EXIT
    """)
    assert [b.start for b in cfg.blocks] == [0x00, 0x20]
    assert cfg.blocks[0].unknown_successors and _edges(cfg) == {(0, 1, "fallthrough")}
    assert cfg.block_at(0x10) is cfg.blocks[0] and cfg.block_at(0x50) is cfg.blocks[1]
    assert cfg.block_at(0x60) is None and cfg.block_of_index(3) is cfg.blocks[1]
    with pytest.raises(IndexError):
        cfg.block_of_index(99)


def test_networkx_view_keeps_every_edge_kind() -> None:
    _, cfg = _cfg("""
        00 @P0 BRA `(.L_next)
        10 .L_next:
        10 EXIT
    """)
    graph = cfg.to_networkx()
    assert set(graph.edges[0, 1]["kinds"]) == {EdgeKind.TAKEN, EdgeKind.FALLTHROUGH}
    assert graph.nodes[1]["start"] == 0x10 and graph.graph["entry"] == 0
    assert build_cfg(()).blocks == ()


def test_ptx_graph_and_loops() -> None:
    module = parse_ptx((DATA / "loops.sm_90a.ptx").read_text())
    nested = module.function("_Z6nestedPKfPfii")
    cfg = build_ptx_cfg(nested)
    outer, inner = find_ptx_loops(cfg, nested)
    assert (outer.depth, inner.depth, inner.parent) == (1, 2, outer.index)
    assert (outer.source.line, inner.source.line) == (mark("outer"), mark("inner"))
    assert cfg.unit == "ptx" and cfg.block_at(inner.first_address).index == inner.header
    unroll4 = module.function("_Z7unroll4PKfPfi")
    loops = find_ptx_loops(build_ptx_cfg(unroll4), unroll4)
    assert len(loops) == 2 and {lp.source.line for lp in loops} == {mark("unroll4")}
    # NVVM marks each loop it is done unrolling: one `.pragma "nounroll"` per PTX loop.
    assert [text for _, text in unroll4.pragmas] == ["nounroll", "nounroll"]


def test_large_kernels_build_in_linear_time() -> None:
    """65k straight-line instructions: one block. (Measured ~7 ms; the growth is measured in
    benchmarks/bench_analyses.py, not timed here: a timed test fails on a busy machine.)"""
    rows = [f"        /*{16 * i:04x}*/ FFMA R{i % 200}, R2, R3, R4 ;" for i in range(65536)]
    rows.append(f"        /*{16 * 65536:04x}*/ EXIT ;")
    text = '\t.section\t.text.k,"ax",@progbits\nk:\n' + "\n".join(rows) + "\n"
    ins = parse_sass_text(text).functions[0].instructions
    cfg = build_cfg(ins)
    loops = find_loops(cfg, ins)
    assert len(cfg.blocks) == 1 and loops == ()


def record() -> None:
    """Rewrite the recorded listings, cubins and PTX from loops.cu (compiled as text, so no
    absolute path is baked into the line table)."""
    import sassview
    from sassview.disasm import disassemble

    for arch in RECORDED:
        program = sassview.compile(SOURCE.read_text(), arch=arch)
        (DATA / f"loops.{arch}.cubin").write_bytes(program.artifacts.cubin)
        (DATA / f"loops.{arch}.sass.txt").write_text(disassemble(program.artifacts.cubin).text)
        (DATA / f"loops.{arch}.ptx").write_text(program.artifacts.ptx or "")


if __name__ == "__main__":
    record()
