"""Trip counts from the constants the compiler saw: macros in definition order (a `-D` the
file's `#define` replaces, one an `#ifndef` lets through), config-struct members, a struct
template's members, enum values, `sizeof`, block-scoped constexpr locals, and headers with
`uint` induction variables. The recorded kernels in these shapes: tests/test_real_loops.py."""

from __future__ import annotations

import pytest

from sassview.parse.cxx_constants import bind_struct, file_constants
from sassview.parse.cxx_macros import Macros, expand_expression_macros, expression_macros
from sassview.parse.cxx_templates import template_scope
from sassview.parse.source_loops import (
    blanked,
    bound,
    constant_expression,
    integer_macros,
    source_loops,
    trip_count,
)


def _walk(text: str, options: tuple[str, ...] = ()) -> Macros:
    m = Macros(options, "sm_80")
    m.walk("k.cu", text)
    return m


def test_a_define_after_the_option_wins_and_is_an_override() -> None:
    m = _walk("#define TILE 32\n__global__ void k() {}\n", ("-DTILE=16",))
    assert m.integers()["TILE"] == 32
    (o,) = m.overrides
    assert (o.name, o.option, o.value, o.line) == ("TILE", "16", "32", 1)


def test_an_ifndef_guard_lets_the_option_through() -> None:
    text = "#ifndef STEPS\n#define STEPS 5\n#endif\n#if !defined(W)\n#define W 2\n#endif\n"
    m = _walk(text, ("-DSTEPS=3",))
    assert (m.integers()["STEPS"], m.integers()["W"], m.overrides) == (3, 2, [])


def test_the_same_value_again_is_no_override() -> None:
    assert _walk("#define TILE 16\n", ("-DTILE=16",)).overrides == []


def test_conditions_decided_by_value_arch_and_else() -> None:
    text = (
        "#define BIG 1\n#if BIG && __CUDA_ARCH__ >= 800\n#define T 64\n#else\n#define T 8\n"
        "#endif\n#if 0\n#define U 1\n#elif BIG == 1\n#define U 2\n#endif\n"
    )
    got = _walk(text).integers()
    assert (got["T"], got["U"]) == (64, 2)


def test_an_undecided_condition_leaves_the_macro_unknown() -> None:
    # __SOME_COMPILER_THING is the compiler's own: not known here, so neither is N
    text = "#define N 4\n#ifdef __SOME_COMPILER_THING\n#define N 8\n#endif\n"
    assert "N" not in _walk(text).integers()


def test_a_macro_holds_from_its_line_on() -> None:
    text = "#define T 4\nA\n#undef T\n#define T 8\nB\n"
    m = _walk(text)
    assert m.integers()["T"] == 8 and m.at("k.cu", 2) == {"T": 4} and m.at("k.cu", 5) == {}


def test_integer_macros_reads_the_option_first() -> None:
    assert integer_macros("#define TILE 32\n", ["-DTILE=16"])["TILE"] == 32
    assert integer_macros("#ifndef TILE\n#define TILE 32\n#endif\n", ["-DTILE=16"])["TILE"] == 16


CONSTANTS = """
struct Cfg { static constexpr int BM = 64, BK = 8; static constexpr uint32_t TM = BM / 8; };
template <int BM_, int BK_> struct Traits {
  static constexpr int BM = BM_;
  static constexpr int THREADS = BM_ * BK_ / 4;
};
namespace ops { constexpr int kWarps = 4; }
enum { kVec = 4, kNext, kLast = 10 };
enum class Dir : int { Up = 2, Down };
__global__ void a() { constexpr int kItems = 12; for (int i = 0; i < kItems; ++i) {} }
__global__ void b() { constexpr int kItems = 6; for (int i = 0; i < kItems; ++i) {} }
"""


def test_file_wide_constants_struct_members_and_enums() -> None:
    fc = file_constants(blanked(CONSTANTS), {})
    assert {k: fc.names[k] for k in ("Cfg::BM", "Cfg::BK", "Cfg::TM")} == {
        "Cfg::BM": 64,
        "Cfg::BK": 8,
        "Cfg::TM": 8,
    }
    assert (fc.names["ops::kWarps"], fc.names["kWarps"]) == (4, 4)
    assert (fc.names["kVec"], fc.names["kNext"], fc.names["kLast"]) == (4, 5, 10)
    assert (fc.names["Dir::Down"], "Down" in fc.names) == (3, False)
    assert "kItems" not in fc.names  # a local of each kernel, two values
    assert (fc.at(10), fc.at(11)) == ({"kItems": 12}, {"kItems": 6})


