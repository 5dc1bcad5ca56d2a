"""The declaration sassview suggests for an undeclared Triton kernel reads the types its module's
own launch states (frontends/triton_launch.py), and asks for what it cannot know: a guessed
fp32 pointer for an fp16 launch compiles another kernel (TF32 dots, other spills)."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from sassview.errors import InputError

pytest.importorskip("triton")

KERNEL = """\
import torch
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
       stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, ACT: tl.constexpr):
    pass


def matmul(a, b, act=""):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    mm[(1,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
             c.stride(0), c.stride(1), BLOCK_M=128, BLOCK_K=64, ACT=act)
    return c
"""


def _module(tmp_path: Path, text: str) -> ModuleType:
    path = tmp_path / f"mod_{abs(hash(text))}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # Triton reads the source back through inspect
    spec.loader.exec_module(module)
    return module


def _suggest(tmp_path: Path, text: str) -> str:
    from sassview.frontends.specs.triton import suggest

    torch = ModuleType("torch")  # the suggestion reads source only: any torch will do
    sys.modules.setdefault("torch", torch)
    try:
        return suggest("mm", _module(tmp_path, text).mm)
    finally:
        if sys.modules.get("torch") is torch:
            del sys.modules["torch"]


def test_a_dtype_the_launch_states_is_used_and_one_it_does_not_is_asked_for(
    tmp_path: Path,
) -> None:
    line = _suggest(tmp_path, KERNEL)
    assert '"a_ptr": "*?", "b_ptr": "*?", "c_ptr": "*fp16"' in line  # not a silent *fp32
    assert "element type of a_ptr, b_ptr not knowable here" in line
    assert "passes a, b" in line and "c_ptr: element types as the launch at" in line
    assert '"BLOCK_M": 128, "BLOCK_K": 64' in line  # the launch's own literals
    assert "ACT=act" in line  # computed: said, not silently 128
    assert "stride_ak=a.stride(1)" in line and "constexpr 1" in line


def test_a_caller_in_the_module_that_states_the_dtype_types_the_pointer(tmp_path: Path) -> None:
    text = KERNEL + (
        "\n\nif __name__ == '__main__':\n"
        "    a = torch.randn((512, 512), device='cuda', dtype=torch.bfloat16)\n"
        "    b = torch.randn((512, 512), device='cuda', dtype=torch.bfloat16)\n"
        "    matmul(a, b)\n"
    )
    assert '"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp16"' in _suggest(tmp_path, text)


def test_two_call_sites_with_two_dtypes_leave_it_unknown(tmp_path: Path) -> None:
    text = KERNEL + (
        "\n\ndef bench_fp16():\n"
        "    a = torch.randn((512, 512), dtype=torch.float16)\n"
        "    return matmul(a, a)\n"
        "\n\ndef bench_fp8():\n"
        "    a = torch.randn((512, 512), dtype=torch.float16).to(torch.float8_e5m2)\n"
        "    return matmul(a, a)\n"
    )
    assert '"a_ptr": "*?"' in _suggest(tmp_path, text)


def test_a_pasted_unknown_type_asks_for_it_instead_of_compiling(tmp_path: Path) -> None:
    from sassview.frontends.triton import _check_type

    with pytest.raises(InputError, match="left for you to give"):
        _check_type("a_ptr", "*?")
