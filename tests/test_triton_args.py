"""Declaring Triton kernels by example arguments: what Triton's JIT would specialize, compiled."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import sassview as sv
from sassview.build import build_program
from sassview.errors import InputError
from sassview.frontends.triton import compile_triton
from sassview.frontends.triton_args import specialize

DATA = Path(__file__).parent / "data" / "frontends"


@pytest.fixture(scope="module")
def ak() -> ModuleType:
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    name = "sassview_test_triton_args_kernels"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, DATA / "triton_args_kernels.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


class _TorchDtype:
    """What torch.float16 looks like to Triton: a `torch.float16` str, an item size."""

    itemsize = 2
    is_floating_point = True

    def __str__(self) -> str:
        return "torch.float16"


class Tensor:
    """Duck-typed like a torch meta tensor (torch is not installed here): address 0."""

    dtype = _TorchDtype()
    shape = (64, 64)

    def data_ptr(self) -> int:
        return 0

    def stride(self) -> tuple[int, int]:
        return (64, 1)


def probe_values() -> dict[str, Any]:
    return dict(
        a_ptr=sv.tensor("fp32", shape=(1024,)),
        b_ptr=sv.tensor("float32", shape=(1024,), align=8),
        c_ptr=Tensor(),
        n=4096,
        odd=4097,
        one=1,
        big=2**40,
        seed=32,  # do_not_specialize: stays a plain i32
        flag=True,
        scale=0.5,
        maybe=None,
        q=1,  # annotated "i32": an annotated int is not made constexpr, even when 1
        BLOCK=128,
    )


def test_each_argument_is_specialized_as_tritons_own_function_does(ak: ModuleType) -> None:
    """Per parameter: Triton's `native_specialize_impl` (what a launch calls per argument) on
    the same value, with the parameter's own flags, decides type, constexpr and divisibility."""
    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend

    values = probe_values()
    derived = specialize(ak.probe, values, 90)
    backend = type(make_backend(GPUTarget("cuda", 90, 32)))
    for param in ak.probe.params:
        value = values[param.name]
        if param.is_constexpr:
            assert derived.constexprs[param.name] == value
            continue
        ty, key = native_specialize_impl(
            backend, value, param.is_const, not param.do_not_specialize,
            not param.do_not_specialize_on_alignment,
        )  # fmt: skip
        if param.annotation_type:  # Triton keeps an annotated type as it is
            ty = param.annotation_type
        if ty == "constexpr":
            assert derived.constexprs[param.name] == value, param.name
        else:
            assert derived.signature[param.name] == ty, param.name
        assert (param.name in derived.divisibility) == (key == "D"), param.name
    # What that means, spelled out for the reader of this test:
    assert derived.constexprs == {"one": 1, "maybe": None, "BLOCK": 128}
    assert derived.divisibility == ("a_ptr", "c_ptr", "n", "big")
    assert derived.signature["big"] == "i64" and derived.signature["flag"] == "u1"
    assert derived.signature["c_ptr"] == "*fp16" and derived.signature["seed"] == "i32"


def test_a_unit_stride_by_example_is_constexpr_1_and_vectorizes(ak: ModuleType) -> None:
    """stride_xk=1 at a launch is what makes the row load wide; declared by example it is."""
    x = sv.tensor("fp16", shape=(4096, 1024))
    values: dict[str, Any] = dict(x_ptr=x, out_ptr=x, stride_xm=1024, M=4096, K=1024, BLOCK_K=1024)
    widths = {}
    for stride in (1, 2):
        derived = specialize(ak.strided_copy, {**values, "stride_xk": stride}, 90)
        art = compile_triton(
            ak.strided_copy,
            signature=derived.signature,
            constexprs=derived.constexprs,
            divisibility=derived.divisibility,
        )
        (kernel,) = build_program(art).kernels
        widths[stride] = {i.mnemonic for i in kernel.instructions if i.opcode == "LDG"}
    assert widths[1] == {"LDG.E.128"}, widths  # 8 contiguous fp16 a thread
    assert widths[2] == {"LDG.E.U16"}, widths


