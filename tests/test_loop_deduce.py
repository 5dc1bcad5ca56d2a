"""The loop census on device templates whose arguments the compiler deduces from the call,
tests/data/loops/deduce.cu and deduce.cuh: `outer_acc(acc, a, b)` for
`template <int TM, int TN> void outer_acc(float (&acc)[TM][TN], ...)` with `float acc[BM][4]`
in a kernel template, a shared array's rows (`const float (&As)[BK][64]`), a 1-D register array
at two call sites, a step written and a length deduced (`scale_every<2>(v, s)`), a row of a
tile passed on (`store_row(acc[m], ...)`), tags (`Int<3>{}`, `cuda::std::integral_constant`), a
config object by value (`Cfg cfg` with `Cfg::TM`), and a struct template by pointer, by
reference and through a type parameter (`Frag<M, N>*`, `const Frag<M, N>&`, `F& f` with
`F::ROWS`). Each helper's loops read their bounds from what the call's arguments deduce
(sassview/parse/cxx_deduce.py, analyses/loops/files.py `_arguments`): the copies are the trip
counts, and no rolled build is asked.

And a header loop on the same line number as its call (`scale_col<4>` on line 12 of deduce.cu,
its loop on line 12 of deduce.cuh): ptxas' line table starts no row for it, and the census
places it by the PTX's `.loc` (analyses/loops/listing.py `chained_sources`).

The listings were recorded by tests/data/loops/record_deduce.py (NVRTC, sm_80 and sm_90a); the
labels in labels_deduce.json were read from deduce.<arch>.sass.txt by hand. These tests need
nvdisasm only, but those marked `compile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.deduce_corpus import ARCHS, ASKED, CORPUS, marks, program

import sassview
from sassview.analyses.loops import rolled
from sassview.analyses.loops.listing import chained_sources
from sassview.inspection import inspect_kernel


@pytest.fixture(autouse=True, scope="module")
def _recorded_builds() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", CORPUS.recorded_variant)
        yield


@pytest.mark.parametrize(("arch", "row"), CORPUS.label_params())
def test_each_label_holds(arch: str, row: dict[str, Any]) -> None:
    """One entry at the loop's line in its inline context, and it says what the SASS holds."""
    entries = list(CORPUS.inspection(arch, row["kernel"]).facts("unroll")["entries"])
    assert CORPUS.holds(entries, row, arch), (row["why"], [e.tag() for e in entries])


def test_every_loop_with_code_is_labelled() -> None:
    """Each entry of each kernel (but the gone ones) is a labelled row."""
    assert not CORPUS.unlabelled()


def test_the_copies_are_the_deduced_trip_counts() -> None:
    """Every full entry's copies are its trip count at that call site (sum_sq's one statement
    at two sites, N = 6 and 4), and no rolled build was needed to say so."""
    for arch in ARCHS:
        for _, e in CORPUS.entries(arch):
            if e.kind == "full":
                assert e.trip_count == e.copies and e.decided_by == "count", e.tag()
    assert not ASKED


@pytest.mark.parametrize("arch", ARCHS)
def test_ptxas_gives_the_header_loop_the_calls_line(arch: str) -> None:
    """The shape stays a repro: scale_col's loop and its call are both on line 12, and the
    recorded line table gives the loop's loads the call's place (deduce.cu:12, no inline
    chain); the PTX they came from names deduce.cuh:12 inlined at deduce.cu:12."""
    assert marks()["sc_r"][1] == marks()["sl_call"][1]
    k = program(arch).kernel("same_line")
    loads = [n for n, i in enumerate(k.instructions) if i.opcode == "LDG"]
    chained = chained_sources(k)
    assert loads
    for n in loads:
        raw, placed = k.instructions[n].source, chained[n]
        assert raw is not None and placed is not None
        assert (Path(raw.file).name, raw.line, raw.inlined_at) == ("deduce.cu", 12, None)
        sites = [(Path(f.file).name, f.line) for f in placed.frames()]
        assert sites == [("deduce.cuh", 12), ("deduce.cu", 12)]


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_the_live_compile_is_the_recorded_one(arch: str) -> None:
    """Compiled again, with the rolled builds live: every label still holds."""
    assert not CORPUS.live_wrong(arch)


