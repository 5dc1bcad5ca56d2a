"""The runtime-stride finding on Triton kernels, its trial, and which @jit functions are kernels."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import run_sassview

import sassview
from sassview.analyses.triton_strides import strided_accesses
from sassview.frontends.triton import compile_triton

pytestmark = pytest.mark.compile
DATA = Path(__file__).parent / "data"
UNIT = ("stride_ak", "stride_bn", "stride_cn")  # the matmul's contiguous dimensions


def module(name: str) -> ModuleType:
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    key = f"sassview_test_strides_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, DATA / "frontends" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


@pytest.mark.parametrize("unit", [(), UNIT], ids=["strides-runtime", "unit-strides-constexpr"])
def test_only_contiguous_strides_passed_at_run_time_are_found(unit: tuple[str, ...]) -> None:
    """The tutorial matmul, every stride an i32: the three strides of the contiguous
    dimensions are found (two loads through the K loop's carried pointers, the store), the
    row strides are not; specialized to 1 as a launch would, none is."""
    tk = module("triton_kernels")
    names = tk.matmul_kernel.arg_names
    signature = {
        n: "*fp16" if n.endswith("_ptr") else "i32"
        for n in names
        if not n.startswith("BLOCK") and n not in unit
    }
    blocks = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, **dict.fromkeys(unit, 1)}
    art = compile_triton(tk.matmul_kernel, signature=signature, constexprs=blocks, arch="sm_80")
    found = {(kind, name) for kind, name, _ in strided_accesses(art.stages["ttir"])}
    expected = {("load", "stride_ak"), ("load", "stride_bn"), ("store", "stride_cn")}
    assert found == (set() if unit else expected)


def test_the_recorded_caches_row_strides_are_not_runtime_strides() -> None:
    """The recorded matmuls take their row strides at run time and their columns contiguous:
    no finding."""
    for program in sassview.load(DATA / "triton_cache"):
        (inspection,) = sassview.analyze(program)
        assert not [a for a in inspection.annotations if a.kind == "runtime-stride"]


KERNEL_FILE = """\
import sys
sys.path.insert(0, {frontends!r})
import sassview as sv
from triton_args_kernels import strided_copy

x = sv.tensor("fp16", shape=(4096, 1024))
sv.triton(strided_copy, DECLARATION)
"""
BY_SIGNATURE = (
    'signature={"x_ptr": "*fp16", "out_ptr": "*fp16", "stride_xm": "i32", "stride_xk": "i32",'
    ' "M": "i32", "K": "i32"}, constexprs={"BLOCK_K": 1024},'
    ' divisibility=["x_ptr", "out_ptr", "stride_xm", "M", "K"]'
)
BY_EXAMPLE = (
    "args=dict(x_ptr=x, out_ptr=x, stride_xm=1024, stride_xk=2, M=4096, K=1024, BLOCK_K=1024)"
)


@pytest.mark.parametrize("declaration", [BY_SIGNATURE, BY_EXAMPLE], ids=["signature", "args"])
def test_try_applies_the_unit_stride_and_the_loads_widen(tmp_path: Path, declaration: str) -> None:
    """Declared by its types, the stride may be a launch's 1: tried, the loads widen. Declared
    by example with stride_xk=2, the launch passes 2: neither the hint nor `try` offers 1."""
    path = tmp_path / "kernel.py"
    frontends = str(DATA / "frontends")
    path.write_text(KERNEL_FILE.format(frontends=frontends).replace("DECLARATION", declaration))
    checked = run_sassview("check", path, "--json")
    assert checked.returncode == 0, checked.stderr
    (program,) = json.loads(checked.stdout)["programs"]
    (kernel,) = program["kernels"]
    (finding,) = [a for a in kernel["annotations"] if a["kind"] == "runtime-stride"]
    assert "stride_xk" in finding["message"]
    tried = run_sassview("try", path)
    assert tried.returncode == 0, tried.stderr
    if declaration == BY_EXAMPLE:  # the declaration says the launch passes 2: no =1 offered
        assert (
            "passes stride_xk=2" in finding["hint"]
            and "stride_xk=1 in args" not in (finding["hint"])
        )
        assert "stride_xk=1" not in tried.stdout
    else:
        assert "stride_xk=1 in args=" in finding["hint"]
        assert "tried    stride_xk=1  ->  GONE" in tried.stdout
    from sassview.frontends.triton_args import unit_stride_settings

    settings: dict[str, Any] = {
        "signature": {"x": "*fp16", "s": "i32"}, "constexprs": {}, "divisibility": ("x", "s"),
    }  # fmt: skip
    assert unit_stride_settings(settings, "s") == {
        "signature": {"x": "*fp16"}, "constexprs": {"s": 1}, "divisibility": ("x",),
    }  # fmt: skip


def test_a_cached_kernel_with_a_runtime_stride_says_the_launch_passed_another(
    tmp_path: Path,
) -> None:
    """In Triton's cache a runtime stride means the launch passed a value other than 1."""
    maker_spec = importlib.util.spec_from_file_location("mk", DATA / "make_triton_cache.py")
    assert maker_spec is not None and maker_spec.loader is not None
    maker = importlib.util.module_from_spec(maker_spec)
    maker_spec.loader.exec_module(maker)
    ak = module("triton_args_kernels")
    from triton import knobs

    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path / "cache")
        sig = {"x_ptr": "*fp16", "out_ptr": "*fp16", "stride_xm": "i32", "stride_xk": "i32"}
        maker._compile(ak.strided_copy, {**sig, "M": "i32", "K": "i32"}, {"BLOCK_K": 256}, 90)
    (program,) = sassview.load(tmp_path / "cache")
    (inspection,) = sassview.analyze(program)
    (finding,) = [a for a in inspection.annotations if a.kind == "runtime-stride"]
    assert "passed stride_xk != 1" in finding.hint and ".contiguous()" in finding.hint