def test_a_tensor_descriptor_by_example_compiles_to_tma(ak: ModuleType) -> None:
    base = sv.tensor("fp16", shape=(256, 512))
    desc = sv.tensor_descriptor(base, block_shape=[64, 64])
    derived = specialize(
        ak.desc_copy, dict(in_desc=desc, out_desc=desc, BLOCK_M=64, BLOCK_N=64), 90
    )
    assert derived.signature == {
        "in_desc": "tensordesc<fp16[64, 64]>",
        "out_desc": "tensordesc<fp16[64, 64]>",
    }
    art = compile_triton(ak.desc_copy, signature=derived.signature, constexprs=derived.constexprs)
    (kernel,) = build_program(art).kernels
    opcodes = {i.opcode for i in kernel.instructions}
    assert {"UTMALDG", "UTMASTG"} <= opcodes, sorted(opcodes)


def test_a_descriptor_triton_refuses_is_an_input_error(ak: ModuleType) -> None:
    odd_rows = sv.tensor("fp16", shape=(256, 511))  # a row of 1022 bytes: not 16-aligned
    with pytest.raises(InputError, match="Triton refuses this tensor descriptor"):
        sv.tensor_descriptor(odd_rows, block_shape=[64, 64])


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"nope": 1}, "has no parameter 'nope'"),
        ({"x_ptr": sv.tensor("fp16")}, "gives no value for out_ptr, stride_xm"),
        ({"x_ptr": "text", "out_ptr": 0, "stride_xm": 1, "stride_xk": 1, "M": 1, "K": 1,
          "BLOCK_K": 16}, "Triton cannot take these arguments"),
    ],
)  # fmt: skip
def test_wrong_example_arguments_are_input_errors(
    ak: ModuleType, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        specialize(ak.strided_copy, values, 90)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sv.tensor("fp17"), "'fp17' is not an element type"),
        (lambda: sv.tensor("fp16", shape=(4, 0)), "is not a shape"),
        (lambda: sv.tensor("fp16", shape=(4, 4), strides=(1,)), "1 strides for 2 dimensions"),
        (lambda: sv.tensor("fp16", align=12), "not a power of two"),
    ],
)
def test_a_malformed_example_tensor_is_an_input_error(call: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call()


def test_an_example_tensor_reads_as_its_type_and_shape() -> None:
    assert str(sv.tensor("torch.float16", shape=(8, 4))) == "fp16[8, 4]"
    assert str(sv.tensor("bf16", shape=(8, 4), strides=(1, 8), align=4)) == (
        "bf16[8, 4] align=4 strides=[1, 8]"
    )
    assert sv.tensor("fp32", align=8).data_ptr() % 16 == 8


AUTOTUNED_BY_EXAMPLE = """\
import triton
import triton.language as tl

import sassview as sv


@triton.autotune(
    configs=[triton.Config({"BLOCK": 64}, num_warps=1), triton.Config({"BLOCK": 256})],
    key=["n"],
)
@triton.heuristics({"EVEN": lambda a: a["n"] % a["BLOCK"] == 0})
@triton.jit
def halve(src_ptr, dst_ptr, n, stride, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(dst_ptr + offs, tl.load(src_ptr + offs * stride) * 0.5)
    else:
        keep = offs < n
        tl.store(dst_ptr + offs, tl.load(src_ptr + offs * stride, mask=keep) * 0.5, mask=keep)


x = sv.tensor("fp32", shape=(4096,))
sv.triton(halve, args=dict(src_ptr=x, dst_ptr=x, n=N, stride=1), arch="sm_90a")
"""


@pytest.mark.compile
def test_an_autotuned_kernel_by_example_runs_its_heuristics_on_the_launch_values(
    tmp_path: Path,
) -> None:
    """A heuristic reading a size (n) works by example: n=4096 is even for both BLOCKs, 4000
    only for the 64 one; stride=1 is constexpr 1, n divisible by 16 in both."""
    import json

    from conftest import run_sassview

    pytest.importorskip("triton")
    options = {}
    for n in (4096, 4000):
        path = tmp_path / f"k{n}.py"
        path.write_text(AUTOTUNED_BY_EXAMPLE.replace("n=N", f"n={n}"))
        done = run_sassview("check", path, "--json")
        assert done.returncode == 0, done.stderr
        options[n] = [p["options"] for p in json.loads(done.stdout)["programs"]]
    assert "constexprs=stride=1,BLOCK=64,EVEN=True" in options[4096][0]
    assert "constexprs=stride=1,BLOCK=256,EVEN=True" in options[4096][1]
    assert "constexprs=stride=1,BLOCK=256,EVEN=False" in options[4000][1]
    assert "divisibility=src_ptr,dst_ptr,n" in options[4000][1]
    assert "signature=src_ptr:*fp32,dst_ptr:*fp32,n:i32,stride:constexpr" in (
        ",".join(options[4000][1])
    )


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ("sv.triton(k, arch='sm_90a')", "needs signature= or args="),
        ("sv.triton(k, signature={'x': '*fp32'}, args={'x': 1})", "not both"),
        ("sv.triton(k, args={'x': 1}, divisibility=['x'])", "drop divisibility="),
    ],
)
def test_a_declaration_takes_a_signature_or_arguments(declaration: str, message: str) -> None:
    def k(x: Any) -> None: ...

    with pytest.raises(InputError, match=message):
        eval(declaration, {"sv": sv, "k": k})


