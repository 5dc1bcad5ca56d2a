"""Warp roles of warp-specialised CuTe DSL kernels (analyses/warp_roles.py): loops and findings
per role, mbarrier and setmaxnreg wait loops one clause per role. On the recorded compile of
tests/data/frontends/cute_warp_specialized.py (sm_90a), no DSL needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from cute_data import recorded

from sassview.analyses.warp_roles import Role, roles_in
from sassview.report.summary import kernel_summary
from sassview.views.render import render_kernel

ROOT = Path(__file__).parents[1]
WS = ROOT / "tests" / "data" / "frontends" / "cute_warp_specialized.py"


def line_of(marker: str) -> int:
    lines = WS.read_text().splitlines()
    return next(i for i, t in enumerate(lines, 1) if t.rstrip().endswith(marker))


def test_the_branches_on_the_warp_index_are_the_roles() -> None:
    producer, consumer = roles_in(WS.read_text())
    assert producer == Role(
        "producer",
        "warp_idx < 4",
        line_of("# PRODUCER") + 1,
        line_of("producer_tail(producer)"),
        40,
    )
    store = line_of("cute.autovec_copy(out, tCgC)")
    assert consumer == Role("consumer", "not (warp_idx < 4)", line_of("# CONSUMER") + 1, store, 232)


def test_a_kernel_whose_warp_0_alone_loads_has_no_roles() -> None:
    # examples/cute/hopper_gemm.py: `if warp_idx == 0:` around the prologue's loads, and inside
    # the K loop; one warpgroup does everything.
    assert roles_in((ROOT / "examples" / "cute" / "hopper_gemm.py").read_text()) == ()


def test_sibling_branches_with_loops_are_roles_named_by_their_condition() -> None:
    source = (
        "def k():\n"
        "    warp = cute.arch.warp_idx()\n"
        "    if warp == 4:\n"
        "        for i in range(3): pass\n"
        "    elif warp < 4:\n"
        "        while x: pass\n"
        "    else:\n"
        "        pass\n"
    )
    assert [(r.name, r.first_line, r.last_line) for r in roles_in(source)] == [
        ("warp == 4", 4, 4),
        ("warp < 4", 6, 6),
    ]


def test_wait_loops_are_counted_per_role() -> None:
    insp = recorded("cute_warp_specialized", "sm_90a-1")
    producer, consumer = insp.facts("warp_roles")["roles"]
    acquire = line_of("mainloop.producer_acquire(producer)")
    tail = line_of("mainloop.producer_tail(producer)")
    assert [(w["kind"], w["line"], w["loops"]) for w in producer["waits"]] == [
        ("mbarrier wait", acquire, 1),
        ("mbarrier wait", tail, 4),  # producer_tail waits on each of the 4 stages
    ]
    assert [(w["kind"], w["line"], w["loops"]) for w in consumer["waits"]] == [
        ("setmaxnreg retry", line_of("setmaxregister_increase(232)"), 1),  # ptxas' retry loop
        ("mbarrier wait", line_of("mainloop.consumer_wait(reader)"), 1),
    ]


def test_check_prints_loops_and_findings_by_role() -> None:
    insp = recorded("cute_warp_specialized", "sm_90a-1")
    text = render_kernel(kernel_summary(insp))
    loops = [line for line in text.splitlines() if line.startswith("  loops")]
    producer, consumer = roles_in(WS.read_text())
    producer_loop, consumer_loop = line_of("# PRODUCER LOOP"), line_of("# CONSUMER LOOP")
    acquire, tail = line_of("producer_acquire(producer)"), line_of("producer_tail(producer)")
    assert loops == [
        f"  loops          producer (warp_idx < 4: lines {producer.first_line}-{tail}, "
        f"setmaxnreg 40): line {producer_loop}: not unrolled (asked: unroll=1) [counted in the "
        "SASS]; "
        f"mbarrier waits at lines {acquire}, {tail} (5 loops)",
        f"  loops          consumer (not (warp_idx < 4): lines {consumer.first_line}-"
        f"{consumer.last_line}, setmaxnreg 232): line {consumer_loop}: not unrolled (asked: "
        f"unroll=1) [counted in the SASS]; line {consumer_loop + 3}: fully unrolled (copies "
        "unknown, no loop left); "
        f"setmaxnreg retry at line {consumer.first_line}; mbarrier wait at line "
        f"{consumer_loop + 1}",
    ]
    assert "a loop of inline asm" not in text
    # The two K loops get their schedule (outside their wait loops); the waits get none.
    schedule = [line for line in text.splitlines() if line.startswith("  schedule")]
    assert [row.split(":")[0].split()[-1] for row in schedule] == [
        str(producer_loop),
        str(consumer_loop),
    ]
    assert all("outside its 1 inner loop" in row for row in schedule)
    assert f"note     [consumer] narrow-access: line {consumer.last_line}:" in text


@pytest.mark.compile
def test_a_live_compile_reads_as_the_recorded_one() -> None:
    pytest.importorskip("cutlass.cute")
    from sassview.build import build_program
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import compile_all
    from sassview.inspection import inspect_program

    (art,) = compile_all(import_kernel_file(WS), parallel=False)
    (live,) = inspect_program(build_program(art))
    assert live.facts("warp_roles") == recorded("cute_warp_specialized", "sm_90a-1").facts(
        "warp_roles"
    )
    assert live.kernel.display_name == "ws_gemm_kernel<bf16, mma 64x128x16>"
