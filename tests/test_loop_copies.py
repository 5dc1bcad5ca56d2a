"""How many copies of a loop body the compilers made, on the labelled corpus of
tests/data/loops/copies.cu (register tiles, vector copies, two of a pattern per iteration).

The listings were recorded by tests/data/loops/record_copies.py (NVRTC, sm_80 and sm_90a):
the real build, whose SASS the labels in labels_copies.json were read from by hand, and the
two rolled builds the census asks where its counting cannot decide (loops/rolled.py), read
here from helpers/copies_corpus.py (which the accuracy benchmark reads too). The census reads
the recorded rolled builds here through `rolled.build_variant`; these tests need nvdisasm
only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from helpers.copies_corpus import (
    ARCHS,
    DATA,
    LABELS,
    SOURCE,
    marks,
    program,
    recorded_variant,
)

import sassview
from sassview.analyses.loops import rolled
from sassview.analyses.loops.entry import LoopEntry
from sassview.inspection import Inspection, inspect_kernel
from sassview.ir import Artifacts
from sassview.parse.rolled_source import ROLL, rolled_source
from sassview.parse.source_loops import source_loops


@pytest.fixture(autouse=True, scope="module")
def _recorded_builds() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", recorded_variant)
        yield


@cache
def inspection(arch: str, kernel: str) -> Inspection:
    p = program(arch)
    return inspect_kernel(p, p.kernel(kernel))


def find(arch: str, kernel: str, loop: str, at: list[str]) -> LoopEntry:
    want = (marks()[loop], tuple(marks()[m] for m in at))
    here = [
        e
        for e in inspection(arch, kernel).facts("unroll")["entries"]
        if e.statement
        and e.file
        and e.line
        and ((Path(e.file).name, e.line), tuple((Path(c.file).name, c.line) for c in e.inlined_at))
        == want
    ]
    assert len(here) == 1, f"{loop} at {at}: {len(here)} entries"
    return here[0]


@pytest.mark.parametrize(
    ("arch", "row"),
    [
        pytest.param(a, r, id=f"{a}-{r['kernel']}-{r['loop']}-{'-'.join(r.get('at', []))}")
        for a in ARCHS
        for r in LABELS
    ],
)
def test_each_label_holds(arch: str, row: dict[str, Any]) -> None:
    label = row.get(arch, row["label"])
    e = find(arch, row["kernel"], row["loop"], row.get("at", []))
    assert {k: getattr(e, k) for k in label} == label, row["why"]


def _tag(label: dict[str, Any]) -> str:
    """A label in the words of `LoopEntry.tag` (the `before` column of labels_copies.json)."""
    if label["kind"] == "full":
        return f"full x{label['copies']}"
    return f"x{label['factor']}" + ("+rem" if label["remainder"] else "")


def test_every_entry_the_counting_had_wrong_or_unknown_is_the_rolled_builds() -> None:
    """`before` is what the census said before the rolled builds (from its parent commit):
    each entry it had wrong or unknown is now settled by them, and what is still the count's
    was right. Entries counted right over memory wider than a word (8 floats in 2 LDS.128)
    are asked too, and the builds agree."""
    settled = 0
    for arch in ARCHS:
        for row in LABELS:
            e = find(arch, row["kernel"], row["loop"], row.get("at", []))
            was_right = row["before"] == _tag(row["label"])
            settled += e.decided_by == rolled.DECIDED_BY
            # a count that was wrong is now either the builds' or a trip count read from the
            # constants the compiler saw (loops/files.py): right either way (the labels' test)
            assert e.decided_by in ("count", rolled.DECIDED_BY), (arch, row["loop"])
            label = row.get(arch, row["label"])
            assert was_right or {k: getattr(e, k) for k in label} == label, (arch, row["loop"])
    # sum_f4, the int4 and float4-row loops, the softmax; sgemm_flat's tile_step<8, 64, 64,
    # 4, 4> loops are their call site's trip counts now (files.py `loop_at`), never asked
    assert settled >= 8


def test_no_rolled_build_leaves_the_counts_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no rolled build compiles (no evidence) the census counts as before: the run-time
    int4 copy loop still reads x4, the two-expf loop x2; nothing is the rolled build's. (The
    float4 copy loop of a constant 4 trips is now the trip count's: 4, not 16.)"""
    monkeypatch.setattr(rolled, "build_variant", lambda art, parity, flips: None)
    p = program("sm_80")
    for kernel, loop, tag in (
        ("copy_i4_stride", "cv_i4", "x4 [counted]"),
        ("online_softmax", "os_i", "x2 [counted]"),
    ):
        entries = inspect_kernel(p, p.kernel(kernel)).facts("unroll")["entries"]
        (e,) = [x for x in entries if x.line == marks()[loop][1]]
        assert (e.tag().split(" ", 1)[1], e.decided_by) == (tag, "count")


