"""The CuTe DSL frontend: live compiles (no GPU) of the vector add in data/frontends."""

from __future__ import annotations

import importlib.util
import logging
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sassview.binary.elf import read_cubin
from sassview.build import build_program
from sassview.errors import CompileError, InputError, ToolchainError
from sassview.frontends.cute import _ptxas_report, compile_cute

DATA = Path(__file__).parent / "data" / "frontends"
KERNELS = DATA / "cute_kernels.py"


def load(name: str) -> ModuleType:
    pytest.importorskip("cutlass.cute", reason="pip install nvidia-cutlass-dsl[cu13]")
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
def ck() -> ModuleType:
    return load("cute_kernels")


def line_of(marker: str, path: Path = KERNELS) -> int:
    """The first line that starts with `marker` (past indentation) or ends with it."""
    lines = path.read_text().splitlines()
    return next(
        i for i, t in enumerate(lines, 1) if t.strip().startswith(marker) or t.endswith(marker)
    )


# --- no compile --------------------------------------------------------------------------------


def test_missing_package_is_a_toolchain_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cutlass", None)
    with pytest.raises(ToolchainError, match="CuTe DSL is not installed") as info:
        compile_cute(object())
    assert info.value.hint == "pip install nvidia-cutlass-dsl[cu13]"


def test_the_ptxas_report_is_read_out_of_the_remarks_file(tmp_path: Path) -> None:
    # LLVM writes the remark's text raw, newlines and all, inside a single-quoted YAML scalar.
    (tmp_path / "remarks.yaml").write_text(
        "--- !Analysis\nPass:            ptxas info\nName:            RemarkPTXAS\n"
        "Args:\n  - RemarkId:    1\n"
        "  - Remark:      'ptxas output: ptxas info    : Compiling entry function ''k'' for "
        "''sm_90a''\nptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes "
        "spill loads\nptxas info    : Used 40 registers\n'\n...\n"
    )
    report = _ptxas_report(tmp_path / "remarks.yaml")
    assert report.splitlines() == [
        "ptxas info    : Compiling entry function 'k' for 'sm_90a'",
        "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads",
        "ptxas info    : Used 40 registers",
    ]
    assert _ptxas_report(tmp_path / "missing.yaml") == ""


# --- live compiles -----------------------------------------------------------------------------


@pytest.mark.compile
@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_vector_add_compiles_for_the_arch_asked(ck: ModuleType, arch: str) -> None:
    art = compile_cute(ck.vector_add, *ck.fake_args(), arch=arch)
    assert (art.kind, art.arch) == ("cute", arch)
    assert read_cubin(art.cubin).arch == arch  # not the sm_100a the DSL picks without a GPU
    assert f".target {arch}" in (art.ptx or "")
    program = build_program(art)
    assert program.arch == arch
    (kernel,) = program.kernels
    assert "vector_add_kernel" in kernel.name
    assert {"LDG", "STG", "FADD"} <= set(kernel.opcode_counts())
    assert kernel.resources.spill_store_bytes == 0  # the ptxas report reached the model
    assert "Used" in art.compile_log
    assert "cute.kernel" in art.stages["mlir"]  # the traced module, before lowering
    assert art.toolchain["cutlass-dsl"] and art.toolchain["ptxas"]
    # One element a thread: the note's advice is the DSL's (a value layout, a copy atom).
    from sassview.inspection import inspect_program

    (insp,) = inspect_program(program)
    notes = [a for a in insp.annotations if a.kind == "narrow-access"]
    assert notes and all("num_bits_per_copy=128" in a.hint for a in notes)
    assert not any("__restrict__" in a.hint for a in insp.annotations)


@pytest.mark.compile
def test_sass_lines_point_into_the_kernel_file(ck: ModuleType) -> None:
    art = compile_cute(ck.vector_add, *ck.fake_args(), arch="sm_90a")
    assert art.source_path == str(KERNELS)
    assert "def vector_add_kernel" in (art.source_text or "")
    (kernel,) = build_program(art).kernels
    located = [i for i in kernel.instructions if i.source is not None]
    assert len(located) == len(kernel.instructions)
    assert {i.source.file for i in located} == {str(KERNELS)}
    add = line_of("gC[i] = gA[i] + gB[i]")  # the kernel's last line
    # The prologue carries the @cute.kernel line; the closing branch and EXIT carry the
    # @cute.jit line of the host function that launches it (the DSL's location for the kernel's
    # return), so that one line past the kernel is allowed too.
    body = range(line_of("@cute.kernel"), add + 1)
    host = line_of("@cute.jit")
    assert {i.source.line for i in located} <= set(body) | {host}
    work = {i.source.line for i in kernel.instructions if i.opcode in ("LDG", "STG", "FADD")}
    assert work == {add}
    assert kernel.ptx is not None
    assert any(p.source and p.source.column > 0 for p in kernel.ptx.instructions)