def test_a_type_parameter_reads_the_struct_it_names() -> None:
    fc = file_constants(blanked(CONSTANTS), {})
    assert bind_struct("C", "Cfg", fc, {}) == {"C::BM": 64, "C::BK": 8, "C::TM": 8}
    assert bind_struct("T", "ns::Traits<128, 8>", fc, {}) == {"T::BM": 128, "T::THREADS": 256}
    assert bind_struct("T", "Traits<128>", fc, {}) == {}  # the wrong arity: nothing
    assert bind_struct("V", "float4", fc, {}) == {"sizeof(V)": 16}


DERIVED = """
struct Block { static constexpr int BM = 32, BK = 8; };
struct Thread : public Block { static constexpr int TM = 4, LOADS = BM * BK / 64; };
struct Again : Thread { static constexpr int BK = 16; };
struct Policy { struct Tile { static constexpr int kRows = 4; }; enum { kItems = 2 }; };
template <int N> struct Base { static constexpr int V = N; };
struct FromTemplate : Base<8> { static constexpr int W = 1; };
"""


def test_a_derived_struct_reads_its_bases_members_and_a_nested_one_its_full_name() -> None:
    """Members reached through a base class (and its base), the derived one's own winning; a
    struct nested in a struct by its qualified name; a template base gives nothing."""
    fc = file_constants(blanked(DERIVED), {})
    assert (fc.names["Thread::BM"], fc.names["Thread::LOADS"]) == (32, 4)
    assert bind_struct("C", "Again", fc, {}) == {
        "C::BM": 32, "C::BK": 16, "C::TM": 4, "C::LOADS": 4,
    }  # fmt: skip
    assert (fc.names["Policy::Tile::kRows"], fc.names["Tile::kRows"]) == (4, 4)
    assert fc.names["Policy::kItems"] == 2
    assert bind_struct("C", "FromTemplate", fc, {}) == {"C::W": 1}


def test_the_template_scope_names_its_type_arguments() -> None:
    text = "template <typename Cfg, int N> __global__ void k(float* p) { }\n"
    scope = template_scope(blanked(text), "k<GemmCfg, 4>(float*)")
    assert scope is not None and scope.types == {"Cfg": "GemmCfg"} and scope.bindings == {"N": 4}


@pytest.mark.parametrize(
    ("header", "trips"),
    [
        ("uint k = 0; k < Cfg::BK; ++k", 8),
        ("unsigned int m = 0; m < Cfg::TM; m += 2", 4),
        ("uint j = 0; j < sizeof(float4) / sizeof(float); ++j", 4),
        ("int i = 0; i < sizeof(V) / 4; ++i", 4),
        ("int i = 0; i < static_cast<int>(kVec); ++i", 4),
        ("int i = kLast - 1; i >= kLast / 2; --i", 5),
        ("int i = 1; i <= kVec; ++i", 4),
        ("int i = 0; i < Dir::Down; ++i", 3),
        ("int i = 0; i < sizeof(Unknown); ++i", None),
        ("uint o = 0; o + kVec <= kLast; o += kVec", 2),  # stops before a partial tile
        ("uint o = 0; o + kLast <= kVec; o += kLast", 0),
        ("uint o = 0; o + n <= kLast; o += kVec", None),
    ],
)
def test_headers_read_with_the_constants(header: str, trips: int | None) -> None:
    names = {"Cfg::BK": 8, "Cfg::TM": 8, "kVec": 4, "kLast": 10, "Dir::Down": 3, "sizeof(V)": 16}
    assert trip_count(header, names) == trips


def test_bound_reads_the_header_and_a_named_pragma_again() -> None:
    text = "void k() {\n#pragma unroll TM\n  for (int m = 0; m < TM; ++m) {}\n}\n"
    (loop,) = source_loops(text)
    assert (loop.trip_count, loop.requested) == (None, None)
    again = bound(loop, {"TM": 8})
    assert (again.trip_count, again.requested) == (8, 8)


def test_python_bounds_read_with_the_constexprs() -> None:
    from sassview.analyses.loops.files import constexpr_values, python_constexprs
    from sassview.parse.python_loops import python_source_loops

    options = ("num_warps=4", "constexprs=STAGES=3,BLOCK_K=32,EVEN=True")
    names = constexpr_values(options)
    assert names == {"STAGES": 3, "BLOCK_K": 32, "EVEN": 1}
    text = (
        "def kern(K, STAGES, BLOCK_K):\n"
        "    for s in tl.static_range(STAGES):\n        pass\n"
        "    for k in range(0, K, BLOCK_K):\n        pass\n"
        "def helper(STAGES):\n    for s in tl.static_range(STAGES - 1):\n        pass\n"
    )
    loops = python_constexprs(text, list(python_source_loops(text)), "kern", names)
    # the kernel's own loops: 3 iterations; a K loop stepping by 32; a helper's left alone
    assert [(s.trip_count, s.step) for s in loops] == [(3, 1), (None, 32), (None, 1)]


