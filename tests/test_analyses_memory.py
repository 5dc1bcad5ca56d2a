"""memory_width, spills and async_copy on kernels written so that each answer is known.

Every check runs on four models of the same kernel: `live` (compiled now with NVRTC, marked
`compile`), `recorded` (the cubin kept under tests/data/analyses, disassembled again), and
`json` / `text` (the recorded nvdisasm listings read by the parsers alone, no tool at all).
Re-record with `python tests/data/analyses/record.py`.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from analyses_data import MODES, analyse, program, rec

from sassview.analyses import async_copy, memory_width, spills, tensor_cores
from sassview.analyses.base import AnalysisContext, Findings, Severity
from sassview.analyses.memory import (
    access_bits,
    accesses,
    base_text,
    classify,
    line_keys,
    never_executes,
    user_locs,
)
from sassview.ir import SassInstruction
from sassview.parse.sass_operands import parse_operand


def kinds(findings: Findings, kind: str) -> list[Any]:
    return [a for a in findings.annotations if a.kind == kind]


# ---------------------------------------------------------------------------------------------
# memory_width

WIDTHS = {  # kernel -> (max global load bits, max global store bits)
    "vec4": (128, 128),
    "vec2": (64, 64),
    "scalar": (32, 32),
    "offset1": (32, 32),
    "struct3": (32, 32),
    "narrow_types": (16, 32),
    "shared4": (128, 128),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_global_widths_are_those_of_the_types(mode: str, arch: str) -> None:
    for kernel, (load, store) in WIDTHS.items():
        f, _ = analyse(memory_width, mode, "widths", arch, kernel)
        assert (f.facts["max_global_load_bits"], f.facts["max_global_store_bits"]) == (
            load,
            store,
        ), kernel
    f, _ = analyse(memory_width, mode, "widths", arch, "shared4")
    assert (f.facts["max_shared_load_bits"], f.facts["max_shared_store_bits"]) == (128, 128)
    f, _ = analyse(memory_width, mode, "widths", arch, "vec4")
    assert f.facts["max_shared_load_bits"] is None


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_each_access_names_its_ptx_and_source_line(mode: str, arch: str) -> None:
    f, _ = analyse(memory_width, mode, "widths", arch, "vec4")
    acc = [a for a in f.facts["accesses"] if a["space"] == "global"]
    assert [(a["opcode"], a["direction"], a["bits"], a["source_line"], a["ptx"]) for a in acc] == [
        ("LDG.E.128.CONSTANT", "load", 128, 6, "ld.global.nc.v4.f32"),
        ("STG.E.128", "store", 128, 7, "st.global.v4.f32"),
    ]
    f, _ = analyse(memory_width, mode, "widths", arch, "narrow_types")
    assert f.facts["by_line"] == {
        "37": {"loads": {"8": 1, "16": 1}, "stores": {"32": 1}, "atomics": {}}
    }


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_narrow_access_notes_only_for_lines_without_128_bit_accesses(mode: str, arch: str) -> None:
    # Lines whose accesses the coalescing analysis proves coalesced (vec2's float2, scalar's
    # one float a lane, struct3's store) cost instructions, not traffic: INFO, not a note.
    # offset1's and struct3's loads stride 16 and 12 bytes a lane: notes. One per run of
    # consecutive lines alike.
    expect = {"vec4": [], "shared4": [], "offset1": [(["25"], Severity.NOTE)]}
    expect["vec2"] = [(["12", "13"], Severity.INFO)]
    expect["scalar"] = [(["18"], Severity.INFO)]
    expect["struct3"] = [(["30"], Severity.NOTE), (["31"], Severity.INFO)]
    for kernel, runs in expect.items():
        f, _ = analyse(memory_width, mode, "widths", arch, kernel)
        notes = kinds(f, "narrow-access")
        assert [(n.data["lines"], n.severity) for n in notes] == runs, kernel
        assert [n.data["line"] for n in notes] == [run[0][0] for run in runs], kernel
        assert all(n.data["coalesced"] is (n.severity is Severity.INFO) for n in notes)
    # Without the coalescing proof, the rule underneath: lines 12 and 13 make one run.
    prog = program(mode, "widths", arch)
    k = prog.kernel("vec2")
    found = accesses(k)
    locs = user_locs([a.instruction for a in found])
    lines = line_keys(k).keys(locs)
    (note,) = memory_width._narrow_lines(found, lines, locs)
    assert note.data["max_bits"] == 64 and note.message.startswith("lines 12-13: ")
    assert [s.line for s in note.source] == [12, 13]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_merge_candidates_are_consecutive_narrow_accesses_from_one_base(
    mode: str, arch: str
) -> None:
    """offset1 loads a + 16*tid + 4 .. + 16 (LDG [R2.64+0x4] .. [R2.64+0x10], R2 = a + 16*tid):
    4 bytes past a 16-byte boundary in every lane, so no 128-bit access (the run is not the
    claim it was: issue #33 item 4), but +0x8..+0xc is 8-byte aligned in every lane: one
    64-bit access. struct3's lanes are 12 bytes apart: half of them are 8-byte aligned at
    +0x0, the other half at +0x4, so no two of its loads are one access in every lane."""
    f, k = analyse(memory_width, mode, "widths", arch, "offset1")
    (cand,) = kinds(f, "merge-candidate")
    assert cand.data["offsets"] == [0x8, 0xC]
    assert (cand.data["bits"], cand.data["bytes"], cand.data["direction"]) == (32, 8, "load")
    assert cand.data["base"] == ("[R2.64]" if arch == "sm_80" else "desc[UR4][R2.64]")
    assert len(cand.addresses) == 2
    assert [k.instruction_at(a).operands[1].offset for a in cand.addresses] == [0x8, 0xC]  # type: ignore[union-attr]
    assert [k.instruction_at(a).opcode for a in cand.addresses] == ["LDG"] * 2  # type: ignore[union-attr]
    assert "could be a 64-bit access" in cand.message and "not one 128-bit access" in cand.message
    for knob in ("float4", "__align__(16)", "__restrict__", "tl.multiple_of"):
        assert knob in cand.hint
    assert [(s.line, s.inlined_at) for s in cand.source] == [(25, None)]
    for kernel in ("vec4", "vec2", "scalar", "narrow_types", "shared4", "struct3"):
        f, _ = analyse(memory_width, mode, "widths", arch, kernel)
        assert kinds(f, "merge-candidate") == [], kernel


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_no_merge_across_a_barrier(mode: str, arch: str) -> None:
    # out[tid] = ...; __syncthreads_count(...); out[tid + 1] = ...: consecutive, but a BAR.RED
    # lies between the two STG, so they can never be one access.
    f, k = analyse(memory_width, mode, "async", arch, "cpasync")
    stg = [i for i in k.instructions if i.opcode == "STG"]
    assert [i.operands[0].offset for i in stg] == [None, 4]
    assert kinds(f, "merge-candidate") == []


@pytest.mark.parametrize(("arch", "stores"), [("sm_80", []), ("sm_90a", [128, 64, 32])])
@pytest.mark.parametrize("mode", MODES)
def test_ldmatrix_and_stmatrix_widths_follow_the_matrix_count(
    mode: str, arch: str, stores: list[int]
) -> None:
    f, _ = analyse(memory_width, mode, "async", arch, "ldsm_stsm")
    acc = f.facts["accesses"]
    assert [a["bits"] for a in acc if a["opcode"].startswith("LDSM")] == [128, 64, 32]
    assert [a["bits"] for a in acc if a["opcode"].startswith("STSM")] == stores
    assert {a["space"] for a in acc if a["opcode"].startswith(("LDSM", "STSM"))} == {"shared"}


@pytest.mark.parametrize("mode", MODES)
def test_never_executed_placeholders_are_not_accesses(mode: str) -> None:
    # ptxas pads cp.async with `@!PT LDS RZ, [RZ]`: predicated off, never an access.
    _, k = analyse(memory_width, mode, "async", "sm_90a", "cpasync")
    pads = [i for i in k.instructions if never_executes(i)]
    assert pads and all(i.opcode == "LDS" for i in pads)
    f, _ = analyse(memory_width, mode, "async", "sm_90a", "cpasync")
    addresses = {a["address"] for a in f.facts["accesses"]}
    assert not addresses & {i.address for i in pads}


def _ins(mnemonic: str, *operands: str) -> SassInstruction:
    opcode, *mods = mnemonic.split(".")
    return SassInstruction(0, opcode, tuple(mods), tuple(parse_operand(o) for o in operands))


@pytest.mark.parametrize(
    ("mnemonic", "bits"),
    [
        ("LDG.E", 32), ("LDG.E.128.CONSTANT", 128), ("LDG.E.64", 64), ("LDG.E.U8", 8),
        ("LDG.E.S16", 16), ("LDG.E.ENL2.256", 256), ("LDG.E.LTC128B", 32), ("STL.128", 128),
        ("LDL.LU.64", 64), ("ATOMG.E.CAS.64.STRONG.GPU", 64), ("REDG.E.ADD.F64.RN.STRONG.GPU", 64),
        ("ATOM.E.ADD.F16x2.RN.STRONG.GPU", 32), ("LDGSTS.E.BYPASS.128", 128),
        ("LDSM.16.M88.4", 128), ("LDSM.16.MT88.2", 64), ("STSM.16.M88", 32),
        ("UTMALDG.2D", "bulk"), ("UBLKCP.S.G", "bulk"),
    ],
)  # fmt: skip
def test_access_bits_from_modifiers(mnemonic: str, bits: int | str) -> None:
    assert access_bits(_ins(mnemonic)) == bits


def test_bulk_copy_direction_and_generic_space_from_ptx() -> None:
    assert (classify(_ins("UBLKCP.S.G")).space, classify(_ins("UBLKCP.S.G")).direction) == (
        "global",
        "load",
    )  # type: ignore[union-attr]
    assert classify(_ins("UBLKCP.G.S")).direction == "store"  # type: ignore[union-attr]
    assert classify(_ins("UTMASTG.2D")).direction == "store"  # type: ignore[union-attr]
    assert classify(_ins("LD.E", "R9", "[R4.64+0x4]")).space == "generic"  # type: ignore[union-attr]
    assert classify(_ins("HFMA2.MMA", "R5", "-RZ", "RZ")) is None
    assert base_text(parse_operand("desc[UR4][R2.64+0x8]")) == "desc[UR4][R2.64]"
    assert base_text(parse_operand("[R25.X16+0x400]")) == "[R25.X16]"
    assert base_text(parse_operand("[R1]")) == "[R1]"


# ---------------------------------------------------------------------------------------------
# spills

SPILL = {  # arch -> (store bytes, load bytes) in the ptxas report of spill.cu at -maxrregcount=32
    "sm_80": (524, 552),
    "sm_90a": (520, 548),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_forced_spill_is_found_per_line_and_adds_up_to_the_report(mode: str, arch: str) -> None:
    f, k = analyse(spills, mode, "spill", arch, "_Z5spillPKfPfi")
    stores, loads = SPILL[arch]
    facts = f.facts
    assert facts["spills"] is True and facts["classified_by"] == "nvdisasm"
    assert (facts["spill_store_bytes"], facts["spill_load_bytes"]) == (stores, loads)
    # Every spill here is one 32-bit register: instructions x 4 bytes is the report, exactly.
    assert (facts["spill_stores"] * 4, facts["spill_loads"] * 4) == (stores, loads)
    assert facts["spill_instructions"] == facts["spill_stores"] + facts["spill_loads"]
    assert facts["local_array_instructions"] == 0
    by_line = facts["by_line"]
    assert set(by_line) == {"6", "7", "9", "13"}
    assert sum(e["store_bytes"] for e in by_line.values()) == stores
    assert sum(e["load_bytes"] for e in by_line.values()) == loads
    assert all(set(e["by_width"]) == {"32"} for e in by_line.values())
    notes = kinds(f, "spill")
    assert [n.data["line"] for n in notes] == ["6", "7", "9", "13"]
    assert all(n.severity is Severity.WARNING for n in notes)
    assert all("__launch_bounds__" in n.hint and "-maxrregcount=32" in n.hint for n in notes)
    assert sum(len(n.addresses) for n in notes) == facts["spill_instructions"]
    assert all(SPILL_MARK in k.instruction_at(a).marks for n in notes for a in n.addresses)  # type: ignore[union-attr]
    assert facts["stack_frame_bytes"] == 272
    assert kinds(f, "local-array") == []


SPILL_MARK = "SpillRefill"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_dynamically_indexed_array_is_local_memory_not_a_spill(mode: str, arch: str) -> None:
    f, _ = analyse(spills, mode, "spill", arch, "_Z11local_arrayPKiPf")
    facts = f.facts
    assert facts["spills"] is False
    assert (facts["spill_store_bytes"], facts["spill_load_bytes"], facts["spill_instructions"]) == (
        0,
        0,
        0,
    )
    assert facts["local_array_instructions"] == 9
    assert facts["local_array_by_line"] == {
        "19": {"loads": 0, "stores": 8, "bytes": 128},  # table[i] = ... : eight STL.128
        "20": {"loads": 1, "stores": 0, "bytes": 4},  # table[idx & 31]: one LDL
    }
    assert facts["stack_frame_bytes"] == 128
    notes = kinds(f, "local-array")
    assert [n.data["line"] for n in notes] == ["19", "20"]
    assert all(n.severity is Severity.NOTE and "compile-time constants" in n.hint for n in notes)
    assert kinds(f, "spill") == []


@pytest.mark.parametrize("mode", ["recorded", "json"])
def test_spills_without_nvdisasm_marks_fall_back_to_stack_slots(mode: str) -> None:
    prog = program(mode, "spill", "sm_90a")
    for name, spilled in (("_Z5spillPKfPfi", 267), ("_Z11local_arrayPKiPf", 0)):
        k = prog.kernel(name)
        bare = tuple(i._replace(marks=()) for i in k.instructions)
        k2 = dataclasses.replace(k, instructions=bare)
        f = spills.run(AnalysisContext(prog, k2, None, (), None))  # type: ignore[arg-type]
        assert f.facts["spill_instructions"] == spilled
        assert f.facts["classified_by"] == ("heuristic" if spilled else "ptxas-report")
    # No report and no marks: nothing can be called a spill, and the bytes stay unknown.
    k = prog.kernel("_Z5spillPKfPfi")
    res = dataclasses.replace(k.resources, spill_store_bytes=None, spill_load_bytes=None)
    f = spills.run(AnalysisContext(prog, dataclasses.replace(k, resources=res), None, (), None))  # type: ignore[arg-type]
    assert f.facts["spill_store_bytes"] is None and f.facts["spill_instructions"] == 267


# ---------------------------------------------------------------------------------------------
# async_copy


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("mode", MODES)
def test_cp_async_groups_waits_and_named_barriers(mode: str, arch: str) -> None:
    f, _ = analyse(async_copy, mode, "async", arch, "cpasync")
    facts = f.facts
    assert facts["cp_async"] == 3
    assert facts["cp_async_bits"] == {"128": 1, "64": 1, "32": 1}
    assert facts["cp_async_groups"] == 2  # wait_all's own LDGDEPBAR is not a group
    assert [(w["pending"], w["ptx"]) for w in facts["cp_async_waits"]] == [
        (1, "cp.async.wait_group"),
        (0, "cp.async.wait_all"),
    ]
    assert [(b["kind"], b["id"], b["threads"]) for b in facts["barriers"]] == [
        ("sync", 0, None), ("sync", 1, 128), ("arrive", 2, 64), ("sync", 3, None),
        ("reduce", 0, None),
    ]  # fmt: skip
    assert facts["nanosleeps"] == 1
    assert (facts["tma"]["loads"], facts["bulk_copies"]) == (0, 0)
    (cp,) = kinds(f, "async-copy")
    assert cp.severity is Severity.INFO and "3 LDGSTS" in cp.message
    assert len(kinds(f, "barrier")) == 5


@pytest.mark.parametrize("mode", MODES)
def test_cp_async_of_the_corpus_mma_kernel(mode: str) -> None:
    f, _ = analyse(async_copy, mode, "mma", "sm_80", "_Z13cp_async_ffmaPKfPfi")
    assert (f.facts["cp_async"], f.facts["cp_async_bits"], f.facts["cp_async_groups"]) == (
        1,
        {"128": 1},
        1,
    )
    assert [w["pending"] for w in f.facts["cp_async_waits"]] == [0]


@pytest.mark.parametrize("mode", MODES)
def test_tma_bulk_copies_mbarriers_and_cluster_barriers(mode: str) -> None:
    f, _ = analyse(async_copy, mode, "async", "sm_90a", "bulk")
    facts = f.facts
    assert facts["tma"] == {"loads": 1, "stores": 1, "reductions": 0, "prefetches": 1}
    assert facts["bulk_copies"] == 2
    assert facts["bulk"] == {
        "copies_in": 1,
        "copies_out": 1,
        "reductions": 1,
        "prefetches": 1,
        "commits": 1,
    }
    assert [w["ptx"] for w in facts["bulk_waits"]] == [
        "cp.async.bulk.wait_group.read",
        "cp.async.bulk.wait_group",
    ]
    assert facts["cp_async_waits"] == [] and facts["cp_async"] == 0
    ops = dict(facts["mbarrier_ops"])
    by = ops.pop("by_mnemonic")
    assert ops == {
        "init": 1,
        "arrive_expect_tx": 1,
        "arrive": 1,
        "try_wait": 1,
        "test_wait": 1,
        "inval": 1,
    }
    assert by == {
        "SYNCS.EXCH.64": 1, "SYNCS.ARRIVE.TRANS64": 1, "SYNCS.ARRIVE.TRANS64.A1T0": 1,
        "SYNCS.PHASECHK.TRANS64.TRYWAIT": 1, "SYNCS.PHASECHK.TRANS64": 1, "SYNCS.CCTL.IV": 1,
    }  # fmt: skip
    assert facts["ptx_mbarrier_ops"] == {
        "init": 1, "arrive.expect_tx": 1, "arrive": 1, "try_wait": 1, "test_wait": 1, "inval": 1,
    }  # fmt: skip
    assert [b["kind"] for b in facts["barriers"]] == [
        "sync",
        "sync",
        "cluster-arrive",
        "cluster-wait",
        "sync",
    ]
    messages = [a.message for a in kinds(f, "async-copy")]
    assert any(m.startswith("TMA: 1 loads, 1 stores") for m in messages)
    assert any(m.startswith("mbarrier: 1 init") for m in messages)


@pytest.mark.parametrize(
    ("arch", "sass"),
    [
        ("sm_80", {"ATOMS.ARRIVE.64": 1}),  # software mbarrier: STS.64 init, LDS wait
        (
            "sm_90a",
            {"SYNCS.EXCH.64": 1, "SYNCS.ARRIVE.TRANS64.A1T0": 1, "SYNCS.PHASECHK.TRANS64": 1},
        ),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_mbarrier_in_software_on_sm80_and_syncs_on_sm90(
    mode: str, arch: str, sass: dict[str, int]
) -> None:
    f, _ = analyse(async_copy, mode, "async", arch, "mbarrier_basic")
    assert f.facts["mbarrier_ops"]["by_mnemonic"] == sass
    assert f.facts["ptx_mbarrier_ops"] == {"init": 1, "arrive": 1, "test_wait": 1}


@pytest.mark.parametrize(("arch", "stmatrix"), [("sm_80", 0), ("sm_90a", 3)])
@pytest.mark.parametrize("mode", MODES)
def test_ldmatrix_and_stmatrix_counted(mode: str, arch: str, stmatrix: int) -> None:
    f, _ = analyse(async_copy, mode, "async", arch, "ldsm_stsm")
    assert (f.facts["ldmatrix"], f.facts["stmatrix"]) == (3, stmatrix)


# ---------------------------------------------------------------------------------------------
# all four: JSON-able facts, annotations that point at real instructions and user lines, speed

ANALYSES = [memory_width, tensor_cores, async_copy, spills]


@pytest.mark.parametrize(("case", "arch"), rec.recorded_dirs())
def test_facts_are_json_and_annotations_point_at_instructions(case: str, arch: str) -> None:
    prog = program("recorded", case, arch)
    for k in prog.kernels:
        addresses = {i.address for i in k.instructions}
        for module in ANALYSES:
            f = module.run(AnalysisContext(prog, k, None, (), None))  # type: ignore[arg-type]
            assert json.loads(json.dumps(dict(f.facts))) == dict(f.facts), (module.__name__, k.name)
            for a in f.annotations:
                assert set(a.addresses) <= addresses
                assert a.message and "\n" not in a.message
                assert all(s.inlined_at is None for s in a.source)  # outermost frames
                json.dumps(dict(a.data))


def test_each_analysis_runs_on_a_65k_instruction_kernel() -> None:
    """Every analysis reads a 65k-instruction kernel to JSON-able facts. How fast is measured in
    benchmarks/bench_analyses.py, not here: a timed assertion fails on a busy machine."""
    prog = program("json", "spill", "sm_90a")
    k = prog.kernel("_Z5spillPKfPfi")
    n = len(k.instructions)
    copies = 65536 // n + 1
    big = tuple(
        i._replace(address=i.address + c * n * 16, target=None)
        for c in range(copies)
        for i in k.instructions
    )[:65536]
    kb = dataclasses.replace(k, instructions=big)
    for module in ANALYSES:
        f = module.run(AnalysisContext(prog, kb, None, (), None))  # type: ignore[arg-type]
        assert json.loads(json.dumps(dict(f.facts))) == dict(f.facts), module.__name__