PRUNED = """\
import triton
import triton.language as tl

import sassview as sv


def small_enough(configs, named_args, **kwargs):
    # as Triton's own prune functions: keep the BLOCKs that do not overrun the row
    return [c for c in configs if c.kwargs["BLOCK"] <= named_args["n"]
            and named_args["x_ptr"].element_size() * c.kwargs["BLOCK"] <= 1024]


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 256, 1024) for w in (1, 4)],
    key=["n"],
    prune_configs_by={"early_config_prune": small_enough},
)
@triton.jit
def halve(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 0.5, mask=offs < n)


DECLARATION
"""


@pytest.mark.compile
def test_early_config_prune_runs_on_the_example_arguments(tmp_path: Path) -> None:
    """n=300 fp32: BLOCK 64 and 256 stay (1024 overruns), each with both num_warps; the key is
    shown with its value, on stderr and in the options."""
    import json

    from conftest import run_sassview

    pytest.importorskip("triton")
    path = tmp_path / "kernel.py"
    declaration = 'sv.triton(halve, args=dict(x_ptr=sv.tensor("fp32", shape=(300,)), n=300))'
    path.write_text(PRUNED.replace("DECLARATION", declaration))
    done = run_sassview("check", path, "--json")
    assert done.returncode == 0, done.stderr
    programs = json.loads(done.stdout)["programs"]
    assert [(p["variant"]["BLOCK"], p["variant"]["num_warps"]) for p in programs] == [
        (64, 1), (64, 4), (256, 1), (256, 4),
    ]  # fmt: skip
    assert "autotune_key=n=300" in programs[0]["options"]
    assert "autotune: early_config_prune kept 4 of 6 configs" in programs[0]["options"]
    assert "halve: autotune key n" in done.stderr


def test_early_config_prune_needs_the_arguments_of_a_launch() -> None:
    """Declared by signature, the prune function has no arguments to run on: every config is
    kept and a note says why; one that fails on the example is an input error."""
    pytest.importorskip("triton")
    import triton
    import triton.language as tl

    from sassview.frontends.triton import autotune_of

    def drop_big(configs: list[Any], named_args: dict[str, Any], **kwargs: Any) -> list[Any]:
        return [c for c in configs if c.kwargs["BLOCK"] <= named_args["n"]]

    @triton.autotune(
        configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 512})],
        key=["n"],
        prune_configs_by={"early_config_prune": drop_big, "perf_model": len, "top_k": 1},
    )
    @triton.jit
    def k(x_ptr: Any, n: Any, BLOCK: tl.constexpr) -> None:
        pass

    by_signature = autotune_of(k, None)
    assert [c["BLOCK"] for c in by_signature.configs] == [64, 512]
    assert by_signature.key == ("n",)
    assert by_signature.notes == (
        "early_config_prune not applied: declare the launch's args= to apply it",
        "perf_model/top_k not applied: they rank configs by a GPU's timings",
    )
    assert [c["BLOCK"] for c in autotune_of(k, {"x_ptr": None, "n": 100}).configs] == [64]
    with pytest.raises(InputError, match="early_config_prune raised KeyError: 'n'"):
        autotune_of(k, {"x_ptr": None})
    with pytest.raises(InputError, match="kept no config"):
        autotune_of(k, {"x_ptr": None, "n": 10})


