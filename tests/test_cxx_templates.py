"""A template kernel's integral parameters bound from its demangled name inside its body
(parse/cxx_templates.py): the loop census reads `k < TILE` in sgemm<16> as 16 iterations."""

from __future__ import annotations

import pytest
from analyses_data import program

import sassview as sv
from sassview.inspection import inspect_program
from sassview.parse.cxx_templates import (
    call_arguments,
    call_at,
    enclosing_template,
    parameter_name,
    template_arguments,
    template_scope,
)
from sassview.parse.source_loops import blanked

SOURCE = """\
template <typename T, int N, bool B = false> __global__ void k(T* p);  // declared first
// template <int M> __global__ void k(float* q) {}   a comment is no definition
template <typename T, int N, bool B>
__global__ void __launch_bounds__(N * 32) k(T* p) {
    for (int i = 0; i < N; ++i) p[i] += B;
}
template <int N> __global__ void other(float* p) { for (int i = 0; i < N; ++i) p[i] = 0; }
"""


def test_the_definition_binds_integral_parameters_in_its_body() -> None:
    scope = template_scope(blanked(SOURCE), "k<float, 16, true>(float*)")
    assert scope is not None
    assert scope.bindings == {"N": 16, "B": 1}  # T is a type: not bound
    assert scope.lines == (4, 6)  # the body of the definition, not the declaration's line
    assert template_scope(blanked(SOURCE), "k(float*)") is None  # not a template
    assert template_scope(blanked(SOURCE), "k<float, 16>(float*)") is None  # other arity
    unsigned = template_scope(blanked(SOURCE), "other<8u>(float*)")
    assert unsigned is not None and unsigned.bindings == {"N": 8} and unsigned.lines == (7, 7)


HELPERS = """\
template <int BK, int BM, int BN = 4>
__device__ void mac(float (&acc)[BM][BN]) {
    for (int k = 0; k < BK; ++k) {}
}
__device__ void plain() {}
__global__ void kern() {
    mac<BK, (BM > 2 ? 2 : 1), sizeof(float)>(acc); mac<8, 2>(acc);
    mac(acc);
    mac<1, 2>(a); mac<1, 2>(b);
}
"""


def test_a_helper_templates_arguments_are_read_at_its_call_site() -> None:
    """The function template around a line, and the arguments each call line writes: a `>`
    inside parentheses is a comparison; two calls of other arguments on one line give none,
    as does a call whose arguments are deduced."""
    text = blanked(HELPERS)
    mac = enclosing_template(text, 3)
    assert mac is not None and mac.name == "mac" and mac.lines == (2, 4)
    assert enclosing_template(text, 5) is None and enclosing_template(text, 7) is None
    assert [parameter_name(p) for p in mac.parameters] == [
        ("BK", False, ""), ("BM", False, ""), ("BN", False, "4"),
    ]  # fmt: skip
    assert parameter_name("typename Cfg") == ("Cfg", True, "")
    assert call_arguments(text, 7, "mac") is None  # two calls, two argument lists
    assert call_arguments(text, 8, "mac") is None  # deduced
    assert call_arguments(text, 9, "mac") == ["1", "2"]  # two calls alike
    deduced, two = call_at(text, 8, "mac"), call_at(text, 9, "mac")
    assert deduced is not None and (deduced.template, deduced.arguments) == (None, ("acc",))
    assert two is not None and two.arguments == ()  # `(a)` and `(b)`: neither is read
    one = blanked("  mac<BK, (BM > 2 ? 2 : 1), sizeof(float)>(acc);\n")
    assert call_arguments(one, 1, "mac") == ["BK", "(BM > 2 ? 2 : 1)", "sizeof(float)"]


def test_names_mangled_or_demangled_give_the_identifier() -> None:
    assert template_arguments("ns::tile<32, 8>(float*)") == ("tile", ["32", "8"])
    # an offline listing's mangled name: its simple arguments are read (Itanium's L<type>NE)
    assert template_arguments("_Z4tileILi32EEvPf") == ("tile", ["32"])
    assert template_arguments("_ZN2ns4tileEv") == ("tile", None)
    assert template_arguments("_Z4tileIPfEvv") == ("tile", None)  # a pointer: not read


ROLLED = """\
template <int N> __global__ void walk(float* p) {
#pragma unroll 1
    for (int i = 0; i < N; ++i) p[i * 32 + threadIdx.x] += 1.f;
}
template __global__ void walk<64>(float*);
template __global__ void walk<8>(float*);
"""


@pytest.mark.compile
def test_each_instantiation_has_its_own_trip_count() -> None:
    prog = sv.compile(ROLLED, arch="sm_90a")
    trips = {}
    for insp in inspect_program(prog, "walk"):
        (entry,) = insp.facts("unroll")["entries"]
        trips[insp.kernel.display_name.split("(")[0]] = (entry.trip_count, entry.kind)
    assert trips == {"walk<64>": (64, "rolled"), "walk<8>": (8, "rolled")}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_template_tile_loop_is_counted_by_its_instantiation(arch: str) -> None:
    # real_memory's sgemm_tiled<16>: `for (k = 0; k < TILE; ++k)` under #pragma unroll is 16
    # copies (16 FFMA a trip), not the 32 its FFMAs and loads read as without the binding.
    prog = program("recorded", "real_memory", arch)
    (insp,) = inspect_program(prog, "sgemm_tiled")
    inner = [e for e in insp.facts("unroll")["entries"] if e.depth == 2]
    assert [(e.kind, e.copies, e.trip_count) for e in inner] == [("full", 16, 16)]
