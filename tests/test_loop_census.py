"""The loop census on the labelled corpus of tests/data/loops (census.cu and its header).

The listings were recorded by tests/data/loops/record.py (NVRTC, sm_80 and sm_90a) and the
labels in labels.json read from them by hand; these tests need nvdisasm only. The census test
holds on every recorded listing: each source loop with code in the SASS has an entry.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import sassview
from sassview.analyses.loops.entry import LoopEntry
from sassview.inspection import Inspection, inspect_kernel
from sassview.ir import Artifacts, Program
from sassview.parse.source_loops import source_loops

DATA = Path(__file__).parent / "data" / "loops"
ARCHS = ("sm_80", "sm_90a")
LABELS = json.loads((DATA / "labels.json").read_text())["loops"]


@cache
def marks() -> dict[str, tuple[str, int]]:
    """`// @name` -> (file name, line)."""
    found = {}
    for name in ("census.cu", "census.cuh"):
        for number, line in enumerate((DATA / name).read_text().splitlines(), 1):
            m = re.search(r"// @(\w+)", line)
            if m:
                found[m.group(1)] = (name, number)
    return found


@cache
def program(arch: str) -> Program:
    source = DATA / "census.cu"
    return sassview.from_artifacts(
        Artifacts(
            kind="cuda",
            arch=arch,
            source_path=str(source),
            source_text=source.read_text(),
            ptx=(DATA / f"census.{arch}.ptx").read_text(),
            cubin=(DATA / f"census.{arch}.cubin").read_bytes(),
        )
    )


@cache
def inspection(arch: str, kernel: str) -> Inspection:
    p = program(arch)
    return inspect_kernel(p, p.kernel(kernel))


def entries(arch: str, kernel: str) -> tuple[LoopEntry, ...]:
    found: tuple[LoopEntry, ...] = inspection(arch, kernel).facts("unroll")["entries"]
    return found


def named(e: LoopEntry) -> tuple[str, int]:
    assert e.file is not None and e.line is not None
    return (Path(e.file).name, e.line)


def find(arch: str, kernel: str, loop: str, at: list[str]) -> LoopEntry:
    want = (marks()[loop], tuple(marks()[m] for m in at))
    here = [
        e
        for e in entries(arch, kernel)
        if e.statement
        and (named(e), tuple((Path(c.file).name, c.line) for c in e.inlined_at)) == want
    ]
    assert len(here) == 1, f"{loop} at {at}: {len(here)} entries"
    return here[0]


def label_cases() -> list[Any]:
    return [
        pytest.param(
            arch, row, id=f"{arch}-{row['kernel']}-{row['loop']}-{'-'.join(row.get('at', []))}"
        )
        for arch in ARCHS
        for row in LABELS
    ]


@pytest.mark.parametrize(("arch", "row"), label_cases())
def test_each_label_holds(arch: str, row: dict[str, Any]) -> None:
    label = row.get(arch, row["label"])
    e = find(arch, row["kernel"], row["loop"], row.get("at", []))
    got = {k: getattr(e, k) for k in label}
    assert got == label


@pytest.mark.parametrize("arch", ARCHS)
def test_every_source_loop_with_code_in_the_sass_has_an_entry(arch: str) -> None:
    """The census: a loop statement with instructions of its body (its lines, in any inline
    context) is listed, once per context, whatever the kernel."""
    texts = {name: (DATA / name).read_text() for name in ("census.cu", "census.cuh")}
    loops = {name: source_loops(text) for name, text in texts.items()}
    for k in program(arch).kernels:
        have = {
            (named(e), tuple((c.file, c.line) for c in e.inlined_at))
            for e in entries(arch, k.name)
            if e.statement
        }
        need = set()
        for ins in k.instructions:
            if ins.source is None:
                continue
            frames = list(ins.source.frames())
            for j, fr in enumerate(frames):
                name = Path(fr.file).name
                for s in loops.get(name, []):
                    if s.span[0] <= fr.line <= s.span[1]:
                        need.add(((name, s.line), tuple((f.file, f.line) for f in frames[j + 1 :])))
        missing = need - have
        assert not missing, f"{k.name}: no entry for {sorted(missing)}"
        assert len(have) == len([e for e in entries(arch, k.name) if e.statement]), "one each"


def test_a_helper_inlined_at_two_call_sites_has_an_entry_per_site() -> None:
    first = find("sm_80", "two_sites", "h_axpy", ["ts_first"])
    second = find("sm_80", "two_sites", "h_axpy", ["ts_second"])
    assert first.inlined_at != second.inlined_at
    assert Path(first.file or "").name == "census.cuh"
    line, call = marks()["h_axpy"][1], marks()["ts_first"][1]
    assert first.where == f"loop at line {line} (census.cuh, inlined at line {call})"


def test_nest_levels_each_have_their_own_copies_and_parent() -> None:
    found = entries("sm_80", "sgemm_tile")
    m, n = find("sm_80", "sgemm_tile", "sg_m", []), find("sm_80", "sgemm_tile", "sg_n", [])
    assert (m.copies, n.copies) == (8, 8)
    assert found[n.parent or 0] == m and n.depth == m.depth + 1
    kk = find("sm_80", "sgemm_tile", "sg_kk", [])
    assert found[m.parent or 0] == kk


def test_helper_loops_nest_in_the_loop_around_their_call() -> None:
    found = entries("sm_90a", "kloop_helper")
    h_m = find("sm_90a", "kloop_helper", "h_m", ["kh_call"])
    kk = find("sm_90a", "kloop_helper", "kh_kk", [])
    assert found[h_m.parent or 0] == kk and h_m.depth == 3
    # One SASS back-edge and the helper's 64 FFMA: the K loop is not unrolled.
    k = find("sm_90a", "kloop_helper", "kh_k", [])
    assert (k.kind, k.factor, len(k.back_edges)) == ("rolled", 1, 1)


def test_a_constant_trip_loop_left_rolled_is_a_finding() -> None:
    line = marks()["sg_kk"][1]
    notes = [
        a
        for a in inspection("sm_90a", "sgemm_tile").annotations
        if a.kind == "unroll" and a.severity.name == "NOTE"
    ]
    assert [a.message for a in notes] == [
        f"loop at line {line}: 8 iterations known at compile time, but the loop stayed rolled"
    ]
    assert "#pragma unroll" in notes[0].hint
    assert not [
        a
        for a in inspection("sm_80", "sgemm_tile").annotations
        if a.kind == "unroll" and a.severity.name != "INFO"
    ]


def test_a_loop_exiting_through_a_call_is_still_a_loop() -> None:
    """ptxas leaves a loop with `@P CALL.REL.NOINC` to the code after it, then the back-edge
    BRA: the 16-trip loop around sinf/cosf (sm_80) was no loop at all, its inner one the
    only one."""
    outer = find("sm_80", "constants", "c16_big", [])
    inner = find("sm_80", "constants", "c16_inner", [])
    assert outer.kind == inner.kind == "rolled"
    assert outer.sass_loops != inner.sass_loops


def test_assert_unrolled_reads_copies_and_the_inline_context() -> None:
    from sassview.testing.failures import UnrollMismatch
    from sassview.testing.matchers import KernelUnderTest

    k = KernelUnderTest(inspection("sm_90a", "kloop_helper"))
    h_n, call = marks()["h_n"][1], marks()["kh_call"][1]
    k.assert_unrolled(line=h_n, copies=8, inlined_at=call)
    k.assert_unrolled(line=h_n, copies=8)  # every context holds
    with pytest.raises(UnrollMismatch, match="fully unrolled into 64 copies"):
        k.assert_unrolled(line=h_n, copies=64)  # the nest's product is no level's copies
    with pytest.raises(UnrollMismatch, match=f"no loop at line {h_n} inlined at 1"):
        k.assert_unrolled(line=h_n, copies=8, inlined_at=1)
    kk = marks()["kh_kk"][1]
    with pytest.raises(UnrollMismatch, match="not unrolled"):
        k.assert_unrolled(line=kk, factor="full")  # rolled on sm_90a (unrolled on sm_80)
    KernelUnderTest(inspection("sm_80", "kloop_helper")).assert_unrolled(line=kk, copies=8)


def test_check_names_a_helper_loop_by_its_header_and_call_site() -> None:
    from sassview.views.render import render_kernel
    from sassview.views.summary import kernel_summary

    text = render_kernel(kernel_summary(inspection("sm_80", "two_sites")))
    line, first, second = marks()["h_axpy"][1], marks()["ts_first"][1], marks()["ts_second"][1]
    assert f"line {line} (census.cuh, inlined at line {first}): fully unrolled (4 copies)" in text
    assert f"line {line} (census.cuh, inlined at line {second}): fully unrolled (4 copies)" in text


def test_json_loops_are_the_entries_with_schema_1_keys_kept() -> None:
    from sassview.views.summary import kernel_summary

    loops = kernel_summary(inspection("sm_80", "sgemm_tile"))["analysis"]["loops"]
    n = next(d for d in loops if d["source_line"] == marks()["sg_n"][1])
    assert (n["kind"], n["copies"], n["achieved_factor"], n["has_back_edge"]) == (
        "full",
        8,
        8,
        False,
    )
    assert loops[n["parent"]]["source_line"] == marks()["sg_m"][1]
    k = next(d for d in loops if d["source_line"] == marks()["sg_k"][1])
    assert (k["kind"], k["factor"], k["achieved_factor"], k["trip_count"]) == ("rolled", 1, 1, None)


def test_export_rows_carry_the_inline_context() -> None:
    from sassview.export.model import PathNames, _loops

    rows = _loops(inspection("sm_80", "two_sites"), PathNames(None, set()))
    assert sorted(r.context for r in rows) == [
        f" (inlined at {marks()['ts_first'][1]})",
        f" (inlined at {marks()['ts_second'][1]})",
        f" (inlined at {marks()['ts_sum'][1]})",
    ]


def test_a_header_is_read_beside_the_source_when_its_recorded_path_is_gone(
    tmp_path: Path,
) -> None:
    from sassview.analyses.loops.files import candidates

    recorded = Path("/elsewhere/checkout/tests/census.cuh")
    found = candidates(str(recorded), (recorded.parent, tmp_path))
    assert found == [recorded, tmp_path / "census.cuh", tmp_path / "census.cuh"]
    assert candidates("inc/h.cuh", (recorded.parent, tmp_path))[1] == tmp_path / "inc" / "h.cuh"
    assert candidates(str(recorded), None) == [recorded]