@pytest.mark.compile
def test_shapes_and_alignment_are_part_of_the_key(
    ck: ModuleType, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cutlass.cute as cute

    caplog.set_level(logging.INFO, logger="sassview")
    first = compile_cute(ck.vector_add, *ck.fake_args(4096), arch="sm_90a")
    assert any("cute: compiled vector_add" in r.getMessage() for r in caplog.records)
    other = compile_cute(ck.vector_add, *ck.fake_args(2048), arch="sm_90a")
    assert other.ptx != first.ptx  # the static size is baked into the code

    def no_compile(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(cute, "compile", no_compile)
    caplog.clear()
    again = compile_cute(ck.vector_add, *ck.fake_args(4096), arch="sm_90a")
    assert any("cute: cache hit" in r.getMessage() for r in caplog.records)
    assert (again.ptx, again.cubin, again.compile_log) == (
        first.ptx,
        first.cubin,
        first.compile_log,
    )


@pytest.mark.compile
def test_hosts_made_by_one_factory_are_compiled_apart(
    ck: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    # Same code, name and file; only the kernel each closes over differs (it once shared one
    # cache entry: every host showed the first one's SASS).
    caplog.set_level(logging.INFO, logger="sassview")
    args = ck.fake_args(128)[:2]
    two = compile_cute(ck.make_host(ck.scale_by_two_kernel), *args, arch="sm_90a")
    one = compile_cute(ck.make_host(ck.add_one_kernel), *args, arch="sm_90a")
    assert "scale_by_two_kernel" in two.ptx and "add_one_kernel" not in two.ptx
    assert "add_one_kernel" in one.ptx and "scale_by_two_kernel" not in one.ptx
    caplog.clear()
    again = compile_cute(ck.make_host(ck.add_one_kernel), *args, arch="sm_90a")
    assert any("cute: cache hit" in r.getMessage() for r in caplog.records)
    assert again.cubin == one.cubin


def test_a_closure_over_an_anonymous_object_is_not_cached(ck: ModuleType) -> None:
    from sassview.frontends.cute_key import closure_of as _closure

    assert _closure(ck.vector_add) == {}
    named = _closure(ck.make_host(ck.add_one_kernel))
    assert named["kernel"]["function"].endswith(".add_one_kernel")
    anonymous = object()

    def host() -> object:
        return anonymous

    assert _closure(host) is None  # known only by its address: no stable key
    scale = 2.5

    def scaled() -> float:
        return scale

    assert _closure(scaled) == {"scale": "2.5"}


@pytest.mark.compile
def test_loops_the_dsl_unrolled_before_the_ptx_count_their_copies(ck: ModuleType) -> None:
    # NVVM unrolls as `unroll=` asks (or as it likes), then marks each loop "nounroll" for
    # ptxas: the copies are in the PTX, with a remainder loop of one iteration a trip.
    import cutlass
    import cutlass.cute as cute

    from sassview.inspection import inspect_program

    rows = cute.runtime.make_fake_compact_tensor(
        cutlass.Float32, (cute.sym_int32(),), assumed_align=16
    )
    (insp,) = inspect_program(
        build_program(
            compile_cute(ck.sum_rows, rows, ck.fake_args(128)[0], cutlass.Int32(7), arch="sm_90a")
        )
    )
    by_address = {i.address: i for i in insp.kernel.instructions}
    loops = insp.facts("unroll")["loops"]
    for marker, asked in (("AS LLVM LIKES", None), ("UNROLL 4", 4), ("UNROLL 1", 1)):
        (entry,) = [e for e in loops if e["source_line"] == line_of(f"# ROWS: {marker}")]
        trip = insp.loops[entry["sass_loops"][0]].addresses
        loads = sum(1 for a in trip if by_address[a].opcode.startswith("LDG"))
        assert entry["achieved_factor"] == loads, marker  # one load an iteration
        assert entry["requested_factor"] == asked, marker
        assert entry["remainder"] == (loads > 1), marker
    assert [e["achieved_factor"] for e in loops if e["requested_factor"] == 4] == [4]
    from sassview.testing.unrolling import describe

    four = next(e for e in insp.facts("unroll")["entries"] if e.requested == 4)
    assert describe(four) == (
        "unrolled by 4, with a remainder loop (asked: unroll=4) [counted in the SASS]"
    )
    # A constant trip count, unroll_full=True: no loop left, four copies of the body.
    (full,) = [e for e in loops if e["source_line"] == line_of("# ROWS: FULL")]
    assert (full["has_back_edge"], full["achieved_factor"], full["requested_factor"]) == (
        False,
        4,
        "full",
    )
    body = line_of("# ROWS: FULL") + 1
    copies = [i for i in insp.kernel.instructions if i.source and i.source.line == body]
    assert sum(1 for i in copies if i.opcode.startswith("LDG")) == 4
    assert not [a for a in insp.annotations if a.kind == "unroll" and a.severity.name == "WARNING"]


def test_unroll_requests_are_read_off_the_range_call() -> None:
    from sassview.parse.python_loops import python_source_loops

    source = "\n".join(
        [
            "for i in cutlass.range(n, unroll=4): pass",
            "for i in cutlass.range(n, unroll_full=True): pass",
            "for i in range(n, unroll=0): pass",
            "for i in cutlass.range(n): pass",
            "for i in cutlass.range(n, unroll=k): pass",
            "for i in other(n, unroll=2): pass",
            "for i in cutlass.range(2, 10, 3, unroll_full=True): pass",
            "for i in range(16): pass",
            "for i in range(0, 4, 0): pass",
            "for i in range(n, 4): pass",
        ]
    )
    loops = python_source_loops(source)
    requests = {s.line: s.requested for s in loops if s.requested is not None}
    assert requests == {1: 4, 2: "full", 3: 1, 7: "full"}
    trips = {s.line: s.trip_count for s in loops if s.trip_count is not None}
    assert trips == {7: 3, 8: 16}  # bounds written as numbers only


@pytest.mark.compile
def test_a_compile_leaves_no_trace(
    ck: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sassview import cache

    monkeypatch.chdir(tmp_path)  # the DSL's default dump directory
    compile_cute(ck.vector_add, *ck.fake_args(1000), arch="sm_120a")
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", "")
    assert list(tmp_path.iterdir()) == []
    assert not any(cache.scratch_dir("cute").iterdir())


@pytest.mark.compile
def test_a_type_error_in_a_kernel_names_the_line() -> None:
    bad = load("cute_bad_kernels")
    args = load("cute_kernels").fake_args(64)
    with pytest.raises(CompileError) as info:
        compile_cute(bad.type_error, args[0], arch="sm_90a")
    line = line_of("TYPE ERROR HERE", DATA / "cute_bad_kernels.py")
    assert f"cute_bad_kernels.py:{line}:" in info.value.message
    assert "TypeError" in info.value.message


@pytest.mark.compile
def test_a_missing_argument_is_an_input_error(ck: ModuleType) -> None:
    with pytest.raises(InputError, match="mC"):
        compile_cute(ck.vector_add, *ck.fake_args(64)[:2], arch="sm_90a")


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda ck: compile_cute(ck.vector_add, *ck.fake_args(64), arch="sm_75"), "sm_75"),
        (lambda ck: compile_cute(ck.vector_add_kernel, *ck.fake_args(64)), "@cute.kernel"),
        (lambda ck: compile_cute(ck.fake_args, 64), "not a @cute.jit"),
        (
            lambda ck: compile_cute(ck.vector_add, *ck.fake_args(64), options="--gpu-arch sm_80"),
            "--gpu-arch",
        ),
    ],
    ids=["arch", "kernel", "plain", "managed"],
)
def test_bad_inputs_are_input_errors(ck: ModuleType, call: Any, named: str) -> None:
    with pytest.raises(InputError) as info:
        call(ck)
    assert named in info.value.message


_CONFIG = "!llvm.struct<(array<3 x i32>, array<3 x i32>, i64, ptr, ptr, i32)>"  # cudaLaunchConfig_t


def _host(*sizes: str) -> str:
    """Lowered host IR as the DSL writes it: one function per launch, storing `size` into the
    config's dynamicSmemBytes field (a constant, or a value computed at run time)."""
    out = []
    for n, size in enumerate(sizes):
        value = f"llvm.mlir.constant({size} : i64) : i64" if size.isdigit() else "llvm.mul %a, %b"
        out.append(
            f"llvm.func @host{n}(%arg0: i64) {{\n"
            f"    %13 = {value}\n"
            f"    %153 = llvm.getelementptr %147[0, 2] : (!llvm.ptr) -> !llvm.ptr, {_CONFIG}\n"
            "    llvm.store %13, %153 : i64, !llvm.ptr\n}\n"
        )
    return "module {\n" + "".join(out) + "}\n"


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        (("132096",), '{"shared": 132096}'),
        (("0", "0"), '{"shared": 0}'),
        (("1024", "2048"), ""),  # two launches asking for different sizes: no one number
        (("runtime",), ""),  # computed when launched
        ((), ""),  # no launch at all
    ],
)
def test_launch_metadata_reads_the_dynamic_shared_memory_of_the_launch(
    sizes: tuple[str, ...], expected: str
) -> None:
    from sassview.frontends.cute import launch_metadata

    assert launch_metadata(_host(*sizes)) == expected


@pytest.mark.compile
def test_a_host_that_launches_no_kernel_says_so(ck: ModuleType) -> None:
    # The DSL hands back the file names of a .ptx and a .cubin it never wrote.
    bad = load("cute_bad_kernels")
    with pytest.raises(CompileError, match="produced no PTX") as info:
        compile_cute(bad.launches_nothing, ck.fake_args(64)[0], arch="sm_90a")
    assert "launch a @cute.kernel" in info.value.hint
