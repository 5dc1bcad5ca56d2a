"""The Triton frontend: live compiles (no GPU) of the kernels in data/frontends, end to end."""

from __future__ import annotations

import importlib.util
import inspect
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sassview.build import build_program
from sassview.errors import CompileError, InputError, ToolchainError
from sassview.frontends.triton import collapse_inline_asm_locs, compile_triton
from sassview.ir import Kernel, Program

DATA = Path(__file__).parent / "data" / "frontends"
ADD_SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32"}
UNIT_STRIDES = ("stride_ak", "stride_bn", "stride_cn")  # constexpr 1, as Triton specializes them


def load(name: str) -> ModuleType:
    """Import a data file by path (Triton reads the source back through inspect)."""
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    module_name = f"sassview_test_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, DATA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tk() -> ModuleType:
    return load("triton_kernels")


def line_of(marker: str, file: str = "triton_kernels.py") -> int:
    lines = (DATA / file).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)


def line_range(jit_fn: Any) -> range:
    lines, start = inspect.getsourcelines(jit_fn.fn)
    return range(start, start + len(lines))


def only_kernel(program: Program) -> Kernel:
    (kernel,) = program.kernels
    return kernel


def compile_add(tk: ModuleType, *, divisibility: tuple[str, ...] = (), **kw: Any) -> Program:
    art = compile_triton(
        tk.add_kernel,
        signature=ADD_SIGNATURE,
        constexprs={"BLOCK_SIZE": kw.pop("block", 1024)},
        divisibility=divisibility,
        **kw,
    )
    return build_program(art)


def compile_matmul(tk: ModuleType, arch: str, blocks: tuple[int, int, int]) -> Program:
    names = tk.matmul_kernel.arg_names
    signature = {
        n: "*fp16" if n.endswith("_ptr") else "i32"
        for n in names
        if not n.startswith("BLOCK") and n not in UNIT_STRIDES
    }
    constexprs = {
        **dict(zip(("BLOCK_M", "BLOCK_N", "BLOCK_K"), blocks, strict=True)),
        **dict.fromkeys(UNIT_STRIDES, 1),
    }
    art = compile_triton(
        tk.matmul_kernel,
        signature=signature,
        constexprs=constexprs,
        divisibility=(
            "a_ptr",
            "b_ptr",
            "c_ptr",
            "M",
            "N",
            "K",
            "stride_am",
            "stride_bk",
            "stride_cm",
        ),
        arch=arch,
        num_warps=4,
        num_stages=3,
    )
    return build_program(art)


def memory_ops(kernel: Kernel, opcode: str) -> set[str]:
    return {i.mnemonic for i in kernel.instructions if i.opcode == opcode}


# --- no compile --------------------------------------------------------------------------------