def test_builds_of_the_wrong_parity_give_no_copies_the_real_build_refutes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each build handed as the other (the levels it left as written read as rolled, and the
    other way round): every full loop's copies they would give must pass the real build's
    check, and none that passes contradicts its label. (A rolled loop's factor trusts the
    build to have rolled it: no such check, see docs/analyses.md.)"""
    swapped = lambda art, parity, flips: recorded_variant(art, 1 - parity, flips)  # noqa: E731
    monkeypatch.setattr(rolled, "build_variant", swapped)
    p = program("sm_80")
    settled = 0
    for row in (r for r in LABELS if r["label"]["kind"] == "full"):
        entries = inspect_kernel(p, p.kernel(row["kernel"])).facts("unroll")["entries"]
        at = tuple(marks()[m][1] for m in row.get("at", []))
        (e,) = [
            x
            for x in entries
            if x.line == marks()[row["loop"]][1] and tuple(c.line for c in x.inlined_at) == at
        ]
        if e.decided_by == rolled.DECIDED_BY:
            settled += 1
            assert {k: getattr(e, k) for k in row["label"]} == row["label"], row["loop"]
    assert settled < sum(1 for r in LABELS if r["label"]["kind"] == "full")


def test_json_says_which_claims_the_rolled_build_made() -> None:
    from sassview.report.summary import kernel_summary

    loops = kernel_summary(inspection("sm_80", "sum_f4"))["analysis"]["loops"]
    (sf,) = [d for d in loops if d["source_line"] == marks()["sf4_i"][1]]
    assert (sf["factor"], sf["decided_by"]) == (4, "rolled build")
    loops = kernel_summary(inspection("sm_80", "two_exp"))["analysis"]["loops"]
    assert [d["decided_by"] for d in loops] == ["count"]


# --- the rolled source ------------------------------------------------------------------------


def test_rolled_source_keeps_every_line_and_rolls_each_loop_on_its_own_line() -> None:
    text = SOURCE.read_text()
    out = rolled_source(text)
    assert out.count("\n") == text.count("\n")
    loops = source_loops(text)
    assert out.count(ROLL) == len(loops)
    lines = out.split("\n")
    assert all(
        ROLL + "for" in lines[s.line - 1] or ROLL + "while" in lines[s.line - 1] for s in loops
    )
    assert [s.line for s in source_loops(out)] == [s.line for s in loops]


def test_rolled_source_by_parity_rolls_one_level_in_two_and_blanks_only_their_pragmas() -> None:
    text = (
        "__global__ void k(float* a) {\n"
        "#pragma unroll\n"
        "  for (int i = 0; i < 4; ++i) {\n"
        "#pragma unroll 2\n"
        "    for (int j = 0; j < 4; ++j) a[i * 4 + j] = 0;\n"
        "  }\n"
        "}\n"
    )
    odd = rolled_source(text, 1).split("\n")
    assert odd[1].strip() == "" and odd[2].startswith("  " + ROLL + "for")
    assert odd[3] == "#pragma unroll 2" and ROLL not in odd[4]
    even = rolled_source(text, 0).split("\n")
    assert even[1] == "#pragma unroll" and ROLL not in even[2]
    assert even[3].strip() == "" and ROLL + "for (int j" in even[4]
    assert [len(x) for x in rolled_source(text).split("\n")][:2] == [
        len(x) for x in text.split("\n")
    ][:2]


def test_a_header_called_in_a_loop_of_its_own_depth_is_rolled_a_level_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sgemm_flat calls tile_step, whose k loop is at depth 1 of copies.cuh, inside the depth-1
    K loop: the builds count the header's depths one more, so the loop around each level is
    rolled where the level is not. sgemm_cfg's micro-kernel sits in a depth-2 loop: as is.
    (The tiles' copies are their trip counts now, and no build is asked of them: every full
    entry is held open here, so that the builds' flips show.)"""
    from sassview.analyses.loops import census

    asked: list[tuple[int, tuple[tuple[str, int], ...]]] = []

    def builder(art: Artifacts, parity: int, flips: Mapping[str, int]) -> Artifacts | None:
        asked.append((parity, tuple(sorted((Path(f).name, d) for f, d in flips.items()))))
        return recorded_variant(art, parity, flips)

    def every_full(real: Any, keys: Any, *rest: Any) -> list[Any]:
        return [k for k in keys if k not in real.groups]

    monkeypatch.setattr(rolled, "build_variant", builder)
    monkeypatch.setattr(census, "open_entries", every_full)
    p = program("sm_90a")
    header = (("copies.cuh", 1),)  # by name: the recordings name the tree they were made in
    for kernel, want in (("sgemm_flat", header), ("sgemm_cfg<TileCfg>", ())):
        asked.clear()
        inspect_kernel(p, p.kernel(kernel))
        assert {f for _, f in asked} == {want}, kernel


