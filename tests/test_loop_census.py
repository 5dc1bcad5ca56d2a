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
from helpers.loop_claims import python_recording
from helpers.loop_marks import source_marks

import sassview
from sassview.analyses.base import Severity
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
    return source_marks(DATA, ("census.cu", "census.cuh"))


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
    """A label the census does not meet yet (`known_wrong`: why) is an expected failure: the
    strict mark fails the day it is met."""
    return [
        pytest.param(
            arch,
            row,
            id=f"{arch}-{row['kernel']}-{row['loop']}-{'-'.join(row.get('at', []))}",
            marks=[pytest.mark.xfail(reason=row["known_wrong"], strict=True)]
            if "known_wrong" in row
            else [],
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


TESTS = Path(__file__).parent


def recorded_listings() -> list[Any]:
    """Every recorded CUDA C++ compile with its source: this corpus, copies.cu's,
    mactile.cu's, tutor.cu's, deduce.cu's and hopper.cu's, the
    parser corpus (tests/corpus), the analyses' (tests/data/analyses) and the unroll tests'
    (tests/data/graph)."""
    out = [
        pytest.param(DATA / f"{stem}.cu", DATA, f"{stem}.{a}", a, id=f"{stem}-{a}")
        for stem in ("census", "copies", "mactile", "tutor", "deduce", "hopper")  # test_loop_<stem>
        for a in ARCHS
    ]
    for meta_path in sorted(
        [*TESTS.glob("corpus/*/*/meta.json"), *TESTS.glob("data/analyses/*/*/meta.json")]
    ):
        meta = json.loads(meta_path.read_text())
        here = meta_path.parent
        source = next(
            (
                p
                for p in (TESTS.parent / meta["source"], TESTS / "corpus" / meta["source"])
                if p.is_file()
            ),
            None,
        )
        if source is not None and (here / "kernel.cubin").is_file():
            name = f"{here.parent.name}-{here.name}"
            out.append(pytest.param(source, here, "kernel", meta["arch"], id=name))
    for arch in ("sm_90a", "sm_120"):
        graph = TESTS / "data" / "graph"
        out.append(
            pytest.param(graph / "loops.cu", graph, f"loops.{arch}", arch, id=f"graph-{arch}")
        )
    return out


@pytest.mark.parametrize(("source", "where", "stem", "arch"), recorded_listings())
def test_every_source_loop_with_code_in_the_sass_has_an_entry(
    source: Path, where: Path, stem: str, arch: str
) -> None:
    """The census: a loop statement with instructions of its body (its lines, in any inline
    context, in the source or a header beside it) is listed, once per context, in every
    recorded listing."""
    from sassview.analyses import unroll
    from sassview.analyses.base import AnalysisContext
    from sassview.graph.cfg import build_cfg
    from sassview.graph.loops import find_loops

    program = sassview.from_artifacts(
        Artifacts(
            kind="cuda",
            arch=arch,
            source_path=str(source),
            source_text=source.read_text(),
            ptx=(where / f"{stem}.ptx").read_text(),
            cubin=(where / f"{stem}.cubin").read_bytes(),
        )
    )
    loops: dict[str, list[Any]] = {}
    for k in program.kernels:
        cfg = build_cfg(k.instructions)
        ctx = AnalysisContext(program, k, cfg, find_loops(cfg, k.instructions), None)  # type: ignore[arg-type]
        found = [e for e in unroll.run(ctx).facts["entries"] if e.statement]
        have = {(named(e), tuple((c.file, c.line) for c in e.inlined_at)) for e in found}
        assert len(have) == len(found), f"{k.name}: one entry per statement and context"
        need = set()
        for ins in k.instructions:
            frames = list(ins.source.frames()) if ins.source else []
            for j, fr in enumerate(frames):
                name = Path(fr.file).name
                if name not in loops:
                    beside = source.parent / name
                    loops[name] = source_loops(beside.read_text()) if beside.is_file() else []
                for s in loops[name]:
                    if s.span[0] <= fr.line <= s.span[1]:
                        sites = tuple((f.file, f.line) for f in frames[j + 1 :])
                        need.add(((name, s.line), sites))
        missing = need - have
        assert not missing, f"{k.name}: no entry for {sorted(missing)}"


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
    from sassview.report.summary import kernel_summary
    from sassview.views.render import render_kernel

    text = render_kernel(kernel_summary(inspection("sm_80", "two_sites")))
    line, first, second = marks()["h_axpy"][1], marks()["ts_first"][1], marks()["ts_second"][1]
    for site in (first, second):
        verdict = "fully unrolled (4 copies, no loop left)"
        assert f"line {line} (census.cuh, inlined at line {site}): {verdict}" in text


def test_json_loops_are_the_entries_with_schema_1_keys_kept() -> None:
    from sassview.report.summary import kernel_summary

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


@pytest.mark.compile
def test_labels_hold_on_a_live_compile() -> None:
    """The same corpus compiled now (NVRTC, the header read where the compile found it): the
    labels were read from the recordings, a toolchain that changes the code shows here."""
    live = sassview.compile(path=DATA / "census.cu", arch="sm_90a")
    wrong = []
    for row in (r for r in LABELS if "known_wrong" not in r):
        label = row.get("sm_90a", row["label"])
        got = inspect_kernel(live, live.kernel(row["kernel"])).facts("unroll")["entries"]
        want = (marks()[row["loop"]], tuple(marks()[m] for m in row.get("at", [])))
        here = [
            e
            for e in got
            if e.statement
            and (named(e), tuple((Path(c.file).name, c.line) for c in e.inlined_at)) == want
        ]
        if len(here) != 1 or {k: getattr(here[0], k) for k in label} != label:
            wrong.append(row["loop"])
    assert not wrong


def test_unasked_unrolling_with_a_remainder_is_one_finding_naming_both_compilers() -> None:
    """The verdict and that nobody asked for it are one cause: one finding, with the advice."""
    line = marks()["ex_continue"][1]
    found = inspection("sm_80", "exits").annotations
    notes = [
        a for a in found if a.kind == "unroll" and a.message.startswith(f"loop at line {line}:")
    ]
    assert [a.message for a in notes] == [
        f"loop at line {line}: unrolled by 16 (x4 by NVVM, then x4 by ptxas), with a remainder loop"
        ", without being asked [counted in the SASS]"
    ]
    assert notes[0].hint.startswith("if the count is always a multiple of 16, say so")
    # Asked for and got: no such note.
    line = marks()["pr_4"][1]
    pragmas = [
        a.message for a in inspection("sm_80", "pragmas").annotations if a.severity > Severity.INFO
    ]  # the info line reads alike
    assert not [m for m in pragmas if m.startswith(f"loop at line {line}: unrolled by")]


@pytest.mark.compile
def test_inline_asm_spin_loops_inside_a_k_loop_are_not_its_remainders() -> None:
    """05_wgmma_tma.cu's K loop (line 71, a runtime trip count, one SASS back-edge) holds the
    loops ptxas makes for its TMA and mbarrier-wait asm statements (lines 28 and 35). Counted as
    the K loop's SASS loops they made it 'not unrolled, with a remainder loop' (and the K loop
    itself a loop of no statement); they are loops of inline asm, listed apart. Labelled by hand
    from the SASS of CUDA 13.5 and 12.9: two line-71 loops, of 16 and 4 HGMMA (12 and 3 inner
    mbarrier waits): unrolled by 4 with a remainder loop (13.5 read 'not unrolled' while its
    line table split the main loop's HGMMA over two lines)."""
    path = Path(__file__).parents[1] / "examples" / "matmul" / "05_wgmma_tma.cu"
    (insp,) = sassview.inspect(path, arch="sm_90a")
    entries = list(insp.facts("unroll")["entries"])
    (k_loop,) = [e for e in entries if e.line == 71]
    assert (k_loop.kind, k_loop.factor, k_loop.remainder, k_loop.statement) == (
        "rolled",
        4,
        True,
        True,
    )
    assert len(k_loop.remainder_loops) == 1
    asm = [e for e in entries if e.line in (28, 35)]
    assert asm and all(not e.statement for e in asm)
    assert not set(k_loop.sass_loops) & {i for e in asm for i in e.sass_loops}
    # Each asm loop names the call of its helper (tma_load at lines 75 and 76, wait_phase at 78)
    sites = {(e.line, tuple(c.line for c in e.inlined_at)) for e in asm}
    assert sites == {(28, (75,)), (28, (76,)), (35, (78,))}


@pytest.mark.compile
def test_check_prints_alike_schedule_rows_once_with_their_count() -> None:
    """Ten inline-asm TMA loops with one schedule, five at each of the two calls of tma_load,
    read as one row per call site that says so, not ten."""
    from click.testing import CliRunner

    from sassview.views.cli import cli

    path = Path(__file__).parents[1] / "examples" / "matmul" / "05_wgmma_tma.cu"
    done = CliRunner().invoke(cli, ["check", str(path), "--arch", "sm_90a"])
    assert done.exit_code == 0, done.output
    rows = [r for r in done.output.splitlines() if r.startswith("  schedule       line 28 (")]
    assert len(rows) == 2 and all(r.endswith("(x5 loops alike)") for r in rows), rows


# --- the Python frontends (triton_loops.py, cute_loops.py; record_python.py) -----------------

PY = DATA / "python"
PY_SHAPES = DATA / "python_shapes"  # triton_shapes.py, cute_shapes.py: test_loops_python_shapes
PY_LABELS = json.loads((DATA / "labels_python.json").read_text())["loops"]
_PY_SOURCES = {
    "tr_": "triton_loops.py",
    "cu_": "cute_loops.py",
    "ts_": "triton_shapes.py",
    "cs_": "cute_shapes.py",
}


def python_source(kernel: str) -> Path:
    return DATA / _PY_SOURCES[kernel[:3]]


@cache
def python_marks(kernel: str) -> dict[str, int]:
    """`# @name` -> line, in the kernel's source."""
    found = {}
    for number, line in enumerate(python_source(kernel).read_text().splitlines(), 1):
        m = re.search(r"# @(\w+)", line)
        if m:
            found[m.group(1)] = number
    return found


@cache
def python_program(stem: str) -> Program:
    """A recorded Python compile, its source given beside the listing."""
    kernel = stem.split(".")[0]
    where = PY_SHAPES if (PY_SHAPES / f"{stem}.cubin").is_file() else PY
    return python_recording(where / stem, python_source(kernel))


def python_entries(stem: str) -> tuple[LoopEntry, ...]:
    p = python_program(stem)
    (k,) = p.kernels
    found: tuple[LoopEntry, ...] = inspect_kernel(p, k).facts("unroll")["entries"]
    return found


def python_stems() -> list[str]:
    """Every recorded Python compile: this corpus' and the shapes corpus'."""
    found = [*PY.glob("*.cubin"), *PY_SHAPES.glob("*.cubin")]
    return sorted(p.name.removesuffix(".cubin") for p in found)


def python_label_cases() -> list[Any]:
    return [
        pytest.param(stem, row, id=f"{stem}-{row['loop']}")
        for row in PY_LABELS
        for stem in python_stems()
        if stem.split(".")[0] == row["kernel"]
    ]


@pytest.mark.parametrize(("stem", "row"), python_label_cases())
def test_each_python_label_holds(stem: str, row: dict[str, Any]) -> None:
    at = python_marks(row["kernel"])
    want = (at[row["loop"]], tuple(at[m] for m in row.get("at", [])))
    here = [
        e
        for e in python_entries(stem)
        if e.statement and (e.line, tuple(c.line for c in e.inlined_at)) == want
    ]
    assert len(here) == 1, f"{row['loop']}: {len(here)} entries"
    assert {k: getattr(here[0], k) for k in row["label"]} == row["label"]


@pytest.mark.parametrize("stem", python_stems())
def test_every_python_loop_with_code_in_the_sass_has_an_entry(stem: str) -> None:
    """The census over each recorded Python listing: one entry per loop statement (per inline
    context) with code of its body in the SASS, and none at a line that is no loop statement
    (the DSL's control at `def` and decorator lines, a setmaxregister_increase call)."""
    from sassview.parse.python_loops import python_source_loops

    kernel = stem.split(".")[0]
    statements = python_source_loops(python_source(kernel).read_text())
    lines = {s.line for s in statements}
    found = [e for e in python_entries(stem) if e.statement]
    have = {(e.line, tuple(c.line for c in e.inlined_at)) for e in found}
    assert len(have) == len(found), "one entry per statement and context"
    assert {e.line for e in found} <= lines
    need = set()
    (k,) = python_program(stem).kernels
    for ins in k.instructions:
        frames = list(ins.source.frames()) if ins.source else []
        for j, fr in enumerate(frames):
            if Path(fr.file).name != python_source(kernel).name:
                continue
            for s in statements:
                if s.span[0] < fr.line <= s.span[1]:
                    need.add((s.line, tuple(f.line for f in frames[j + 1 :])))
    assert need <= have, f"no entry for {sorted(need - have)}"


def test_python_requests_are_read_off_each_range_call() -> None:
    from sassview.parse.python_loops import python_source_loops

    source = "\n".join(
        [
            "for i in tl.range(0, n, loop_unroll_factor=4):",
            "    for j in tl.static_range(3):",
            "        pass",
            "for i in cutlass.range(n):",
            "    for j in cutlass.range(4, unroll_full=True):",
            "        pass",
            "for i in cutlass.range_constexpr(k):",
            "    pass",
            "for i in cutlass.range(n, unroll_full=True):",
            "    pass",
            "for i in range(0, 16, 4):",
            "    pass",
        ]
    )
    got = [
        (s.line, s.requested, s.requested_by, s.static, s.parent, s.trip_count, s.step)
        for s in python_source_loops(source)
    ]
    assert got == [
        (1, 4, "loop_unroll_factor", False, None, None, 1),
        (2, "full", "static_range", True, 0, 3, 1),
        (4, None, "pragma", False, None, None, 1),
        (5, "full", "range", True, 2, 4, 1),  # constant bounds: NVVM unrolls it for sure
        (7, "full", "range_constexpr", True, None, None, 1),
        (9, "full", "range", False, None, None, 1),  # a runtime count: it may stay rolled
        (11, None, "pragma", False, None, 4, 4),
    ]


def test_unroll_full_below_a_runtime_loop_is_no_false_warning() -> None:
    """Issue #17 class 6: the SASS loop of `for i in cutlass.range(m)` was read as the loop of
    the `unroll_full=True` statement one line below it ("asked full, a loop remains")."""
    for stem in ("cu_nest.sm_80", "cu_nest.sm_90a"):
        p = python_program(stem)
        (k,) = p.kernels
        notes = inspect_kernel(p, k).annotations
        assert not [a for a in notes if a.kind == "unroll" and a.severity > Severity.INFO]
        words = [e.summary() for e in python_entries(stem)]
        outer, inner = python_marks("cu_nest")["cn_outer"], python_marks("cu_nest")["cn_inner"]
        assert words == [
            f"line {outer}: unrolled by 4, with a straight-line remainder [counted in the SASS]",
            f"line {inner}: fully unrolled (4 copies, no loop left) (asked: unroll_full=True) "
            "[from the trip count]",
        ]


def test_a_triton_request_met_before_ptxas_unrolled_more_is_no_warning() -> None:
    (e,) = python_entries("tr_unroll.sm_80")
    assert e.summary().endswith(
        "unrolled by 16 (x4 by Triton, then x4 by ptxas), with a remainder loop "
        "(asked: loop_unroll_factor=4) [counted in the SASS]"
    )
    p = python_program("tr_unroll.sm_80")
    notes = inspect_kernel(p, p.kernels[0]).annotations
    assert not [a for a in notes if a.kind == "unroll" and a.severity > Severity.INFO]


def test_a_constant_loop_rolled_on_one_arch_and_unrolled_on_another_is_a_finding() -> None:
    """ptxas copies out the 8-trip kk loops for sm_80 and keeps them rolled on sm_90a: each
    arch's census alone reads 'not unrolled' or 'fully unrolled'; across the archs of one
    check it is a note."""
    from sassview.analyses.loops.across import arch_differences
    from sassview.views.render import arch_notes

    runs = [(a, k, entries(a, k)) for a in ARCHS for k in ("sgemm_tile", "kloop_helper", "pragmas")]
    found = arch_differences(runs)
    sg, kh = marks()["sg_kk"][1], marks()["kh_kk"][1]
    assert [(d.kernel, d.entry.line) for d in found] == [("sgemm_tile", sg), ("kloop_helper", kh)]
    assert found[0].message == (
        f"loop at line {sg}: 8 iterations known at compile time, rolled on sm_90a (not "
        "unrolled), fully unrolled on sm_80 (8 copies)"
    )
    assert "#pragma unroll asks for full unrolling on every one" in found[0].hint
    assert arch_notes(found[:1])[0].startswith("note: across sm_80, sm_90a · sgemm_tile: loop at")
    assert arch_differences([r for r in runs if r[0] == "sm_80"]) == []  # nothing to compare
    # Two variants of one arch that differ are no difference of architectures.
    both = [("sm_80", "sgemm_tile", entries(a, "sgemm_tile")) for a in ARCHS]
    assert arch_differences(both) == []


@pytest.mark.compile
def test_check_json_lists_the_loops_that_differ_across_its_archs() -> None:
    from click.testing import CliRunner

    from sassview.views.cli import cli

    args = ["check", str(DATA / "census.cu"), "--arch", "sm_80", "--arch", "sm_90a", "--json"]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    across = json.loads(done.output)["loops_across_archs"]
    assert [(d["kernel"], d["source_line"]) for d in across] == [  # in source order
        ("sgemm_tile", marks()["sg_kk"][1]),
        ("kloop_helper", marks()["kh_kk"][1]),
    ]
    helper = across[1]
    assert helper["rolled"] == [{"arch": "sm_90a", "factor": 1}]
    assert helper["unrolled"] == [{"arch": "sm_80", "copies": 8}]


@pytest.mark.compile
def test_python_labels_hold_on_a_live_compile() -> None:
    """The Triton kernels compiled now for sm_90a (the CuTe DSL's in the recordings only: its
    compiles are slower): a toolchain that changes their code shows here."""
    pytest.importorskip("triton")
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("loops_triton_live", DATA / "triton_loops.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    from sassview.build import build_program
    from sassview.frontends.triton import compile_triton
    from sassview.inspection import inspect_program

    wrong = []
    for row in (r for r in PY_LABELS if r["kernel"].startswith("tr_")):
        signature, constexprs = module.BUILDS[row["kernel"]]
        fn = getattr(module, row["kernel"])
        art = compile_triton(fn, signature=signature, constexprs=constexprs, arch="sm_90a")
        (insp,) = inspect_program(build_program(art))
        at = python_marks(row["kernel"])
        want = (at[row["loop"]], tuple(at[m] for m in row.get("at", [])))
        here = [
            e
            for e in insp.facts("unroll")["entries"]
            if e.statement and (e.line, tuple(c.line for c in e.inlined_at)) == want
        ]
        if len(here) != 1 or {k: getattr(here[0], k) for k in row["label"]} != row["label"]:
            wrong.append(row["loop"])
    assert not wrong


def test_the_files_included_ahead_of_the_source_are_read_for_constants() -> None:
    # nvcc's form and NVRTC's: --include-before and --included-by's includer context
    from sassview.analyses.loops.files import pre_included

    options = ["-I/x", "-include", "/a/ctx.h", "--pre-include=/b/ctx.h", "-include"]
    assert pre_included(options) == [Path("/a/ctx.h"), Path("/b/ctx.h")]