def test_importing_the_frontends_loads_no_framework() -> None:
    code = (
        "import sys, sassview, sassview.frontends.triton, sassview.frontends.cute; "
        "bad = [m for m in ('triton', 'cutlass', 'torch') if m in sys.modules]; "
        "print(*bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_missing_triton_is_a_toolchain_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "triton", None)  # `import triton` now raises ImportError
    with pytest.raises(ToolchainError, match="Triton is not installed") as info:
        compile_triton(object(), signature={})
    assert info.value.hint == "pip install triton"


def test_inline_asm_locs_collapse_to_the_first() -> None:
    ptx = (
        "\t.loc\t1 15 12\n"
        "\t// begin inline asm\n"
        "\t.loc\t1 16 9   // k.py:16:9\n"
        "\tmov.u32 %r1, 0x0;\n"
        "\t.loc\t1 17 9   // k.py:17:9\n"
        "\t@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];\n"
        "\t// end inline asm\n"
        "\t.loc\t1 17 17\n"
    )
    fixed = collapse_inline_asm_locs(ptx).splitlines()
    assert fixed[4] == fixed[2] == "\t.loc\t1 16 9   // k.py:16:9"
    assert fixed[0] == "\t.loc\t1 15 12" and fixed[7] == "\t.loc\t1 17 17"  # outside: untouched


# --- live compiles -----------------------------------------------------------------------------


@pytest.mark.compile
def test_divisibility_makes_the_vector_add_load_128_bits(tk: ModuleType) -> None:
    wide = only_kernel(compile_add(tk, divisibility=tuple(ADD_SIGNATURE), arch="sm_90a"))
    assert memory_ops(wide, "LDG") == {"LDG.E.128"}
    assert memory_ops(wide, "STG") == {"STG.E.128"}
    # Without the promise Triton cannot assume 16-byte alignment: one 32-bit access per element.
    program = compile_add(tk, arch="sm_90a")
    narrow = only_kernel(program)
    assert memory_ops(narrow, "LDG") == {"LDG.E"}
    assert memory_ops(narrow, "STG") == {"STG.E"}
    # The note's advice is Triton's knob, not C++'s vector types and __restrict__.
    from sassview.inspection import inspect_program

    (insp,) = inspect_program(program)
    notes = [a for a in insp.annotations if a.kind in ("narrow-access", "merge-candidate")]
    assert notes and all("divisibility" in a.hint and "__restrict__" not in a.hint for a in notes)


@pytest.mark.compile
def test_sass_lines_point_at_the_kernel_statements(tk: ModuleType) -> None:
    program = compile_add(tk, divisibility=tuple(ADD_SIGNATURE), arch="sm_90a")
    kernel = only_kernel(program)
    path = str(DATA / "triton_kernels.py")
    assert program.artifacts.source_path == path
    assert "def add_kernel" in (program.artifacts.source_text or "")
    located = [i for i in kernel.instructions if i.source is not None]
    assert len(located) == len(kernel.instructions)
    assert {i.source.outermost.file for i in located} == {path}
    assert {i.source.outermost.line for i in located} <= set(line_range(tk.add_kernel))
    # Each load and store sits on its own statement: the inline-asm .loc fix is what makes the
    # y load land on its line rather than three lines further (past the kernel's end).
    loads = {i.source.line for i in kernel.instructions if i.opcode == "LDG"}
    assert loads == {line_of("x = tl.load"), line_of("y = tl.load")}
    stores = {i.source.line for i in kernel.instructions if i.opcode == "STG"}
    assert stores == {line_of("tl.store(out_ptr")}
    # nvdisasm's line table has no columns; the PTX .loc lines do.
    assert kernel.ptx is not None
    assert any(p.source and p.source.column > 0 for p in kernel.ptx.instructions)


@pytest.mark.compile
def test_stages_report_and_options_are_kept(tk: ModuleType) -> None:
    program = compile_add(tk, divisibility=tuple(ADD_SIGNATURE), arch="sm_80")
    art = program.artifacts
    assert (art.kind, art.arch, program.arch) == ("triton", "sm_80", "sm_80")
    assert "tt.func" in art.stages["ttir"]
    assert "ttg.num-warps" in art.stages["ttgir"]
    assert "define" in art.stages["llir"] and "add_kernel" in art.stages["llir"]
    assert json.loads(art.stages["metadata"])["num_warps"] == 4
    assert "Used" in art.compile_log and "bytes stack frame" in art.compile_log
    assert only_kernel(program).resources.spill_store_bytes == 0  # the report reached the model
    assert "num_warps=4" in art.options and "constexprs=BLOCK_SIZE=1024" in art.options
    assert art.toolchain["triton"] and art.toolchain["ptxas"]
    assert art.cubin.startswith(b"\x7fELF")


@pytest.mark.compile
@pytest.mark.parametrize(
    ("arch", "blocks", "mma"),
    [
        ("sm_80", (128, 128, 32), "HMMA"),
        ("sm_90a", (128, 128, 64), "HGMMA"),
        ("sm_100a", (128, 128, 64), "UTCHMMA"),
    ],
)
def test_matmul_uses_the_tensor_cores_of_each_arch(
    tk: ModuleType, arch: str, blocks: tuple[int, int, int], mma: str
) -> None:
    program = compile_matmul(tk, arch, blocks)
    kernel = only_kernel(program)
    ops = kernel.opcode_counts()
    assert program.arch == arch
    # The header names the assembler, also for sm_80's ELF ABI 7 cubin, which has no note of it.
    from sassview.report.summary import program_summary

    assert "ptxas" in program_summary(program, [])["producer"]
    assert ops.get(mma, 0) > 0
    assert not {"HMMA", "HGMMA", "UTCHMMA"} - {mma} & set(ops)
    # num_stages=3 pipelines the K loop through cp.async, 16 bytes at a time.
    assert memory_ops(kernel, "LDGSTS") and all(".128" in m for m in memory_ops(kernel, "LDGSTS"))
    assert kernel.resources.spill_store_bytes == 0
    outer = {i.source.outermost for i in kernel.instructions if i.source}
    assert {s.file for s in outer} == {str(DATA / "triton_kernels.py")}
    assert {s.line for s in outer} <= set(line_range(tk.matmul_kernel))
    dots = {i.source.outermost.line for i in kernel.instructions if i.opcode == mma}
    assert dots == {line_of("acc = tl.dot")}
    # One tl.dot is many MMAs (a tile), not unrolled copies: the K loop is measured by PTX
    # line, and ptxas did not unroll it (counted by source line it read "unrolled x64").
    from sassview.inspection import inspect_program

    (insp,) = inspect_program(program)
    loops = insp.facts("unroll")["loops"]
    k_loop = [e for e in loops if e["source_line"] == line_of("for k in range")]
    assert [e["achieved_factor"] for e in k_loop] == [1]


@pytest.mark.compile
@pytest.mark.parametrize("unroll", [1, 4])
def test_triton_unrolling_multiplies_what_ptxas_did(tk: ModuleType, unroll: int) -> None:
    from sassview.inspection import inspect_program

    art = compile_triton(
        tk.rowsum_kernel,
        signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        constexprs={"BLOCK": 128, "UNROLL": unroll},
        arch="sm_90a",
    )
    (insp,) = inspect_program(build_program(art))
    line = line_of("ROWSUM LOOP")
    # One entry per loop statement: Triton's remainder loop and ptxas' are its remainder loops.
    (main,) = [e for e in insp.facts("unroll")["entries"] if e.line == line]
    # One element per thread per iteration (BLOCK = 128 threads): the loads in one trip of the
    # SASS loop are the source iterations it runs, whoever unrolled them.
    by_address = {i.address: i for i in insp.kernel.instructions}
    trip = insp.loops[main.sass_loops[0]].addresses
    loads = sum(1 for a in trip if by_address[a].opcode.startswith("LDG"))
    assert (main.factor, main.ptx_factor, main.remainder) == (loads, unroll, True)
    assert main.to_json()["triton_factor"] == unroll
    if unroll == 4:
        assert f"unrolled by {loads} (x4 by Triton, then x{loads // 4} by ptxas)" in main.summary()


@pytest.mark.compile
def test_a_static_range_is_fully_unrolled(tk: ModuleType) -> None:
    from sassview.inspection import inspect_program

    art = compile_triton(
        tk.static_sum_kernel,
        signature={"x_ptr": "*fp32", "out_ptr": "*fp32"},
        constexprs={"BLOCK": 128},
        arch="sm_90a",
    )
    (insp,) = inspect_program(build_program(art))
    line = line_of("STATIC LOOP")
    (entry,) = [e for e in insp.facts("unroll")["loops"] if e["source_line"] == line]
    assert (entry["has_back_edge"], entry["achieved_factor"]) == (False, 4)
    body = [i for i in insp.kernel.instructions if i.source and i.source.line == line + 1]
    assert sum(1 for i in body if i.opcode.startswith("LDG")) == 4


@pytest.mark.compile
def test_second_compile_is_a_cache_hit(
    tk: ModuleType, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import triton

    caplog.set_level(logging.INFO, logger="sassview")
    first = compile_triton(
        tk.add_kernel, signature=ADD_SIGNATURE, constexprs={"BLOCK_SIZE": 512}, arch="sm_90a"
    )
    assert any("triton: compiled add_kernel" in r.getMessage() for r in caplog.records)

    def no_compile(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(triton, "compile", no_compile)
    caplog.clear()
    second = compile_triton(
        tk.add_kernel, signature=ADD_SIGNATURE, constexprs={"BLOCK_SIZE": 512}, arch="sm_90a"
    )
    assert any("triton: cache hit" in r.getMessage() for r in caplog.records)
    assert (second.ptx, second.cubin, second.compile_log) == (
        first.ptx,
        first.cubin,
        first.compile_log,
    )
    assert second.stages == first.stages


@pytest.mark.compile
def test_a_compile_leaves_no_trace(
    tk: ModuleType, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from triton import knobs

    from sassview import cache

    monkeypatch.setenv("TRITON_CACHE_DIR", "/nonexistent/user/choice")
    compile_add(tk, arch="sm_120", block=2048)
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", "")  # ptxas' report was captured, not printed
    assert os.environ["TRITON_CACHE_DIR"] == "/nonexistent/user/choice"
    assert "TRITON_ALWAYS_COMPILE" not in os.environ
    assert knobs.runtime.add_stages_inspection_hook is None
    assert not any(cache.scratch_dir("triton").iterdir())  # Triton's cache went with the compile


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.compile
def test_a_type_error_names_the_file_and_line() -> None:
    bad = load("triton_bad_kernels")
    with pytest.raises(CompileError) as info:
        compile_triton(
            bad.type_error_kernel, signature={"x_ptr": "*fp32"}, constexprs={"BLOCK": 64}
        )
    line = line_of("TYPE ERROR HERE", "triton_bad_kernels.py")
    assert f"triton_bad_kernels.py:{line}:" in info.value.message
    assert "dtype" in info.value.message


@pytest.mark.compile
def test_an_error_in_a_helper_names_the_helper_and_the_call() -> None:
    bad = load("triton_bad_kernels")
    with pytest.raises(CompileError) as info:
        compile_triton(
            bad.helper_error_kernel, signature={"x_ptr": "*fp32"}, constexprs={"BLOCK": 64}
        )
    helper = line_of("HELPER ERROR HERE", "triton_bad_kernels.py")
    call = line_of("HELPER CALL HERE", "triton_bad_kernels.py")
    message = info.value.message
    assert f"triton_bad_kernels.py:{helper}:" in message
    assert f"called from {DATA / 'triton_bad_kernels.py'}:{call}:" in message


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (
            lambda tk: dict(
                signature={k: v for k, v in ADD_SIGNATURE.items() if k != "n_elements"}
            ),
            "'n_elements'",
        ),
        (lambda tk: dict(signature=ADD_SIGNATURE, constexprs={}), "'BLOCK_SIZE'"),
        (lambda tk: dict(signature={**ADD_SIGNATURE, "bogus": "i32"}), "'bogus'"),
        (lambda tk: dict(signature={**ADD_SIGNATURE, "x_ptr": "*fp33"}), "'*fp33'"),
        (lambda tk: dict(signature=ADD_SIGNATURE, arch="sm_101"), "sm_101"),
        (lambda tk: dict(signature=ADD_SIGNATURE, arch="sm_999"), "sm_999"),
        (lambda tk: dict(signature=ADD_SIGNATURE, arch="banana"), "banana"),
        (lambda tk: dict(signature=ADD_SIGNATURE, num_warps=3), "power of 2"),
        (lambda tk: dict(signature=ADD_SIGNATURE, options={"nope": 1}), "'nope'"),
        (lambda tk: dict(signature=ADD_SIGNATURE, options={"num_warps": 8}), "num_warps"),
    ],
    ids=[
        "missing",
        "constexpr",
        "unknown",
        "type",
        "sm_101",
        "sm_999",
        "name",
        "warps",
        "option",
        "managed",
    ],
)
def test_bad_inputs_are_input_errors(
    tk: ModuleType, call: Callable[[ModuleType], dict[str, Any]], named: str
) -> None:
    kwargs = {"constexprs": {"BLOCK_SIZE": 128}, **call(tk)}
    with pytest.raises(InputError) as info:
        compile_triton(tk.add_kernel, **kwargs)
    assert named in info.value.message
    if "sm_" in named or named == "banana":
        assert "sm_90a" in info.value.hint  # lists what works


def test_a_plain_function_is_refused(tk: ModuleType) -> None:
    with pytest.raises(InputError, match="not a @triton.jit function"):
        compile_triton(tk.add_kernel.fn, signature=ADD_SIGNATURE)
