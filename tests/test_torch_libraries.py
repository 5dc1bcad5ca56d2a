"""Kernel libraries in the production shape reached without torch (frontends/no_torch.py and
torch_standin.py): data/torchlib's `kernlib` probes devices and its vendor at import, wraps its
launchers in custom ops, builds dtype tables and launches with computed constexprs; each of its
kernels is reached from a kernel.py of at most 3 lines.

Where torch is installed the stand-in is never used, and these are skipped."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from sassview.errors import InputError

LIB = Path(__file__).parent / "data" / "torchlib"

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed"),
    pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="needs triton"),
]


def _kernel_py(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "kernel.py"
    path.write_text(body)
    return path


@pytest.mark.parametrize(
    ("kernel_file", "kernel"),
    [
        ("kernel_rmsnorm.py", "_rms_norm_fwd"),
        ("kernel_matmul.py", "_matmul_kernel"),
        ("kernel_softmax.py", "_softmax_kernel"),
    ],
)
def test_each_kernel_of_the_library_is_reached_in_three_lines(
    kernel_file: str, kernel: str
) -> None:
    from sassview.frontends.discover import import_kernel_file

    path = LIB / kernel_file
    assert len([t for t in path.read_text().splitlines() if t.strip()]) <= 3
    kf = import_kernel_file(path)
    assert [d.name for d in kf.declarations] == [kernel]
    assert "torch" not in sys.modules  # the stand-in was there only while the file ran


@pytest.mark.compile
def test_a_library_kernel_compiles_through_its_custom_op_wrappers() -> None:
    from sassview.build import build_program
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import compile_all

    (art,) = compile_all(import_kernel_file(LIB / "kernel_rmsnorm.py"), parallel=False)
    (kernel,) = build_program(art).kernels
    assert "_rms_norm_fwd" in kernel.name and "MUFU" in kernel.opcode_counts()  # the rsqrt


def test_the_stand_in_says_no_device_and_passes_decorators_through(tmp_path: Path) -> None:
    from sassview.frontends.discover import import_kernel_file

    probes = """
import functools
import torch, torch.nn as nn
from torch.library import custom_op
assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0
assert not any(hasattr(torch, v) for v in ("mlu", "xpu", "npu", "hpu"))
assert torch.backends.mps.is_available() is False and torch.version.cuda is None
assert int(torch.__version__.split(".")[0]) >= 2
def f(x): return x + 1
assert torch.compile(f) is f and torch.compile(mode="max-autotune")(f) is f
assert torch.jit.script(f) is f and torch.amp.custom_fwd(device_type="cuda")(f) is f
@torch.no_grad()
def g(x): return x
with torch.no_grad():
    assert g(2) == 2
op = custom_op("lib::f", mutates_args=())(f)
assert op(1) == 2 and op.__name__ == "f" and op.register_fake(g) is g
@functools.wraps(f)
def w(*a): return f(*a)
assert torch.library.custom_op("lib::w", w, mutates_args=())(3) == 4
assert torch.finfo(torch.float16).max == 65504.0 and torch.iinfo(torch.int8).min == -128
assert torch.finfo(torch.bfloat16).eps == 2**-7 and torch.float16.itemsize == 2
assert torch.half is torch.float16 and str(torch.bfloat16) == "torch.bfloat16"
assert {torch.float16: 1}[torch.half] == 1 and isinstance(torch.float32, torch.dtype)
assert torch.Size([2, 3]) == (2, 3) and str(torch.device("cuda:1")) == "cuda:1"
class M(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor: return x
class T(torch.Tensor): pass
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x
assert issubclass(T, torch.Tensor) and not isinstance(1, torch.Tensor)
torch.backends.cuda.matmul.allow_tf32 = True
torch.manual_seed(0)
"""
    kf = import_kernel_file(_kernel_py(tmp_path, probes))
    assert kf.declarations == ()


def test_computing_at_import_in_a_library_names_the_librarys_line() -> None:
    """Not `kernel_badlib.py:2` (its import), and in Triton's words: no CuTe fake tensors."""
    from sassview.frontends.discover import import_kernel_file

    with pytest.raises(InputError) as info:
        import_kernel_file(LIB / "kernel_badlib.py")
    lines = (LIB / "badlib" / "tables.py").read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.endswith("# TORCH CALL"))
    assert info.value.message == (
        f"badlib/tables.py calls torch (torch.randn() at badlib/tables.py:{line}),"
        " which is not installed"
    )
    assert "sv.triton(" in info.value.hint and "sv.tensor(" in info.value.hint
    assert "fake" not in info.value.hint and "cute" not in info.value.hint
    assert "torch" not in sys.modules