SAME_LINE_HEADER = """#pragma once
template <int N>
__device__ __forceinline__ void copy_n(float* d, const float* s) {
  for (int i = 0; i < N; ++i) d[i * 32] = s[i * 32] * 2.f;
}
"""
SAME_LINE_SOURCE = """#include "same.cuh"
__global__ void same(const float* s, float* d) {
  const int t = threadIdx.x;
  copy_n<4>(d + t, s + t);
}
"""
SAME_LINE_PY = '''import sassview as sv
sv.cuda(r"""#include "same.cuh"
__global__ void same(const float* s, float* d) {
  copy_n<4>(d + threadIdx.x, s + threadIdx.x);
}
""", arch="sm_80")
'''


@pytest.mark.compile
@pytest.mark.parametrize("compiler", ["nvrtc", "nvcc"])
def test_a_header_loop_on_its_calls_line_number_has_its_copies(
    tmp_path: Path, compiler: str
) -> None:
    """copy_n's loop on line 4 of same.cuh, its call on line 4 of same.cu (SASS, sm_80: 4 LDG,
    4 FADD, 4 STG, no branch, all of it at same.cu:4 in ptxas' line table): one entry, 4
    copies, by either compiler. Before, NVRTC's census had no entry there at all."""
    (tmp_path / "same.cuh").write_text(SAME_LINE_HEADER)
    (tmp_path / "same.cu").write_text(SAME_LINE_SOURCE)
    real = sassview.compile(path=tmp_path / "same.cu", arch="sm_80", compiler=compiler)
    entries = inspect_kernel(real, real.kernel("same")).facts("unroll")["entries"]
    got = [(Path(e.file or "").name, e.line, e.kind, e.copies) for e in entries]
    assert got == [("same.cuh", 4, "full", 4)]
    assert [(Path(c.file).name, c.line) for c in entries[0].inlined_at] == [("same.cu", 4)]


@pytest.mark.compile
def test_a_header_loop_on_its_calls_line_number_in_a_kernel_py(tmp_path: Path) -> None:
    """The same in C++ held in a kernel.py: the call on line 4 of kernel.py (the string's
    `#line`), copy_n's loop on line 4 of same.cuh."""
    (tmp_path / "same.cuh").write_text(SAME_LINE_HEADER)
    (tmp_path / "kernel.py").write_text(SAME_LINE_PY)
    (real,) = sassview.load(tmp_path / "kernel.py")
    entries = inspect_kernel(real, real.kernel("same")).facts("unroll")["entries"]
    got = [(Path(e.file or "").name, e.line, e.kind, e.copies) for e in entries]
    assert got == [("same.cuh", 4, "full", 4)]
    assert [(Path(c.file).name, c.line) for c in entries[0].inlined_at] == [("kernel.py", 4)]


TWO_CALLS = """template <int N>
__device__ __forceinline__ float sum_sq(const float (&x)[N]) {
  float s = 0.f;
  for (int i = 0; i < N; ++i) s = fmaf(x[i], x[i], s);
  return s;
}
__device__ __forceinline__ float sum4(const float* a) {
  float s = 0.f;
  for (int i = 0; i < 4; ++i) s += a[i * 32];
  return s;
}
__global__ void two(const float* in, float* out) {
  float r[6], q[4];
  for (int i = 0; i < 6; ++i) r[i] = in[i * 32 + threadIdx.x];
  for (int i = 0; i < 4; ++i) q[i] = in[i * 64 + 4096 + threadIdx.x];
  out[threadIdx.x] = sum_sq(r) + sum_sq(q);
  out[64 + threadIdx.x] = sum4(in) + sum4(in + 1024);
}
"""


@pytest.mark.compile
def test_two_calls_on_one_line_are_not_counted_as_one(tmp_path: Path) -> None:
    """`sum_sq(r) + sum_sq(q)` (N = 6 and 4): the line table and the PTX's `.loc` give both
    calls' 10 FFMA one inline context (NVRTC writes the statement's column for both), which
    read "10 copies" (counted, then settled alike by the rolled build). Now no count: copies
    unknown. sum4's constant 4 is each call's, and stands."""
    (tmp_path / "two.cu").write_text(TWO_CALLS)
    real = sassview.compile(path=tmp_path / "two.cu", arch="sm_80")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", rolled._compile)
        entries = inspect_kernel(real, real.kernel("two")).facts("unroll")["entries"]
    got = {e.line: (e.kind, e.copies) for e in entries if e.inlined_at}
    assert got == {4: ("full", None), 9: ("full", 4)}
