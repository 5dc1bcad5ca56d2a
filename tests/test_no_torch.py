"""Kernel files that import torch compile where torch is not installed (frontends/no_torch.py).

These run for real only where torch is absent (as here and in CI): with torch installed the
stand-in is never used."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from sassview.errors import InputError

DATA = Path(__file__).parent / "data" / "frontends"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is not None, reason="torch is installed"
)


@pytest.mark.compile
def test_a_module_that_imports_torch_for_types_compiles() -> None:
    pytest.importorskip("cutlass.cute")
    from sassview.build import build_program
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import compile_all

    kf = import_kernel_file(DATA / "cute_torch_types.py")
    (art,) = compile_all(kf, parallel=False)
    (kernel,) = build_program(art).kernels
    assert "scale_kernel" in kernel.name and "FMUL" in kernel.opcode_counts()
    # The stand-in was there only while the file ran, and no module that imported it is left.
    assert "torch" not in sys.modules and "cutlass.torch" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        import torch  # noqa: F401
    with pytest.raises(ModuleNotFoundError):
        import cutlass.torch  # noqa: F401


def test_a_module_that_calls_torch_names_the_line_and_the_way_out() -> None:
    pytest.importorskip("cutlass.cute")
    from sassview.frontends.discover import import_kernel_file

    with pytest.raises(InputError) as info:
        import_kernel_file(DATA / "cute_torch_calls.py")
    lines = (DATA / "cute_torch_calls.py").read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.endswith("# TORCH CALL"))
    assert info.value.message == (
        f"cute_torch_calls.py calls torch (torch.empty() at cute_torch_calls.py:{line}), "
        "which is not installed"
    )
    assert "TYPE_CHECKING" in info.value.hint and "make_fake_compact_tensor" in info.value.hint
    assert "torch" not in sys.modules


def test_placeholders_work_as_types(tmp_path: Path) -> None:
    from sassview.frontends.discover import import_kernel_file

    path = tmp_path / "kernel.py"
    path.write_text(
        "from typing import Optional\nimport torch\nimport torch.nn.functional as F\n"
        "from torch import Tensor\nimport sassview as sv\n\n"
        "def f(x: torch.Tensor, y: Optional[Tensor] = None) -> torch.Tensor: ...\n"
        "assert not isinstance(1, torch.Tensor) and torch.Tensor is Tensor\n"
        "DTYPES = {torch.float16: 'f16', torch.bfloat16: 'bf16'}\n"
        "ACT = F.relu\n"
    )
    kf = import_kernel_file(path)  # no kernels: that is the next message, not torch
    assert kf.declarations == ()


def test_another_missing_package_is_not_stood_in_for(tmp_path: Path) -> None:
    from sassview.frontends.discover import import_kernel_file

    path = tmp_path / "kernel.py"
    path.write_text("import torch\nimport no_such_package_xyz\n")
    with pytest.raises(InputError, match="no_such_package_xyz"):
        import_kernel_file(path)