def test_a_device_query_without_a_probe_names_its_line(tmp_path: Path) -> None:
    from sassview.frontends.discover import import_kernel_file

    path = _kernel_py(
        tmp_path, "import torch\nimport triton\nCAP = torch.cuda.get_device_capability()\n"
    )
    with pytest.raises(InputError, match=r"torch.cuda.get_device_capability\(\) at kernel.py:3"):
        import_kernel_file(path)


def test_another_vendors_device_read_directly_is_said_so(tmp_path: Path) -> None:
    from sassview.frontends.discover import import_kernel_file

    path = _kernel_py(tmp_path, "import torch\nimport triton\nXPU = torch.xpu.is_available()\n")
    with pytest.raises(InputError) as info:
        import_kernel_file(path)
    assert info.value.message == (
        "kernel.py calls torch (torch.xpu at kernel.py:3), which is not installed: the"
        " stand-in has no device of any vendor"
    )


def test_a_kernel_file_that_imports_torch_only_in_a_failing_package_reruns_clean(
    tmp_path: Path,
) -> None:
    """The first run fails at `import torch` deep in a package; the modules it finished
    inside the package it did not are dropped before the run with the stand-in."""
    from sassview.frontends.discover import import_kernel_file

    pkg = tmp_path / "deep_pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from deep_pkg.sub.leaf import VALUE\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "leaf.py").write_text("import torch\nVALUE = torch.float16.itemsize\n")
    path = _kernel_py(tmp_path, "from deep_pkg.sub.leaf import VALUE\nassert VALUE == 2\n")
    assert import_kernel_file(path).declarations == ()


_SOFTMAX = (
    "import sys; sys.path.insert(0, {lib!r})\n"
    "import sassview as sv\n"
    "from kernlib.ops.softmax import _softmax_kernel\n"
    "sv.triton(_softmax_kernel, signature={{'out_ptr': '*fp32', 'in_ptr': '*fp32',"
    " 'in_row_stride': 'i32', 'out_row_stride': 'i32', 'n_rows': 'i32', 'n_cols': 'i32'}},"
    " constexprs={{'BLOCK_SIZE': 1024}}, divisibility=['out_ptr', 'in_ptr', 'in_row_stride',"
    " 'out_row_stride', 'n_cols'], num_warps=8, {rest})\n"
)


@pytest.mark.compile
def test_a_variant_of_a_launch_option_that_is_a_parameter_sets_both(tmp_path: Path) -> None:
    """`num_stages: tl.constexpr` in the softmax kernel: a launch's `num_stages=` keyword
    sets the parameter and the option. Each variant sets both, so they differ in SASS."""
    from sassview.build import build_program
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import compile_all

    text = _SOFTMAX.format(lib=str(LIB), rest="variants={'num_stages': [1, 3]}")
    arts = compile_all(import_kernel_file(_kernel_py(tmp_path, text)), parallel=False)
    counts = [build_program(a).kernels[0].opcode_counts() for a in arts]
    assert [("LDGSTS" in c) for c in counts] == [False, True]  # pipelined only at 3
    assert all("num_stages=" in a.label for a in arts)


def test_a_launch_option_and_a_parameter_of_one_name_and_two_values_is_an_error(
    tmp_path: Path,
) -> None:
    from sassview.frontends.discover import import_kernel_file

    text = _SOFTMAX.format(lib=str(LIB), rest="num_stages=2").replace(
        "'BLOCK_SIZE': 1024}", "'BLOCK_SIZE': 1024, 'num_stages': 4}"
    )
    with pytest.raises(InputError) as info:
        import_kernel_file(_kernel_py(tmp_path, text))
    assert "num_stages is both a launch option (num_stages=2) and a kernel parameter" in str(
        info.value
    )