HELPERS = """\
import triton
import triton.language as tl
import sassview as sv


@triton.jit
def leaky(x):
    return tl.where(x > 0, x, 0.01 * x)


@triton.jit
def unused_helper(x):
    return tl.maximum(x, 0)


@triton.jit
def act_kernel(x_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, ACT(x), mask=offs < n)


@triton.jit
def other_kernel(x_ptr, n):
    tl.store(x_ptr + tl.arange(0, 16), 0.0)


sv.triton(act_kernel, args=dict(x_ptr=sv.tensor("fp32", shape=(1024,)), n=1024, ACT=leaky,
          BLOCK=256))
"""


def test_helpers_are_not_suggested_for_declaration_kernels_are(tmp_path: Path) -> None:
    """A @jit function passed to a declared kernel as a constexpr, or one that returns a value
    (no kernel can), is a helper; a kernel nobody declared is still named."""
    pytest.importorskip("triton")
    from sassview.declare import collecting
    from sassview.frontends.discover import import_kernel_file

    path = tmp_path / "kernel.py"
    path.write_text(HELPERS)
    with collecting():
        kernel_file = import_kernel_file(path)
    assert [u.name for u in kernel_file.undeclared] == ["other_kernel"]


def test_a_stride_declared_a_multiple_of_16_is_info_not_advice_to_pass_1() -> None:
    """A column walk (`rows * stride_m + col`) declared with stride_m a multiple of 16 (what
    args=dict(stride_m=4096) gives): no launch of that declaration passes 1, so "declare it
    =1" would be wrong advice: the finding is INFO and says so. Undeclared, it stays a note."""
    tk = module("triton_memory")
    signature = {"X": "*fp32", "OUT": "*fp32", "M": "i32", "stride_m": "i32"}
    constexprs = {"BLOCK_M": 128}

    def finding(divisibility: list[str]) -> Any:
        art = compile_triton(
            tk.column_walk, signature=signature, constexprs=constexprs,
            divisibility=divisibility, arch="sm_90a",
        )  # fmt: skip
        (insp,) = sassview.analyze(sassview.from_artifacts(art))
        (found,) = [a for a in insp.annotations if a.kind == "runtime-stride"]
        return found

    plain = finding([])
    assert plain.severity.name == "NOTE" and "declare it so" in plain.hint
    declared = finding(["stride_m"])
    assert declared.severity.name == "INFO"
    assert "no launch of this declaration makes it 1" in declared.hint
    assert declared.data["declared_multiple"] is True  # and `sassview try` tries no =1


def _gather_inspections() -> list[Any]:
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    _, programs = sassview.load_kernel_file(DATA / "frontends" / "triton_gather.py")
    return [i for p in programs for i in sassview.analyze(p)]


def test_a_gathered_rows_stride_is_not_a_contiguous_stride() -> None:
    """triton_gather.py: `rows[:, None] * stride_xm`, rows a loaded index, varies along no
    range: stride_xm is never the contiguous dimension's (it was: an unranged value read as
    the last dimension of rank 0). With stride_xk=1 the x loads are LDGSTS.E.BYPASS.128 and
    nothing is found; with stride_xk an i32, stride_xk alone."""
    runtime, unit = _gather_inspections()
    assert runtime.findings["triton_strides"].facts.runtime_strides == ["stride_xk"]
    (found,) = [a for a in runtime.annotations if a.kind == "runtime-stride"]
    assert found.data["argument"] == "stride_xk" and [s.line for s in found.source] == [28]
    assert unit.findings["triton_strides"].facts.runtime_strides == []
    assert not [a for a in unit.annotations if a.kind == "runtime-stride"]
    copies = [i for i in unit.kernel.instructions if i.source and i.source.line == 28]
    assert {(i.opcode, i.modifiers) for i in copies if i.opcode in ("LDG", "LDGSTS")} == {
        ("LDGSTS", ("E", "BYPASS", "128"))
    }


def test_lines_already_copied_128_bits_wide_get_no_runtime_stride_note() -> None:
    """The rule of 0a27660 (`_already_wide`) on real SASS: line 28's accesses are all
    LDGSTS.E.BYPASS.128 at stride_xk=1 (no note, whatever the TTIR walk says), and
    LDG.E.U16 with stride_xk an i32 (the note stays)."""
    from sassview.analyses.base import AnalysisContext
    from sassview.analyses.triton_strides import _already_wide
    from sassview.ir import SourceLoc

    runtime, unit = _gather_inspections()
    for insp, wide in ((unit, True), (runtime, False)):
        ctx = AnalysisContext(insp.program, insp.kernel, insp.cfg, insp.loops, insp.liveness)
        line = {SourceLoc(str(insp.program.artifacts.source_path), 28)}
        assert _already_wide(ctx, {"load": line, "store": set()}) is wide
