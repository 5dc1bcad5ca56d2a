"""A kernel is named as its source spells it: a template's bare name selects every
instantiation (`-k transpose`), an instantiation by its arguments, spaces optional."""

from __future__ import annotations

from pathlib import Path

import pytest

import sassview as sv
from sassview.errors import InputError
from sassview.inspection import inspect_program
from tests.conftest import run_sassview

SOURCE = """\
template <int F>
__global__ void scale(float* out, const float* in) {
    out[threadIdx.x] = in[threadIdx.x] * F;
}
template __global__ void scale<2>(float*, const float*);
template __global__ void scale<3>(float*, const float*);
__global__ void scale_all(float* out) { out[threadIdx.x] = 0.f; }
"""


@pytest.fixture(scope="module")
def program() -> sv.Program:
    return sv.compile(SOURCE, arch="sm_90a")


def test_a_bare_template_name_names_every_instantiation(program: sv.Program) -> None:
    named = program.kernels_named("scale")
    assert sorted(k.display_name.split("(")[0] for k in named) == ["scale<2>", "scale<3>"]
    found = inspect_program(program, "scale")
    assert {i.kernel.name for i in found} == {k.name for k in named}


def test_an_instantiation_is_named_by_its_arguments_spaces_optional(program: sv.Program) -> None:
    assert program.kernel("scale<3>").display_name.startswith("scale<3>(")
    assert program.kernel("scale< 3 >") is program.kernel("scale<3>")
    assert program.kernel("scale_all").display_name.startswith("scale_all(")


def test_one_kernel_asked_for_by_a_shared_name_is_an_error_naming_them(
    program: sv.Program,
) -> None:
    with pytest.raises(InputError) as raised:
        program.kernel("scale")
    assert "'scale' names 2 kernels" in raised.value.message
    assert "scale<2>(float*, float const*)" in raised.value.message
    assert "scale<" in (raised.value.hint or "")


def test_check_dash_k_with_a_template_name_shows_each_instantiation(tmp_path: Path) -> None:
    source = tmp_path / "scale.cu"
    source.write_text(SOURCE)
    done = run_sassview("check", source, "--arch", "sm_90a", "-k", "scale")
    assert done.returncode == 0, done.stderr
    headers = [line for line in done.stdout.splitlines() if line.startswith("scale")]
    assert [h.split("(")[0] for h in sorted(headers)] == ["scale<2>", "scale<3>"]
