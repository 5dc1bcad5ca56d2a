"""The classification rules (report/classify.py) on recorded listing pairs: the examples compiled
by CUDA 12.9 and 13.5 (tests/data/toolchains/, recorded with `sassview toolchain add 12.9`),
and edits of a recorded listing that a reviewer would call significant or benign."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sassview.report.classify import BENIGN, SIGNIFICANT, UNCLEAR, classify, explain

DATA = Path(__file__).parent / "data" / "toolchains"


def _pair(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    data = json.loads((DATA / f"{name}.json").read_text())
    assert data["12.9"]["toolchain"]["stored"] == "12.9"  # really the other release
    return data["12.9"], data["13.5"]


def _kinds(name: str) -> dict[str, str]:
    a, b = _pair(name)
    found = classify(a["facts"], a["listing"], b["facts"], b["listing"])
    return {v.what: v.kind for v in found.verdicts} | {"kernel": found.kind}


def test_12_9_to_13_5_moves_address_math_to_the_uniform_datapath_benign() -> None:
    a, b = _pair("02_smem_tiled")
    found = classify(a["facts"], a["listing"], b["facts"], b["listing"])
    assert found.kind == BENIGN
    rules = {v.what: v.rule for v in found.verdicts}
    assert rules["registers"] == "registers changed, occupancy did not"  # 32 -> 31
    assert rules["listing"] == "8 instructions moved between the uniform and vector datapaths"


def test_a_register_change_that_keeps_occupancy_is_benign() -> None:
    assert _kinds("03_register_blocking") == {
        "registers": BENIGN,  # 125 -> 127, 25% occupancy both
        "loop_cycles": BENIGN,  # 614 -> 619
        "listing": BENIGN,  # 11 of 728 instructions
        "kernel": BENIGN,
    }


def test_a_loop_that_got_slower_is_significant_with_the_loop_named() -> None:
    a, b = _pair("05_wgmma_tma")
    found = classify(a["facts"], a["listing"], b["facts"], b["listing"])
    assert found.kind == SIGNIFICANT
    cycles = next(v for v in found.verdicts if v.what == "loop_cycles")
    assert (cycles.kind, cycles.before, cycles.after) == (
        SIGNIFICANT,
        "line 71: 153",
        "line 71: 191",
    )
    assert "25% more issue cycles per trip" in cycles.rule


def test_a_reschedule_alone_is_benign_even_where_the_estimate_moves() -> None:
    a, b = _pair("tiled")
    found = classify(a["facts"], a["listing"], b["facts"], b["listing"])
    assert found.kind == BENIGN
    listing = next(v for v in found.verdicts if v.what == "listing")
    assert listing.rule == "reordered within basic blocks only (the scheduler's window)"


def _swap_in_block(listing: str) -> str:
    """Swap two independent instructions of the loop body (a reschedule, by hand)."""
    lines = listing.splitlines()
    at = next(i for i, x in enumerate(lines) if "LOP3.LUT" in x)
    lines[at], lines[at + 1] = lines[at + 1], lines[at]
    return "\n".join(lines)


def test_a_hand_made_reschedule_is_benign_and_a_same_listing_is_no_change() -> None:
    _, b = _pair("tiled")
    assert classify(b["facts"], b["listing"], b["facts"], b["listing"]).kind == "same"
    moved = classify(b["facts"], b["listing"], b["facts"], _swap_in_block(b["listing"]))
    assert moved.kind == BENIGN


def test_reordering_across_a_label_is_not_a_reschedule() -> None:
    _, b = _pair("tiled")
    lines = b["listing"].splitlines()
    label = next(i for i, x in enumerate(lines) if x.startswith(".L_x_0"))
    lines[label - 1], lines[label + 1] = lines[label + 1], lines[label - 1]
    found = classify(b["facts"], b["listing"], b["facts"], "\n".join(lines))
    listing = next(v for v in found.verdicts if v.what == "listing")
    assert "reordered" not in listing.rule


def test_new_spills_are_significant_with_the_local_memory_lines_as_evidence() -> None:
    _, b = _pair("tiled")
    spilled = {**b["facts"], "spill_bytes": 8}
    listing = b["listing"].replace("  FADD R6, R4, R6 ;", "  STL [R1], R6 ;\n  FADD R6, R4, R6 ;")
    found = classify(b["facts"], b["listing"], spilled, listing)
    assert found.kind == SIGNIFICANT
    spill = next(v for v in found.verdicts if v.what == "spill_bytes")
    assert (spill.before, spill.after) == (0, 8)
    assert spill.evidence == ("+ STL [R?], R? ;",)
    assert any("STL" in line for line in explain(found))


def test_a_narrower_load_is_significant() -> None:
    _, b = _pair("tiled")
    wide = {**b["facts"], "global_load_bits": 128}
    found = classify(wide, b["listing"].replace("LDG.E.CONSTANT", "LDG.E.128.CONSTANT"), b["facts"],
                     b["listing"])  # fmt: skip
    width = next(v for v in found.verdicts if v.what == "global_load_bits")
    assert width.kind == SIGNIFICANT
    assert width.evidence[0].startswith("- LDG.E.128.CONSTANT")


def test_registers_that_cost_occupancy_are_significant() -> None:
    _, b = _pair("03_register_blocking")
    more = {**b["facts"], "registers": 168, "occupancy": 18.75}
    found = classify(b["facts"], b["listing"], more, b["listing"])
    kinds = {v.what: v.kind for v in found.verdicts}
    assert kinds["registers"] == SIGNIFICANT and kinds["occupancy"] == SIGNIFICANT


def test_a_large_change_no_fact_explains_is_unclear() -> None:
    _, b = _pair("tiled")
    lines = b["listing"].splitlines()
    changed = [x.replace("FADD", "FMUL") if "FADD" in x else x for x in lines]
    changed = [x.replace("LOP3.LUT", "LOP3.LUT.X") for x in changed]
    found = classify(b["facts"], b["listing"], b["facts"], "\n".join(changed))
    assert found.kind == UNCLEAR
    assert "no fact says why" in found.verdicts[-1].rule


def test_a_loop_factor_change_is_significant_but_a_line_shift_is_not() -> None:
    _, b = _pair("tiled")
    shifted = {**b["facts"], "loops": "12:x4", "loop_cycles": "12:44 12:24"}
    assert classify(b["facts"], b["listing"], shifted, b["listing"]).kind == BENIGN
    rolled = {**b["facts"], "loops": "9:x1"}
    found = classify(b["facts"], b["listing"], rolled, b["listing"])
    assert [v.kind for v in found.verdicts if v.what == "loops"] == [SIGNIFICANT]


@pytest.mark.parametrize("name", ["02_smem_tiled", "03_register_blocking", "05_wgmma_tma"])
def test_the_recorded_releases_really_differ(name: str) -> None:
    a, b = _pair(name)
    assert a["listing"] != b["listing"]


def test_registers_that_cost_occupancy_at_a_tried_block_size_are_significant() -> None:
    """tiled.cu names no block size: occupancy is tried at each (occupancy_sweep)."""
    _, b = _pair("tiled")
    before = {**b["facts"], "occupancy_sweep": "128:100 256:100 1024:100"}
    after = {**before, "registers": 40, "occupancy_sweep": "128:100 256:100 1024:75"}
    kinds = {v.what: v.kind for v in classify(before, b["listing"], after, b["listing"]).verdicts}
    assert kinds == {"occupancy_sweep": SIGNIFICANT, "registers": SIGNIFICANT}
    same = {**before, "registers": 18}
    kinds = {v.what: v.kind for v in classify(before, b["listing"], same, b["listing"]).verdicts}
    assert kinds == {"registers": BENIGN}


def _division() -> tuple[dict[str, Any], str]:
    """IEEE division (tests/data/toolchains/div_slowpath.cu): ptxas calls its own slow path."""
    data = json.loads((DATA / "div_slowpath.json").read_text())
    assert "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:" in data["listing"]
    return data["facts"], data["listing"]


def test_a_change_inside_ptxas_own_subroutine_is_judged_apart_and_benign() -> None:
    facts, listing = _division()
    body, _, sub = listing.partition("$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:")
    changed = sub.replace("VIADD R11, R3, 0xffffffff", "IADD3 R11, R3, -0x1, RZ", 1)
    assert changed != sub
    found = classify(
        facts,
        listing,
        facts,
        body + "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:" + changed,
    )
    assert found.kind == BENIGN
    (verdict,) = found.verdicts
    assert verdict.what == "ptxas subroutine $__cuda_sm3x_div_rn_noftz_f32_slowpath"
    assert verdict.evidence == ("- VIADD R?, R?, 0xffffffff ;", "+ IADD3 R?, R?, -0x1, RZ ;")


def test_a_subroutine_numbered_otherwise_is_no_change() -> None:
    facts, listing = _division()
    renumbered = listing.replace("$__internal_0_", "$__internal_3_")
    assert classify(facts, listing, facts, renumbered).kind == "same"


def test_the_same_edit_in_the_kernel_body_is_not_the_subroutine_s() -> None:
    facts, listing = _division()
    changed = listing.replace(
        "FFMA R7, R6, R7, R6 ;", "FFMA R7, R6, R7, R6 ;\n  FMUL R7, R7, 1 ;", 1
    )
    found = classify(facts, listing, facts, changed)
    assert [v.what for v in found.verdicts] == ["listing"]
