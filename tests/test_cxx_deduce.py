"""A device template's arguments deduced from a call's arguments (parse/cxx_deduce.py): what
each shape of function parameter reads from the declaration its argument names, and what stays
open (never a guess)."""

from __future__ import annotations

from pathlib import Path

import pytest

import sassview
from sassview.analyses.loops import rolled
from sassview.inspection import inspect_kernel
from sassview.parse.cxx_deduce import (
    Declared,
    argument_type,
    declaration,
    declared,
    deduce,
    enclosing_function,
)
from sassview.parse.cxx_templates import call_at, calls_on, function_templates
from sassview.parse.source_loops import blanked

HELPERS = """\
template <int TM, int TN> __device__ void tile(float (&acc)[TM][TN], const float* a) {}
template <int N> __device__ float row(const float (&x)[N]) { return 0; }
template <int M, int N> __device__ void frag(const Frag<M, N>& f, Frag<M, N>* g) {}
template <class Cfg> __device__ void cfg(Cfg c, const float* p) {}
template <class T> __device__ void fwd(T&& t) {}
template <class T> __device__ void ptr(T* t) {}
template <int N> __device__ void tag(cuda::std::integral_constant<int, N>) {}
"""


def _callee(name: str):  # type: ignore[no-untyped-def]
    return next(t for t in function_templates(blanked(HELPERS)) if t.name == name)


def _deduce(name: str, body: str, call: str) -> tuple[dict[str, str], dict[str, str]]:
    """Deduce `name`'s arguments at `call` (the last line of `body`, in a kernel)."""
    text = blanked(f"{HELPERS}__global__ void k(float* out, int n) {{\n{body}\n  {call};\n}}\n")
    line = text.count("\n") - 1
    found = call_at(text, line, name)
    assert found is not None, call
    got = deduce(
        _callee(name), list(found.arguments), lambda a: argument_type(text, found.position, a)
    )
    return got.values, got.types


def test_declarations_of_each_shape() -> None:
    assert declaration("float lo[2][4] = {}, hi[4][1]") == [
        ("lo", Declared("float", ("2", "4"))),
        ("hi", Declared("float", ("4", "1"))),
    ]
    assert declaration("const float (&acc)[R][C]") == [("acc", Declared("float", ("R", "C"), 0, 1))]
    assert declaration("__shared__ float As[BK][64]") == [("As", Declared("float", ("BK", "64")))]
    assert declaration("const Frag<M, 4>* __restrict__ f") == [("f", Declared("Frag<M, 4>", (), 1))]
    assert declaration("unsigned int n = 4") == [("n", Declared("unsigned int"))]
    assert declaration("return s") == [] and declaration("acc[m][n] = 0") == []


def test_array_extents_by_reference() -> None:
    assert _deduce("tile", "  float acc[8][4] = {};", "tile(acc, out)") == (
        {"TM": "8", "TN": "4"},
        {},
    )
    assert _deduce("row", "  float r[BM * 2];", "row(r)") == ({"N": "BM * 2"}, {})
    # a row of a 2-D array: one extent dropped; a pointer is no array
    assert _deduce("row", "  float t[3][6];", "row(t[1])") == ({"N": "6"}, {})
    assert _deduce("row", "  float* p = out;", "row(p)") == ({}, {})


def test_struct_templates_and_type_parameters() -> None:
    got = _deduce("frag", "  Frag<M, 4> f;", "frag(f, &f)")
    assert got == ({"M": "M", "N": "4"}, {})  # the caller evaluates M
    assert _deduce("cfg", "  const Tile44 c;", "cfg(c, out)") == ({}, {"Cfg": "Tile44"})
    assert _deduce("cfg", "", "cfg(Int<3>{}, out)") == ({}, {"Cfg": "Int<3>"})
    assert _deduce("tag", "", "tag(cuda::std::integral_constant<int, 6>{})") == ({"N": "6"}, {})
    assert _deduce("ptr", "  Frag<2, 2> f;", "ptr(&f)") == ({}, {"T": "Frag<2, 2>"})


