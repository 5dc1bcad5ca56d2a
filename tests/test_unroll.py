"""The unroll analysis, on the kernels of tests/data/graph/loops.cu (one property each).

Live compiles are marked `compile`; the recorded cubins (tests/data/graph/loops.<arch>.cubin,
see tests/test_cfg_loops.py) give the same checks with nvdisasm only. The source scan is tested
on text alone.
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import sassview
from sassview.analyses import unroll
from sassview.analyses.base import AnalysisContext, Findings, Severity
from sassview.graph.cfg import build_cfg
from sassview.graph.loops import find_loops
from sassview.ir import Artifacts, Program
from sassview.parse.source_loops import source_loops

DATA = Path(__file__).parent / "data" / "graph"
SOURCE = DATA / "loops.cu"


def mark(name: str) -> int:
    for number, line in enumerate(SOURCE.read_text().splitlines(), 1):
        if re.search(rf"// @{name}\b", line):
            return number
    raise KeyError(name)


@cache
def _program(kind: str, arch: str) -> Program:
    if kind == "live":
        return sassview.compile(SOURCE.read_text(), arch=arch)
    artifacts = Artifacts(
        kind="cuda",
        arch=arch,
        source_text=SOURCE.read_text(),
        ptx=(DATA / f"loops.{arch}.ptx").read_text(),
        cubin=(DATA / f"loops.{arch}.cubin").read_bytes(),
    )
    return sassview.from_artifacts(artifacts)


def analyse(program: Program, kernel: str) -> Findings:
    k = program.kernel(kernel)
    cfg = build_cfg(k.instructions)
    ctx = AnalysisContext(program, k, cfg, find_loops(cfg, k.instructions), None)  # type: ignore[arg-type]
    return unroll.run(ctx)


def loops_of(program: Program, kernel: str) -> dict[int, dict[str, Any]]:
    facts = analyse(program, kernel).facts["loops"]
    by_line = {e["source_line"]: e for e in facts}
    assert len(by_line) == len(facts), "one entry per source loop"
    return by_line


PROGRAMS = [
    pytest.param(("recorded", "sm_90a"), id="recorded-sm_90a"),
    pytest.param(("recorded", "sm_120"), id="recorded-sm_120"),
    *(
        pytest.param(("live", a), id=f"live-{a}", marks=pytest.mark.compile)
        for a in ("sm_90a", "sm_80", "sm_120")
    ),
]


@pytest.fixture(params=PROGRAMS)
def program(request: pytest.FixtureRequest) -> Program:
    return _program(*request.param)


def test_pragma_unroll_4_on_a_runtime_count_gives_4_and_a_remainder_loop(program: Program) -> None:
    loop = loops_of(program, "unroll4")[mark("unroll4")]
    assert loop["achieved_factor"] == 4 and loop["requested_factor"] == 4
    assert loop["has_back_edge"] and loop["remainder"] and len(loop["remainder_loops"]) == 1
    findings = analyse(program, "unroll4")
    assert not [a for a in findings.annotations if a.severity is Severity.WARNING]
    messages = [a.message for a in findings.annotations]
    assert (
        f"loop at line {mark('unroll4')}: unrolled by 4, with a remainder loop "
        "[counted in the SASS]" in messages
    )
    at = f"loop at line {mark('unroll4')} (remainder loop): "
    (rest,) = [a for a in findings.annotations if a.message.startswith(at)]
    assert rest.loops == tuple(loop["remainder_loops"])


def test_pragma_unroll_1_keeps_the_loop_rolled(program: Program) -> None:
    loop = loops_of(program, "unroll1")[mark("unroll1")]
    assert (loop["achieved_factor"], loop["requested_factor"], loop["remainder"]) == (1, 1, False)


def test_constant_trip_count_is_fully_unrolled_into_8_copies(program: Program) -> None:
    loop = loops_of(program, "full8")[mark("full8")]
    assert not loop["has_back_edge"] and loop["achieved_factor"] == 8
    assert loop["sass_loops"] == [] and loop["requested_factor"] is None
    (note,) = analyse(program, "full8").annotations
    assert note.message == (
        f"loop at line {mark('full8')}: fully unrolled (8 copies, no loop left) "
        "[from the trip count]"
    )
    assert note.addresses and note.loops == ()


def test_full_unroll_of_a_runtime_count_warns(program: Program) -> None:
    loop = loops_of(program, "fullrt")[mark("fullrt")]
    # NVVM unrolls by 4, and by 16 for sm_100 and later: the PTX loop already holds 16 loads
    # (ptxas adds nothing; its PTX-level factor says so).
    expected = 16 if program.arch.startswith(("sm_100", "sm_120")) else 4
    assert loop["requested_factor"] == "full" and loop["has_back_edge"]
    assert loop["achieved_factor"] == expected
    assert loop["ptx_factor"] == expected
    (warning,) = [
        a for a in analyse(program, "fullrt").annotations if a.severity is Severity.WARNING
    ]
    assert "compile-time constant" in warning.hint and warning.loops == tuple(loop["sass_loops"])


def test_nested_loops(program: Program) -> None:
    loops = loops_of(program, "nested")
    outer, inner = loops[mark("outer")], loops[mark("inner")]
    assert (outer["depth"], inner["depth"]) == (1, 2)
    assert outer["achieved_factor"] == inner["achieved_factor"] == 1
    assert outer["has_back_edge"] and inner["has_back_edge"]


def test_inner_constant_loop_fully_unrolled_inside_a_rolled_loop(program: Program) -> None:
    loops = loops_of(program, "nestfull")
    rolled, unrolled = loops[mark("rolled")], loops[mark("unrolled")]
    assert rolled["achieved_factor"] == 1 and rolled["has_back_edge"]
    assert unrolled["achieved_factor"] == 4 and not unrolled["has_back_edge"]
    assert unrolled["depth"] == 2


def test_while_do_call_and_early_return_loops_are_not_unrolled(program: Program) -> None:
    for kernel, name, requested in (
        ("whileloop", "while", None),
        ("dowhile", "do", None),
        ("callsloop", "callee", 1),
        ("early", "early", 1),
        ("sw", "switch", 1),
    ):
        (loop,) = loops_of(program, kernel).values()
        assert loop["source_line"] == mark(name), kernel
        assert (loop["achieved_factor"], loop["requested_factor"]) == (1, requested), kernel
        assert loop["has_back_edge"] and loop["depth"] == 1


def test_two_loads_per_iteration_do_not_double_the_factor(program: Program) -> None:
    loop = loops_of(program, "dot2")[mark("dot2")]
    assert (loop["achieved_factor"], loop["requested_factor"]) == (2, 2)
    assert not [a for a in analyse(program, "dot2").annotations if a.severity is Severity.WARNING]


def test_a_load_shared_by_all_copies_does_not_hide_them(program: Program) -> None:
    loops = loops_of(program, "invariant")
    inner, outer = loops[mark("invinner")], loops[mark("invouter")]
    assert (inner["achieved_factor"], inner["requested_factor"]) == (32, "full")
    assert not inner["has_back_edge"] and inner["depth"] == 2
    assert outer["achieved_factor"] == 1 and outer["has_back_edge"]
    assert not [
        a for a in analyse(program, "invariant").annotations if a.severity is Severity.WARNING
    ]


def test_loop_of_an_inlined_function_is_found_at_its_own_line(program: Program) -> None:
    (loop,) = loops_of(program, "inl").values()
    assert loop["source_line"] == mark("inlined") and loop["achieved_factor"] == 1


def test_annotations_point_at_the_kernel(program: Program) -> None:
    for k in program.kernels:
        addresses = {i.address for i in k.instructions}
        findings = analyse(program, k.name)
        count = len(findings.facts["loops"])
        assert (
            len([a for a in findings.annotations if not a.message.startswith("remainder")]) >= count
        )
        for a in findings.annotations:
            assert a.kind == "unroll" and set(a.addresses) <= addresses and a.source


def test_ptx_nounroll_is_judged_against_what_ptxas_did(program: Program) -> None:
    """Without C++ source the only request is PTX `.pragma "nounroll"`, which NVVM writes after
    its own unrolling: ptxas kept the loop as it was (factor 1), while one trip still runs four
    source iterations."""
    bare = dataclasses.replace(
        program,
        artifacts=dataclasses.replace(
            program.artifacts, kind="ptx", source_text=None, source_path=None
        ),
    )
    loop = loops_of(bare, "unroll4")[mark("unroll4")]
    assert loop["requested_factor"] == 1 and loop["ptxas_factor"] == 1
    assert loop["achieved_factor"] == 4 and loop["remainder"]
    assert not [a for a in analyse(bare, "unroll4").annotations if a.severity is Severity.WARNING]
    # NVVM's marker, not the source's request (`#pragma unroll 4`): the claim says so
    assert "asked" not in loop["summary"]
    assert "(nounroll in the PTX, x4 before it)" in loop["summary"]


def test_a_bare_cubin_reads_nvvms_nounroll_as_no_request() -> None:
    """NVRTC 12.9 marks every loop it is done unrolling `.pragma "nounroll"`, and a cubin built
    with -lineinfo carries that PTX (.nv_debug_ptx_txt): read alone, census.cu's `#pragma
    unroll 4` loop, unrolled by NVVM, is no loop the source asked to keep rolled, and one
    `#pragma unroll 1` asked is no different in the PTX (tests/data/loops/census.sm_80.cubin)."""
    from sassview.frontends.files import cubin_artifacts

    cubin = (Path(__file__).parent / "data" / "loops" / "census.sm_80.cubin").read_bytes()
    bare = sassview.from_artifacts(cubin_artifacts(cubin, "census.sm_80.cubin"))
    said = {
        e["source_line"]: e["summary"]
        for name in ("bodies", "two_sites")
        for e in analyse(bare, name).facts["loops"]
    }
    assert said[103].endswith("(nounroll in the PTX, x4 before it) [counted in the SASS]")
    assert said[32].endswith("not unrolled (nounroll in the PTX) [counted in the SASS]")
    assert not any("asked" in s for s in said.values())