@pytest.mark.compile
def test_a_triton_static_range_over_a_constexpr_has_its_copies() -> None:
    """Before, "copies unknown": STAGES is no number in the source."""
    pytest.importorskip("triton")
    import importlib.util
    import sys
    from pathlib import Path

    from sassview.build import build_program
    from sassview.frontends.triton import compile_triton
    from sassview.inspection import inspect_program

    path = Path(__file__).parent / "data" / "loops" / "triton_constexpr.py"
    spec = importlib.util.spec_from_file_location("loops_triton_constexpr", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    art = compile_triton(
        module.tr_stages,
        signature={"x_ptr": "*fp32", "out_ptr": "*fp32"},
        constexprs={"STAGES": 3, "BLOCK": 128},
        arch="sm_90a",
    )
    (insp,) = inspect_program(build_program(art))
    (entry,) = insp.facts("unroll")["entries"]
    assert (
        entry.summary() == "line 13: fully unrolled (3 copies, no loop left) (asked: static_range)"
        " [from the trip count]"
    )
    assert sum(1 for i in insp.kernel.instructions if i.opcode == "LDG") == 3


INCLUDER = """#define TILE 8
#include "tile.cuh"
#undef TILE
#define TILE 16
#include "tile.cuh"
__global__ void k(float* p) { for (int i = 0; i < TILE; ++i) p[i] = 0; }
"""
TILE_HEADER = """#pragma once
__device__ void fill(float* p) { for (int i = 0; i < TILE; ++i) p[i] = 1; }
"""


def test_an_includers_define_ahead_of_its_include_holds_in_the_header() -> None:
    """Translation-unit order: the header is walked at its first #include (8 there; the second
    include is #pragma once'd), the includer's own loop after the redefinition sees 16."""
    from sassview.analyses.loops.files import read_constants

    macros, _, names = read_constants(
        (), "sm_80", (("/p/tile.cuh", TILE_HEADER),), ("/p/k.cu", INCLUDER)
    )
    assert macros.at("/p/tile.cuh", 2) == {"TILE": 8}
    assert macros.at("/p/k.cu", 6) == {} and names["TILE"] == 16
    # by -I, and with the header named by a path the line table normalises differently
    through = INCLUDER.replace('"tile.cuh"', "<tile.cuh>")
    macros, _, _ = read_constants(
        ("-I/p/inc/",), "sm_80", (("/p/inc/./tile.cuh", TILE_HEADER),), ("/p/k.cu", through)
    )
    assert macros.at("/p/inc/./tile.cuh", 2) == {"TILE": 8}


def test_a_header_no_include_reaches_is_walked_ahead_with_the_final_values() -> None:
    """<tile.cuh> with no -I naming its directory: not found from the includer, so walked
    ahead of it as before (TILE undefined there: the file-wide 16 is what its loops see)."""
    from sassview.analyses.loops.files import read_constants

    through = INCLUDER.replace('"tile.cuh"', "<tile.cuh>")
    macros, _, names = read_constants(
        (), "sm_80", (("/p/inc/tile.cuh", TILE_HEADER),), ("/p/k.cu", through)
    )
    assert macros.at("/p/inc/tile.cuh", 2) == {} and names["TILE"] == 16


def test_an_expression_macro_is_replaced_at_its_uses_and_lines_kept() -> None:
    text = (
        "#define DIV_UP(a, b) (((a) + (b)-1) / (b))\n"
        "#define STMT(x) do { x; } while (0)\n"
        "#define TWICE(x) (2 * (x))\n"
        "#define TWICE(x) (3 * (x))\n"
        "constexpr int W = DIV_UP(BM, 32);\n"
        "int s = DIV_UP(n,\n"
        "  4);\n"
    )
    found = expression_macros([text])
    assert set(found) == {"DIV_UP"}  # statements and two definitions are left alone
    out = expand_expression_macros(text, found).split("\n")
    assert len(out) == len(text.split("\n")) and out[:4] == text.split("\n")[:4]
    assert constant_expression(out[4].split("=", 1)[1].rstrip(";"), {"BM": 96}) == 3
    assert out[5] == "int s = DIV_UP(n,"  # arguments past the line: as written