def test_what_is_not_read_stays_open() -> None:
    """A member of a struct not defined here, a call's result, a cast, `auto` of a call, a type
    no alias visible names, a forwarding reference, an array decaying to a pointer: nothing
    deduced."""
    for body, call in (
        ("  S s;", "row(s.v)"),
        ("", "row(pick(out))"),
        ("", "row(*reinterpret_cast<float(*)[4]>(out))"),
        ("  auto r = make();", "row(r)"),
        ("  Row4 r;", "row(r)"),  # no alias of Row4 in sight
        ("  Tile44 c;", "fwd(c)"),
        ("  float v[4];", "ptr(v)"),
    ):
        name = call.split("(")[0]
        assert _deduce(name, body, call) == ({}, {}), call


def test_the_visible_declaration_is_the_innermost() -> None:
    text = blanked(
        "__device__ float g[16];\n"
        "__global__ void k(float (&p)[2]) {\n"
        "  float a[4];\n"
        "  { float a[8]; }\n"  # a closed block: not visible below
        "  for (int i = 0; i < 2; ++i) { float b[3]; }\n"
        "  if (true) {\n"
        "    float a[6];\n"
        "    use(a, g, p);\n"
        "  }\n"
        "  use(a, g, p);\n"
        "}\n"
    )
    inner, outer = text.index("use(a"), text.rindex("use(a")
    assert declared(text, inner, "a") == Declared("float", ("6",))
    assert declared(text, outer, "a") == Declared("float", ("4",))
    assert declared(text, outer, "g") == Declared("float", ("16",))
    assert declared(text, outer, "p") == Declared("float", ("2",), 0, 1)
    assert declared(text, outer, "b") is None


def test_a_template_parameter_two_arguments_read_apart_is_left_out() -> None:
    helper = "template <int N> __device__ void two(const float (&x)[N], const float (&y)[N]) {}\n"
    text = blanked(helper + "__global__ void k() {\n  float a[4], b[8];\n  two(a, b);\n}\n")
    found = call_at(text, 4, "two")
    assert found is not None
    (callee,) = function_templates(text)
    got = deduce(callee, list(found.arguments), lambda a: argument_type(text, found.position, a))
    assert got.values == {}


DEFAULTED = """struct S { float v[8]; };
__device__ __forceinline__ S& pick(S& s) { return s; }
template <int N = 4>
__device__ __forceinline__ float total(const float (&x)[N]) {
  float s = 0.f;
  for (int i = 0; i < N; ++i) s += x[i];
  return s;
}
__global__ void k(const float* in, float* out) {
  S s;
  for (int i = 0; i < 8; ++i) s.v[i] = in[i * 32 + threadIdx.x];
  out[threadIdx.x] = total(pick(s).v);
}
"""


@pytest.mark.compile
def test_a_default_is_not_taken_for_a_parameter_the_call_deduces(tmp_path: Path) -> None:
    """`total(pick(s).v)` deduces N = 8 from a call's result the source reading does not
    follow, and the default 4 is not what was used (SASS, sm_80: 8 FADD at line 6, no branch):
    the PTX names the instantiation NVVM inlined, `_Z5totalILi8EEfRAT__Kf`, and that gives 8."""
    (tmp_path / "k.cu").write_text(DEFAULTED)
    real = sassview.compile(path=tmp_path / "k.cu", arch="sm_80")
    text = blanked(DEFAULTED)
    (total,) = [t for t in function_templates(text) if t.name == "total"]
    call = call_at(text, 12, "total")
    assert call is not None
    read = deduce(total, list(call.arguments), lambda a: argument_type(text, call.position, a))
    assert read.values == {}  # the source alone: open
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rolled, "build_variant", rolled._compile)
        entries = inspect_kernel(real, real.kernel("k")).facts("unroll")["entries"]
    (mine,) = [e for e in entries if e.line == 6]
    assert (mine.trip_count, mine.copies) == (8, 8)


PTX = """\t.loc\t2 37 3, function_name $L__info_string0, inlined_at 1 45 3
\tfma.rn.f32 \t%f1, %f2, %f2, %f3;
\t.loc\t2 37 3, function_name $L__info_string1, inlined_at 1 46 3
\tfma.rn.f32 \t%f4, %f5, %f5, %f6;
\t.file\t1 "/k/deduce.cu"
\t.file\t2 "/k/deduce.cuh"
\t.section\t.debug_str
\t{
$L__info_string0:
.b8 95,90,54,115,117,109,95,115,113,73,76,105,54,69,69,102,82,65,84,95,95,75,102
.b8 0
$L__info_string1:
.b8 95,90,54,115,117,109,95,115,113,73,76,105,52,69,69,102,82,65,84,95,95,75,102,0
\t}
"""