LIVE_HEADER = """#pragma once
__device__ constexpr unsigned four() { return 4; }  // a bound no constant reading evaluates
__device__ __forceinline__ void copy4(float4* d, const float4* s, unsigned n) {
  for (unsigned v = 0; v < four(); ++v) d[v * n] = s[v * n];
}
"""
LIVE_SOURCE = """#include "live.cuh"
typedef unsigned int uint;  // a header the census cannot count: the copies are the builds'
__global__ void live(const float4* __restrict__ s, float4* __restrict__ d) {
  copy4(d + threadIdx.x, s + threadIdx.x, blockDim.x);
  for (uint v = 4; v < 4 + four(); ++v) d[v * blockDim.x + threadIdx.x] = s[v * blockDim.x];
}
"""


@pytest.mark.compile
def test_a_live_rolled_build_rolls_the_header_under_its_own_path(tmp_path: Path) -> None:
    """NVRTC is handed the rolled header in memory and compiles from the source's directory:
    the PTX names the header by its own path, both loops are SASS loops of one float4 copy a
    trip; the census of the real build asks the builds and says 4 copies, not 16."""
    from sassview.build import build_program
    from sassview.frontends.cuda_rolled import rolled_build

    (tmp_path / "live.cuh").write_text(LIVE_HEADER)
    (tmp_path / "live.cu").write_text(LIVE_SOURCE)
    real = sassview.compile(path=tmp_path / "live.cu", arch="sm_80")
    built = rolled_build(real.artifacts, 1)
    assert built is not None and built.ptx is not None
    assert f'"{tmp_path / "live.cuh"}"' in built.ptx
    assert built.ptx.count('.pragma "nounroll"') == 2
    (kernel,) = build_program(built).kernels
    assert [i.opcode for i in kernel.instructions].count("LDG") == 2
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", rolled._compile)
        entries = inspect_kernel(real, real.kernel("live")).facts("unroll")["entries"]
    (mine,) = [e for e in entries if e.line == 5]
    assert (mine.kind, mine.copies, mine.decided_by) == ("full", 4, rolled.DECIDED_BY)


KERNEL_PY = '''import sassview as sv

sv.cuda(r"""#include "live.cuh"
typedef unsigned int uint;
__global__ void held(const float4* __restrict__ s, float4* __restrict__ d) {
  copy4(d + threadIdx.x, s + threadIdx.x, blockDim.x);
  for (uint v = 4; v < 4 + four(); ++v) d[v * blockDim.x + threadIdx.x] = s[v * blockDim.x];
}
""", arch="sm_80")
'''


@pytest.mark.compile
def test_cxx_held_in_a_kernel_py_gets_its_rolled_builds(tmp_path: Path) -> None:
    """The string's C++ is rolled at its own lines of the kernel file and compiled under a
    `#line` naming it, its header beside it rolled too. SASS (sm_80, nvrtc 13.5): line 7 is 4
    LDG.E.128 and 4 STG.E.128 and no branch back, line 4 of live.cuh inlined at line 6 the
    same: both fully unrolled, 4 copies of one float4 copy each, where the count of words
    read 16."""
    from sassview.frontends.cuda_rolled import rolled_build

    (tmp_path / "live.cuh").write_text(LIVE_HEADER)
    (tmp_path / "kernel.py").write_text(KERNEL_PY)
    (real,) = sassview.load(tmp_path / "kernel.py")
    built = rolled_build(real.artifacts, None)
    assert built is not None and built.ptx is not None
    assert f'"{tmp_path / "kernel.py"}"' in built.ptx and f'"{tmp_path / "live.cuh"}"' in built.ptx
    assert built.ptx.count('.pragma "nounroll"') == 2
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", rolled._compile)
        entries = inspect_kernel(real, real.kernel("held")).facts("unroll")["entries"]
    got = {(Path(e.file or "").name, e.line): (e.kind, e.copies, e.decided_by) for e in entries}
    assert got == {
        ("kernel.py", 7): ("full", 4, rolled.DECIDED_BY),
        ("live.cuh", 4): ("full", 4, rolled.DECIDED_BY),
    }


TWO_STRINGS_PY = '''import sassview as sv

sv.cuda(r"""#include "live.cuh"
__global__ void held(const float4* __restrict__ s, float4* __restrict__ d) {
  for (unsigned v = 0; v < four(); ++v) d[v * blockDim.x + threadIdx.x] = s[v * blockDim.x];
}
""", name="first", arch="sm_80")

sv.cuda(r"""#include "live.cuh"
__global__ void held(const float4* __restrict__ s, float4* __restrict__ d) {
  for (unsigned v = 0; v < four(); ++v) {
    d[v * blockDim.x + threadIdx.x] = s[v * blockDim.x];
    d[v * blockDim.x + threadIdx.x + 7] = s[v * blockDim.x + 3];
  }
}
""", name="second", arch="sm_80")
'''


