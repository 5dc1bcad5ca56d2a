"""Coalescing and bank conflicts on Triton and CuTe DSL kernels of our own, compiled live (no
GPU): tests/data/frontends/triton_memory.py and cute_memory.py, each access known by
construction (their docstrings). The findings speak the kernel's language.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sassview.build import build_program
from sassview.inspection import Inspection, inspect_program

DATA = Path(__file__).parent / "data" / "frontends"
ARCHS = ["sm_80", "sm_90a"]
F32 = {"x_ptr": "*fp32", "y_ptr": "*fp32"}


def load(name: str, package: str) -> ModuleType:
    pytest.importorskip(package, reason=f"{package} is not installed")
    module_name = f"sassview_test_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, DATA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def triton_kernel(arch: str, name: str, **constexprs: Any) -> Inspection:
    from sassview.frontends.triton import compile_triton

    tm = load("triton_memory", "triton")
    signature = {**F32, "col": "i32"} if name == "copy_column" else F32
    art = compile_triton(
        getattr(tm, name), signature=signature, constexprs=constexprs,
        divisibility=list(F32), arch=arch,
    )  # fmt: skip
    (insp,) = inspect_program(build_program(art))
    return insp


def cute_kernel(arch: str, name: str) -> Inspection:
    from sassview.frontends.cute import compile_cute

    cm = load("cute_memory", "cutlass.cute")
    (insp,) = inspect_program(build_program(compile_cute(getattr(cm, name), *cm.fake_args(),
                                                         arch=arch)))  # fmt: skip
    return insp


def sectors(insp: Inspection) -> set[tuple[Any, ...]]:
    facts = insp.facts("coalescing")
    return {(a["direction"], a["bits"], a["sectors"], a["min_sectors"]) for a in facts["accesses"]}


def findings(insp: Inspection, kind: str) -> list[Any]:
    return [a for a in insp.annotations if a.kind == kind]


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_triton_rows_are_coalesced_and_a_column_is_not(arch: str) -> None:
    k = triton_kernel(arch, "copy_rows", BLOCK=128)
    assert k.facts("coalescing")["block"] == "one warp of a 128x1x1 block (from .reqntid)"
    assert sectors(k) == {("load", 32, 4, 4), ("store", 32, 4, 4)}
    assert findings(k, "uncoalesced") == []
    k = triton_kernel(arch, "copy_column", N=1024, BLOCK=128)
    assert sectors(k) == {("load", 32, 32, 4), ("store", 32, 4, 4)}
    (finding,) = findings(k, "uncoalesced")
    assert finding.data["stride"] == 4096 and finding.data["direction"] == "load"
    assert "tl.trans" in finding.hint and "threadIdx" not in finding.hint


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_triton_swizzles_its_transpose_through_shared_memory(arch: str) -> None:
    # Loaded along rows, stored along columns: Triton converts the layout through shared
    # memory with an XOR swizzle (SGXT and LOP3 of threadIdx.x bits): every STS and LDS is one
    # wavefront, every global access 128-bit and coalesced; nothing unknown.
    k = triton_kernel(arch, "transpose_tile", N=1024, TILE=32)
    assert sectors(k) == {("load", 128, 16, 16), ("store", 128, 16, 16)}
    banks = k.facts("bank_conflicts")
    assert banks["unknown"] == 0 and len(banks["accesses"]) == 16
    assert {(a["wavefronts"], a["ways"]) for a in banks["accesses"]} == {(1, 1)}
    # The PTX derivation (tests/ptx_lanes.py) agrees on every access.
    import ptx_lanes

    from sassview.analyses import bank_conflicts
    from sassview.graph.lanes import BlockShape

    assert k.kernel.ptx is not None
    from_ptx = ptx_lanes.accesses(k.kernel.ptx, BlockShape(128, 1, 1, ".reqntid"))
    shared = [a for a in from_ptx if a.space == "shared"]
    assert len(shared) == 16 and all(a.lanes is not None for a in shared)
    for a in shared:
        assert a.lanes is not None
        assert bank_conflicts.wavefronts(a.lanes.lanes, 4, 32, a.mask) == [1]


@pytest.mark.compile
@pytest.mark.parametrize("arch", ARCHS)
def test_cute_copy_by_its_thread_value_layout(arch: str) -> None:
    # Threads along the stride-1 mode: 4 sectors a warp; down the other mode: 32.
    k = cute_kernel(arch, "copy_rows")
    assert sectors(k) == {("load", 32, 4, 4), ("store", 32, 4, 4)}
    assert findings(k, "uncoalesced") == []
    k = cute_kernel(arch, "copy_columns")
    assert sectors(k) == {("load", 32, 32, 4), ("store", 32, 32, 4)}
    load_finding, store_finding = findings(k, "uncoalesced")
    assert load_finding.data["stride"] == store_finding.data["stride"] == 4096
    assert "thread-value layout" in load_finding.hint and "threadIdx" not in load_finding.hint


@pytest.mark.compile
def test_triton_matmul_pipeline_stages_and_swizzle_selects_are_followed() -> None:
    # examples/triton/kernel.py's matmul on sm_80: the cp.async stage buffer is picked by a
    # USEL on a uniform predicate, the swizzle's XOR term by a SEL on a bit of threadIdx.x
    # (ISETP.NE of a lane value): both exact, so every LDS.128 and LDSM is counted.
    from sassview.frontends.triton import compile_triton

    pytest.importorskip("triton", reason="triton is not installed")
    spec = importlib.util.spec_from_file_location(
        "sassview_test_triton_example", DATA.parents[2] / "examples" / "triton" / "kernel.py"
    )
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example
    spec.loader.exec_module(example)
    unit = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
    art = compile_triton(
        example.matmul, signature=example.MATMUL_SIGNATURE, arch="sm_80",
        constexprs={**unit, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
        divisibility=list(example.MATMUL_SIGNATURE),
    )  # fmt: skip
    (insp,) = inspect_program(build_program(art))
    banks = insp.facts("bank_conflicts")
    assert banks["unknown"] == 0 and banks["conflicted"] == 0
    assert {a["opcode"].split(".")[0] for a in banks["accesses"]} >= {"LDS", "LDSM", "STS"}