@pytest.mark.compile
def test_inspection_runs_the_analysis() -> None:
    from sassview.inspection import inspect_kernel

    program = _program("live", "sm_90a")
    inspection = inspect_kernel(program, program.kernel("unroll4"))
    (loop,) = inspection.facts("unroll")["loops"]
    assert loop["achieved_factor"] == 4


def test_source_scan_finds_loops_bodies_and_pragmas() -> None:
    text = """\
// for (a comment) { while (x) }
#define LOOP for (;;)
void f(int n) {
#pragma unroll 4
  for (int i = 0; i < n; ++i) {
    const char* s = "for (;;)";
#pragma unroll
    for (int j = 0;
         j < 8; ++j)
      g(j);
  }
  do {
    h();
  } while (n--);
  _Pragma("unroll 2") for (int k = 0; k < n; ++k) h();

  #pragma unroll (1)  // keep it rolled
  while (n > 0) n -= 3;
#pragma nounroll
  for (;;) { if (n) break; else continue; }
}
"""
    loops = source_loops(text)
    assert [(s.line, s.depth, s.requested) for s in loops] == [
        (5, 1, 4),
        (8, 2, "full"),
        (12, 1, None),
        (15, 1, 2),
        (18, 1, 1),
        (20, 1, 1),
    ]
    outer, inner, do, one_line, _, _ = loops
    assert inner.parent == 0 and inner.statement == {8, 9} and inner.span == (8, 10)
    assert outer.own == {6, 7, 11} and outer.span == (5, 11)  # not the inner loop's lines
    assert do.statement == {12, 14} and do.own == {13}
    assert one_line.own == frozenset() and one_line.statement == {15}


