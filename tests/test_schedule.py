"""The per-loop schedule (sassview.analyses.schedule), on loops summed by hand from the decoded
control codes of tests/corpus/tiled/sm_90a (the notations test_control_codes checks)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from analyses_data import program

from sassview.build import build_program
from sassview.graph.divergence import fallbacks
from sassview.inspection import inspect_program
from sassview.ir import Artifacts

CUBIN = Path(__file__).parent / "corpus" / "tiled" / "sm_90a" / "kernel.cubin"


def _loops() -> list[dict]:  # type: ignore[type-arg]
    art = Artifacts(kind="cubin", arch="sm_90a", cubin=CUBIN.read_bytes())
    (insp,) = inspect_program(build_program(art))
    return list(insp.facts("schedule")["loops"])


def test_the_unrolled_loop_by_hand() -> None:
    body, tail = _loops()
    # 0x01d0..0x0310, stalls S01 S01 S02 S01 S01 S01 S02 S02 S01 S01 S02 S01 S03 S01 S04 S01
    # (the four LDS and the address math), then FADD S04 S04 S04 S01 and the branch S06: 44.
    assert (body["instructions"], body["issue_cycles"]) == (21, 44)
    assert body["math_cycles"] == 13 and body["math_share"] == 0.295  # the four FADDs
    # The FADDs wait on SB0, SB1, SB2, set by the LDS at 0x290 (S03, then S01 S04 S01 before
    # 0x2d0: 9), 0x2b0 (S04 S01 S04: 9) and 0x2c0 (S01 S04 S04: 9).
    waits = [
        (w["address"], w["scoreboard"], w["producer"], w["cycles_between"]) for w in body["waits"]
    ]
    assert waits == [(0x2D0, 0, 0x290, 9), (0x2E0, 1, 0x2B0, 9), (0x2F0, 2, 0x2C0, 9)]
    assert not any(w["carried"] for w in body["waits"])
    assert body["text"] == (
        "line 9: 44 issue cycles per trip, 30% on math; tightest load wait: LDS 9 cycles "
        "before use (ptxas' plan)"
    )


def test_the_remainder_loop_by_hand() -> None:
    _, tail = _loops()
    # 0x0340..0x03b0: S01 S01 S02 S02 S04, LDS S02, FADD S07, BRA S05 = 24; the FADD waits on
    # the LDS two cycles after it issued.
    assert (tail["instructions"], tail["issue_cycles"], tail["math_cycles"]) == (8, 24, 7)
    ((wait),) = tail["waits"]
    assert (wait["address"], wait["producer"], wait["kind"], wait["cycles_between"]) == (
        0x3A0,
        0x390,
        "shared",
        2,
    )


def test_a_wait_on_the_trip_before_is_carried() -> None:
    from sassview.analyses.schedule import _waits
    from sassview.ir import ControlCode, SassInstruction

    use = SassInstruction(0x00, "FFMA", (), ())
    work = SassInstruction(0x10, "IMAD", (), ())
    load = SassInstruction(0x20, "LDG", ("E",), ())
    body = [
        (use, ControlCode(4, True, None, None, 0b1, 0)),  # waits on SB0
        (work, ControlCode(5, False, None, None, 0, 0)),
        (load, ControlCode(2, False, 0, None, 0, 0)),  # sets SB0 for the next trip
    ]
    (wait,) = _waits(body)
    # The load issues, its own 2 cycles pass, then the next trip's FFMA waits: 2 cycles.
    assert (wait.address, wait.producer, wait.opcode, wait.kind) == (0x00, 0x20, "LDG.E", "global")
    assert (wait.cycles_between, wait.carried, wait.on) == (2, True, "result")


def _tiled_kernel():  # type: ignore[no-untyped-def]
    from sassview.testing import KernelUnderTest

    art = Artifacts(kind="cubin", arch="sm_90a", cubin=CUBIN.read_bytes())
    (insp,) = inspect_program(build_program(art))
    return KernelUnderTest(insp)


def test_assert_stall_cycles_reads_the_main_loop_at_the_line() -> None:
    import pytest

    from sassview.testing import ScheduleMismatch

    k = _tiled_kernel()
    k.assert_stall_cycles(line=9, max=44, min_math_share=0.29)
    # The remainder loop (24 cycles) would pass max=30: the main loop (44) is the one read.
    with pytest.raises(ScheduleMismatch) as failure:
        k.assert_stall_cycles(line=9, max=30)
    assert "44 issue cycles per trip > 30" in str(failure.value)
    assert "found:    line 9 (main loop): 44 issue cycles per trip, 30% on math" in str(
        failure.value
    )
    with pytest.raises(ScheduleMismatch, match="math share 30% < 50%"):
        k.assert_stall_cycles(line=9, min_math_share=0.5)
    with pytest.raises(ScheduleMismatch, match="no loop at line 3"):
        k.assert_stall_cycles(line=3, max=100)


def test_a_math_loop_that_uses_a_global_load_at_once_gets_a_note() -> None:
    from sassview.analyses.schedule import LoopSchedule, Wait, _exposed_note

    load = Wait(0x40, 0, 0x10, "LDG.E", "global", 8, False, "result")
    shared = Wait(0x40, 0, 0x10, "LDS", "shared", 2, False, "result")
    carried = dataclasses.replace(load, carried=True)  # loaded in the trip before: pipelined

    def loop(share: float, *waits: Wait) -> LoopSchedule:
        return LoopSchedule(0, 11, 20, 100, round(share * 100), False, waits)

    note = _exposed_note(loop(0.38, load))
    assert note is not None and note.kind == "exposed-load"
    assert note.message.startswith("line 11: a trip waits on LDG.E 8 issue cycles after")
    assert _exposed_note(loop(0.10, load)) is None  # a load-bound loop: not what it exists for
    assert _exposed_note(loop(0.38, shared)) is None  # shared latency: the row says it
    assert (
        _exposed_note(loop(0.38, Wait(0x40, 0, 0x10, "LDG.E", "global", 80, False, "result")))
        is None
    )
    assert _exposed_note(loop(0.38, carried)) is None


def test_an_outer_loop_is_read_outside_its_inner_loop_by_hand() -> None:
    # tests/data/graph/loops.cu's `nested`: the i loop (line 43) around the j loop (45).
    cubin = Path(__file__).parent / "data" / "graph" / "loops.sm_90a.cubin"
    art = Artifacts(kind="cubin", arch="sm_90a", cubin=cubin.read_bytes())
    insp = next(
        i for i in inspect_program(build_program(art)) if i.kernel.name.startswith("_Z6nested")
    )
    outer = next(s for s in insp.facts("schedule")["loops"] if s["source_line"] == 43)
    # 0x090..0x0f0 S01 S07 S01 S01 S06 S01 S12, then after the j loop FMUL S01 and BRA S06: 36;
    # the j loop's 0x100..0x160 are not counted. The FMUL is the math: 1 of 36.
    assert (outer["instructions"], outer["issue_cycles"], outer["inner_loops"]) == (9, 36, 1)
    assert outer["math_cycles"] == 1 and not outer["branches"]
    assert outer["text"] == (
        "line 43: 36 issue cycles per trip outside its 1 inner loop, 3% on math (ptxas' plan)"
    )
    inner = next(s for s in insp.facts("schedule")["loops"] if s["source_line"] == 45)
    assert (inner["instructions"], inner["issue_cycles"], inner["inner_loops"]) == (7, 25, 0)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_diverged_warp_fallback_inside_a_loop_is_left_out(arch: str) -> None:
    # warp_fallbacks.cu reduce_per_chunk: cg::reduce in `if (threadIdx.x < 64)` inside a
    # run-time loop; ptxas' BRA.DIV copy jumps back into the body, so the SASS loop holds it.
    # A trip runs one copy or the other: the fast path's is counted, the fallback's is not.
    prog = program("recorded", "warp_fallbacks", arch)
    (insp,) = (i for i in inspect_program(prog) if "reduce_per_chunk" in i.kernel.name)
    ins, code = insp.kernel.instructions, insp.kernel.control_at
    fallback = {ins[i].address for f in fallbacks(insp.cfg, ins) for i in f.instructions}
    counted = 0
    for lp, fact in zip(insp.loops, insp.facts("schedule")["loops"], strict=True):
        body = [a for a in lp.addresses if a not in fallback]
        if len(body) < len(lp.addresses):
            counted += 1
        stalls = sum(c.stall for a in body if (c := code(a)) is not None)
        assert (fact["instructions"], fact["issue_cycles"]) == (len(body), stalls)
        assert not {w["address"] for w in fact["waits"]} & fallback
    assert counted >= 1  # the main loop holds a fallback copy


def test_a_body_whose_only_choice_picks_the_fallback_is_one_path() -> None:
    # sm_80 shfl_runtime_loop (warp_fallbacks.cu line 43): the loop's one choice is the
    # BRA.CONV between the shuffle and its diverged copy; set aside, the trip is one path.
    # reduce_per_chunk keeps its two ifs (lines 63, 64): both arms are still counted.
    by_name = {
        i.kernel.name: i for i in inspect_program(program("recorded", "warp_fallbacks", "sm_80"))
    }
    (loop,) = by_name["_Z17shfl_runtime_loopPKfPfi"].facts("schedule")["loops"]
    assert not loop["branches"] and "both arms" not in loop["text"]
    main = by_name["_Z16reduce_per_chunkPKfPfi"].facts("schedule")["loops"][0]
    assert main["branches"]