@pytest.mark.compile
def test_two_strings_of_one_kernel_py_each_get_their_own_rolled_builds(tmp_path: Path) -> None:
    """Two strings of one kernel file, their kernels of one name: the same kernel file, options
    and headers, their C++ apart. SASS (sm_80, nvrtc 13.5): the second's lines 12 and 13 are 4
    LDG.E.128 and 4 STG.E.128 each and no branch back, 4 copies; measured on the first
    string's rolled builds its lines are not there, and it was unknown."""
    (tmp_path / "live.cuh").write_text(LIVE_HEADER)
    (tmp_path / "kernel.py").write_text(TWO_STRINGS_PY)
    got = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", rolled._compile)
        for real in sassview.load(tmp_path / "kernel.py"):
            for e in inspect_kernel(real, real.kernel("held")).facts("unroll")["entries"]:
                got[e.line] = (e.kind, e.copies, e.decided_by)
    assert got == {5: ("full", 4, rolled.DECIDED_BY), 11: ("full", 4, rolled.DECIDED_BY)}


@pytest.mark.parametrize("arch", ARCHS)
def test_a_cubin_given_as_it_is_says_unknown_where_counting_cannot_decide(arch: str) -> None:
    """The corpus' cubin read as a user's cubin (no source compiled here, no rolled build to
    ask: analyses/unroll.py reads it by line). A factor above 1 with no remainder loop is
    unknown: the labels say one iteration a trip for the int4 copy (read x4 from its words),
    the float4 rows (x4), the online softmax (a max and a sum shuffle, x2) and the rolled K
    loops (x3 to x128), 4 for sum_f4's inner loop (x16); the two-expf and two-array loops
    stay x1, as labelled."""
    cubin = DATA / f"copies.{arch}.cubin"
    given = sassview.from_artifacts(
        Artifacts(kind="cubin", arch="", source_path=str(cubin), cubin=cubin.read_bytes())
    )
    by_line = {}
    for kernel in given.kernels:
        for e in inspect_kernel(given, kernel).facts("unroll")["entries"]:
            assert e.factor is None or e.factor == 1 or e.remainder, (kernel.name, e.line)
            by_line[(kernel.name, e.line)] = e.factor
    names = ("cv_i4", "cv_rows", "os_i", "sf4_i", "te_i", "dt_i")
    line = {name: marks()[name][1] for name in names}
    named = {k.split("(")[0]: n for k, n in ((k.display_name, k.name) for k in given.kernels)}
    assert by_line[(named["copy_i4_stride"], line["cv_i4"])] is None
    assert by_line[(named["scale_f4_rows"], line["cv_rows"])] is None
    assert by_line[(named["online_softmax"], line["os_i"])] is None
    assert by_line[(named["sum_f4"], line["sf4_i"])] is None
    assert (
        by_line[(named["two_exp"], line["te_i"])] == by_line[(named["dot_two"], line["dt_i"])] == 1
    )


def test_a_claim_the_rolled_build_made_says_so_in_every_view() -> None:
    """sum_f4's float4 loop is the rolled build's (above): check's row and the JSON summary,
    the TUI header's tag and loop label, and the exports' loop table say "asked the compiler"
    where the counted claims say "counted in the SASS" (entry.decided, written once)."""
    from sassview import export
    from sassview.analyses.loops.entry import decided, decided_verdict
    from sassview.report.summary import kernel_summary
    from sassview.tui.state import build
    from sassview.tui.widgets.header import header_text

    insp = inspection("sm_80", "sum_f4")
    (e,) = [x for x in insp.facts("unroll")["entries"] if x.line == marks()["sf4_i"][1]]
    assert e.decided_by == rolled.DECIDED_BY and decided(e) == "asked the compiler"
    (row,) = [
        d["summary"]
        for d in kernel_summary(insp)["analysis"]["loops"]
        if d["source_line"] == e.line
    ]
    assert row == e.summary() and row.endswith("[asked the compiler]")
    assert e.tag().endswith("[asked compiler]")
    assert e.tag() in str(header_text(build(insp, read_file=False)))
    labels = [lp.label for lp in build(insp, read_file=False).loops]
    assert any(label.endswith("[asked the compiler]") for label in labels), labels
    assert f"| {decided_verdict(e)} |" in export.render(insp, "md")
    counted = [x for x in inspection("sm_80", "two_exp").facts("unroll")["entries"]]
    assert [decided(x) for x in counted] == ["counted in the SASS"]