def test_pragma_naming_a_macro_reads_defines_and_options() -> None:
    from sassview.parse.source_loops import integer_macros

    text = (
        "#define TILE 8\n__global__ void k(float* p, int n) {\n#pragma unroll TILE\n"
        "  for (int i = 0; i < n; ++i) p[i] += 1;\n#pragma unroll U\n"
        "  for (int i = 0; i < n; ++i) p[i] *= 2;\n}\n"
    )
    macros = integer_macros(text, ["-DU=4", "-DNAME=notanint"])
    assert macros == {"TILE": 8, "U": 4}
    assert [s.requested for s in source_loops(text, macros)] == [8, 4]
    assert [s.requested for s in source_loops(text)] == [None, None]


def test_loop_words_and_directives_count_only_where_cpp_has_them() -> None:
    """The source scans look for their words first and check the boundaries after (faster on
    big sources): a keyword inside a name, a `#` after code and a `const` inside a name are
    not what they spell; an indented directive after blank lines still is one."""
    from sassview.parse.source_loops import integer_macros

    text = (
        "int xfor(int); int undo; int whilex;\n"  # names ending/starting with loop words
        "int a = 1; #define NOT_A_DIRECTIVE 3\n"  # a '#' after code
        "\n\t\n   #  define WIDTH 16 // indented, after blank lines\n"
        "int notconst int q = 1; static constexpr int A = 2, B = 0x10;\n"
        "void k(int n) { do_it(); for (int i = 0; i < n; ++i) xfor(i); }\n"
    )
    assert integer_macros(text) == {"WIDTH": 16, "A": 2, "B": 16}
    assert [s.line for s in source_loops(text)] == [7]


@pytest.mark.parametrize(
    ("header", "trips"),
    [
        ("int k = 0; k < BK; ++k", 8),
        ("int i = 0; i < TM; i += 4", 2),
        ("int i = 0; i <= 7; i++", 8),
        ("int i = 10; i > 0; --i", 10),
        ("int i = 9; i >= 0; i--", 10),
        ("int i = 10; i > 0; i -= 3", 4),
        ("int i = 0; i != 10; i += 2", 5),
        ("int k = 0; k < BK * 2; k += 16", 1),
        ("int i = threadIdx.x; i < n; i += blockDim.x", None),
        ("int i = 0; i < 10; i *= 2", None),  # 0 * 2 stays 0
        ("int o = 16; o > 0; o >>= 1", 5),  # a warp butterfly
        ("unsigned s = 1; s < 256; s *= 2", 8),
        ("int o = 16; o > 0; o /= 2", 5),
        ("int i = 1; i <= 64; i <<= 1", 7),
        ("int i = -8; i < 0; i /= 2", 4),  # -8, -4, -2, -1, then -1 / 2 == 0 (toward zero)
        ("int i = 1; i > 0; i <<= 1", None),  # overflows in C; here past 4096 trips
        ("int i = 0; j < 10; ++i", None),
    ],
)
def test_trip_count_of_constant_loop_headers(header: str, trips: int | None) -> None:
    from sassview.parse.source_loops import trip_count

    assert trip_count(header, {"BK": 8, "TM": 8}) == trips