def test_declarations_by_example_are_told_apart_by_the_values_that_differ(
    tmp_path: Path,
) -> None:
    pytest.importorskip("triton")
    from sassview.declare import collecting
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import plan

    path = tmp_path / "kernel.py"
    path.write_text(
        f"import sys\nsys.path.insert(0, {str(DATA)!r})\nimport sassview as sv\n"
        "from triton_args_kernels import strided_copy\n"
        "x = sv.tensor('fp16', shape=(64, 64))\n"
        "for s in (1, 2):\n"
        "    sv.triton(strided_copy, args=dict(x_ptr=x, out_ptr=x, stride_xm=64, stride_xk=s,"
        " M=64, K=64, BLOCK_K=64))\n"
    )
    with collecting():
        kernel_file = import_kernel_file(path)
    labels = [
        job.label(kernel_file.declarations[job.declaration], kernel_file)
        for job in plan(kernel_file)
    ]
    assert labels == ["strided_copy(stride_xk=1)", "strided_copy(stride_xk=2)"]


WS_FILE = """\
import sys
sys.path.insert(0, {data!r})
import sassview as sv
from triton_args_kernels import ws_matmul

a = sv.tensor("fp16", shape=(4096, 4096))
tile = sv.tensor_descriptor(a, block_shape=[128, 64])
out = sv.tensor_descriptor(a, block_shape=[128, 128])
sv.triton(ws_matmul, args=dict(a_desc=tile, b_desc=tile, c_desc=out, K=4096, BLOCK_M=128,
          BLOCK_N=128, BLOCK_K=64), arch="sm_90a", num_warps=4)
"""


@pytest.mark.compile
def test_an_mlir_pass_failure_is_one_message_with_the_passes_words(tmp_path: Path) -> None:
    """MLIR prints its diagnostics (the module, a reproducer: ~50 lines) from C++ to file
    descriptor 2; they go into the error's detail, after sassview's one line, which quotes
    the first diagnostic and the pass."""
    from conftest import run_sassview

    pytest.importorskip("triton")
    path = tmp_path / "kernel.py"
    path.write_text(WS_FILE.format(data=str(DATA)))
    done = run_sassview("check", path)
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert first.startswith("error: Triton failed to compile ws_matmul: RuntimeError: ")
    assert "descriptor block and tensor must have the same number of elements" in first
    assert first.endswith("(in NVGPUWarpSpecialization)")
    assert "mlir_reproducer" in done.stderr  # kept, in the detail


def test_native_stderr_is_left_alone_outside_the_main_thread() -> None:
    """The TUI compiles in a worker thread while Textual draws on stderr: no redirect there."""
    import os
    import threading

    from sassview.frontends.triton import _native_stderr

    seen: list[bool] = []

    def probe() -> None:
        before = os.fstat(2).st_ino
        with _native_stderr() as captured:
            seen.append(os.fstat(2).st_ino == before and captured.read() == "")

    worker = threading.Thread(target=probe)
    worker.start()
    worker.join()
    assert seen == [True]
    before = os.fstat(2).st_ino
    with _native_stderr() as captured:  # the main thread: redirected, then restored
        assert os.fstat(2).st_ino != before
        os.write(2, b"native words\n")
        assert captured.read() == "native words"
    assert os.fstat(2).st_ino == before