def test_the_ptx_names_each_inlined_instantiation() -> None:
    """`.loc ..., function_name $L__info_stringN, inlined_at F L C`: the symbol in
    `.debug_str` (split over `.b8` lines) is the function inlined at that call."""
    from sassview.parse.ptx_inlined import symbols_at

    at = ("/k/deduce.cu", 45)
    assert symbols_at(PTX, (1, 99), "/k/deduce.cuh", (35, 38), at) == {"_Z6sum_sqILi6EEfRAT__Kf"}
    assert symbols_at(PTX, (1, 99), "/k/deduce.cuh", (35, 38), ("/k/deduce.cu", 46)) == {
        "_Z6sum_sqILi4EEfRAT__Kf"
    }
    assert symbols_at(PTX, (3, 99), "/k/deduce.cuh", (35, 38), at) == set()  # another kernel's


def test_aliases_and_auto_name_the_type() -> None:
    """`using` and `typedef` where the call sees them (a variable's extents first, the
    alias' after), `auto` of a braced temporary."""
    aliases = "  using Tile = Frag<2, 4>;\n  typedef float Row6[6];\n"
    assert _deduce("frag", aliases + "  Tile t;", "frag(t, &t)") == ({"M": "2", "N": "4"}, {})
    assert _deduce("row", aliases + "  Row6 r;", "row(r)") == ({"N": "6"}, {})
    assert _deduce("tile", aliases + "  Row6 r[3];", "tile(r, out)") == ({"TM": "3", "TN": "6"}, {})
    assert _deduce("frag", "  auto f = Frag<3, 1>{};", "frag(f, &f)") == ({"M": "3", "N": "1"}, {})


def test_a_headers_declaration_is_read_where_it_alone_has_one() -> None:
    header = blanked("typedef float Row5[5];\n__device__ float table[7];\n")
    other = blanked("typedef float Row5[9];\n")
    text = blanked("__global__ void k() {\n  Row5 r;\n  use(r, table);\n}\n")
    at = text.index("use(")
    assert declared(text, at, "r", (header,)) == Declared("float", ("5",))
    assert declared(text, at, "table", (header,)) == Declared("float", ("7",))
    assert declared(text, at, "r", (header, other)) == Declared("Row5")  # two readings: none
    assert declared(text, at, "r") == Declared("Row5")


def test_a_data_member_is_read_in_its_structs_definition() -> None:
    """`f.v` of `Frag<3, 2> f`, a row of it, `p->r` of a plain struct; a struct defined twice
    gives nothing."""
    structs = (
        "template <int M, int N> struct Frag {\n  static constexpr int ROWS = M;\n"
        "  __device__ float at(int i) const { float t[9]; return v[0][i]; }\n"
        "  float v[M][N];\n};\nstruct Acc { float r[6]; };\n"
    )
    body = "  Frag<3, 2> f;\n  Acc a;\n  Acc* p = &a;"
    text = blanked(structs + HELPERS + f"__global__ void k(float* out) {{\n{body}\n  use();\n}}\n")
    at = text.index("use();")
    assert argument_type(text, at, "f.v") == Declared("float", ("(3)", "(2)"))
    assert argument_type(text, at, "f.v[1]") == Declared("float", ("(2)",))
    assert argument_type(text, at, "p->r") == Declared("float", ("6",))
    assert argument_type(text, at, "a->r") is None and argument_type(text, at, "f.t") is None
    twice = blanked(structs + "struct Acc { float r[4]; };\n" + text[len(structs) :])
    assert argument_type(twice, twice.index("use();"), "p->r") is None


def test_the_function_around_a_place_and_the_calls_on_a_line() -> None:
    text = blanked(
        "template <int N> __device__ float f(const float (&x)[N]) {\n"
        "  for (int i = 0; i < N; ++i) {\n    s += x[i];\n  }\n}\n"
        "__device__ void g() { if (true) { h(); } }\n"
        "__global__ void k() {\n  y = f(a) + f(b);\n  z = f<2>(c);\n}\n"
    )
    assert enclosing_function(text, text.index("s +=")) == "f"
    assert enclosing_function(text, text.index("h()")) == "g"
    assert enclosing_function(text, 0) is None
    assert [c.arguments for c in calls_on(text, 8, "f")] == [("a",), ("b",)]
    assert [c.template for c in calls_on(text, 9, "f")] == [("2",)]
