"""The PTX parser against recorded NVRTC 13.5, Triton 3.9 and CuTe DSL output, and bad input.

The recordings under tests/data/ptx/ come from tests/data/ptx/record.py; the facts asserted
here (line numbers, counts) were read off those files, so re-recording means re-checking them.
No compiler is needed to run these tests.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sassview.errors import ParseError
from sassview.ir import PtxFunction, PtxInstruction, PtxModule, PtxRegisterDecl, SourceLoc
from sassview.parse import ptx, ptx_lex
from sassview.parse.ptx import parse_ptx

DATA = Path(__file__).parent / "data" / "ptx"
CORPUS = Path(__file__).parent / "corpus"
HEAD = ".version 8.0\n.target sm_80\n"


def load(name: str) -> PtxModule:
    return parse_ptx((DATA / f"{name}.ptx").read_text(), name)


def only(module: PtxModule) -> PtxFunction:
    assert len(module.functions) == 1
    return module.functions[0]


def at(func: PtxFunction, line: int) -> PtxInstruction:
    found = [i for i in func.instructions if i.line == line]
    assert len(found) == 1, f"{len(found)} instructions on line {line}"
    return found[0]


def opcodes(func: PtxFunction) -> dict[str, int]:
    return dict(Counter(i.opcode for i in func.instructions))


# -- NVRTC ---------------------------------------------------------------------------------


def test_vecadd_header_function_and_instructions() -> None:
    m = load("vecadd_sm80")
    assert (m.version, m.target, m.address_size) == ("9.5", "sm_80", 64)
    assert dict(m.files) == {1: "/src/vecadd.cu"}  # .file comes after the function
    f = only(m)
    assert (f.name, f.is_entry, f.start_line, f.end_line) == ("vecadd", True, 15, 64)
    assert f.params == tuple(f"vecadd_param_{i}" for i in range(4))
    assert f.registers == (
        PtxRegisterDecl(".pred", "%p", 2),
        PtxRegisterDecl(".f32", "%f", 4),
        PtxRegisterDecl(".b32", "%r", 6),
        PtxRegisterDecl(".b64", "%rd", 11),
    )
    assert opcodes(f) == {
        "ld": 6, "mov": 3, "mad": 1, "setp": 1, "bra": 1, "cvta": 3, "mul": 1, "add": 4,
        "st": 1, "ret": 1,
    }  # fmt: skip
    assert dict(f.labels) == {"$L__BB0_2": 60}
    assert (f.maxntid, f.reqntid, f.minnctapersm, f.maxnreg, f.pragmas) == (None,) * 4 + ((),)

    branch = at(f, 40)  # @%p1 bra $L__BB0_2;
    assert (branch.guard, branch.guard_negated, branch.opcode) == ("%p1", False, "bra")
    assert branch.operands == ("$L__BB0_2",)
    load_b = at(f, 51)  # ld.global.nc.f32 %f1, [%rd8];
    assert (load_b.opcode, load_b.modifiers) == ("ld", ("global", "nc", "f32"))
    assert load_b.mnemonic == "ld.global.nc.f32"
    assert load_b.operands == ("%f1", "[%rd8]")
    assert load_b.source == SourceLoc("/src/vecadd.cu", 5, 9)
    assert at(f, 29).source == SourceLoc("/src/vecadd.cu", 1, 0)  # the function's own .loc
    assert at(f, 62).source == SourceLoc("/src/vecadd.cu", 7, 1)  # ret, after the label


def test_unroll_pragmas_are_kept_with_their_lines() -> None:
    f = only(load("nounroll_sm90"))
    # `#pragma unroll 1` marks one loop; NVVM also marks the loop it unrolled by 4 and that
    # loop's remainder, so they are not unrolled again.
    assert f.pragmas == ((48, "nounroll"), (79, "nounroll"), (105, "nounroll"))
    assert {f.labels[label] for label in ("$L__BB0_2", "$L__BB0_6", "$L__BB0_9")} == {47, 78, 104}
    assert opcodes(f)["bra"] == 7
    assert len(f.instructions) == 62


def test_inlined_device_functions_give_the_whole_call_chain() -> None:
    m = load("inlined_sm90")
    f = only(m)
    cu = "/src/inlined.cu"
    # .loc 1 13 9 / .loc 1 6 5, ..., inlined_at 1 13 9 / .loc 1 2 5, ..., inlined_at 1 6 5
    square = at(f, 49)  # mul.f32 %f5, %f2, %f2: square() in norm2() in magnitude()
    assert square.source == SourceLoc(cu, 2, 5, SourceLoc(cu, 6, 5, SourceLoc(cu, 13, 9)))
    assert [(s.line, s.column) for s in square.source.frames()] == [(2, 5), (6, 5), (13, 9)]
    assert at(f, 52).source == SourceLoc(cu, 6, 5, SourceLoc(cu, 13, 9))  # sqrt in norm2
    assert at(f, 58).source == SourceLoc(cu, 13, 9)  # st.global, back in the kernel
    assert at(f, 45).operands == ("{%f1, %f2}", "[%rd5]")  # ld.global.nc.v2.f32
    assert len(f.instructions) == 21  # the .debug_str section after the body adds nothing


def test_launch_bounds_cluster_dims_and_func_calls() -> None:
    m = load("bounds_sm90")  # also holds a .const array with an initializer and a .global
    poly, bounded, clustered = m.functions
    assert (poly.name, poly.is_entry, poly.start_line, poly.end_line) == ("_Z4polyf", False, 17, 37)
    assert poly.params == ("_Z4polyf_param_0",)  # the return parameter is not a parameter
    assert (bounded.maxntid, bounded.minnctapersm, bounded.reqntid) == ((128, 1, 1), 4, None)
    # .explicitcluster / .reqnctapercluster 2, 1, 1 are read past; .maxnreg is kept
    assert (clustered.maxnreg, clustered.maxntid, clustered.start_line) == (64, None, 118)
    call = at(bounded, 94)  # call.uni (retval0),\n _Z4polyf,\n (\n param0\n );
    assert (call.opcode, call.modifiers) == ("call", ("uni",))
    assert call.operands == ("(retval0)", "_Z4polyf", "(param0)")
    assert PtxRegisterDecl(".b32", "temp_param_reg") in bounded.registers  # from { // callseq
    assert at(bounded, 99).mnemonic == "ld.param.f32"  # after the call, still in the callseq
    assert at(bounded, 110).operands == ("%r14", "[%rd5]", "1")
    assert opcodes(bounded)["st"] == 3


def test_extern_declarations_are_not_functions() -> None:
    m = load("extern_func_sm90")  # -rdc: `.extern .func (...) _Z6helperi (...) ;` first
    assert [f.name for f in m.functions] == ["_Z5twicei", "caller"]
    twice, caller = m.functions
    assert (twice.is_entry, twice.start_line, twice.end_line) == (False, 20, 34)
    calls = [i for i in caller.instructions if i.opcode == "call"]
    assert [(c.line, c.operands[1]) for c in calls] == [(54, "_Z5twicei"), (66, "_Z6helperi")]


def test_inline_asm_scope() -> None:
    f = only(load("inline_asm_sm90"))
    assert PtxRegisterDecl(".pred", "p", 1) in f.registers  # `{ .reg .pred p; ... }`
    setp, selp = at(f, 44), at(f, 45)
    assert (setp.mnemonic, setp.operands) == ("setp.gt.u32", ("p", "%r2", "%r3"))
    assert (selp.mnemonic, selp.operands) == ("selp.u32", ("%r1", "%r3", "%r2", "p"))
    assert selp.source == SourceLoc("/src/inline_asm.cu", 6, 5)
    assert at(f, 50).operands == ("%r4", "%laneid")


def test_wgmma_and_mbarrier_inline_asm_on_sm90a() -> None:
    m = load("wgmma_sm90a")
    f = only(m)
    assert (m.target, f.maxntid) == ("sm_90a", (128, 1, 1))
    mma = at(f, 72)
    assert mma.opcode == "wgmma"
    assert mma.modifiers == ("mma_async", "sync", "aligned", "m64n16k16", "f32", "bf16", "bf16")
    assert mma.operands[0] == "{%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}"
    assert mma.operands[1:] == ("%rd3", "%rd4", "p", "1", "1", "0", "0")
    wait = at(f, 104)  # mbarrier.try_wait.parity.shared::cta.b64 P1, [%r6], %r7;
    assert wait.modifiers == ("try_wait", "parity", "shared::cta", "b64")
    assert wait.operands == ("P1", "[%r6]", "%r7")
    assert wait.source == SourceLoc("/src/wgmma.cu", 11, 5, SourceLoc("/src/wgmma.cu", 49, 5))
    assert (at(f, 105).guard, at(f, 105).mnemonic) == ("P1", "bra.uni")
    assert (f.labels["LAB_WAIT"], f.labels["DONE"]) == (103, 107)  # labels in an asm scope
    assert at(f, 92).operands == ("_", "[%r5]")  # mbarrier.arrive ... _, [%r5]
    assert opcodes(f)["wgmma"] == 4 and opcodes(f)["mbarrier"] == 3


def test_recursive_template_inlining_unwinds_to_the_right_frame() -> None:
    """Unroll<12>: twelve nested frames all at `3 9`. While the recursion unwinds, a `.loc`
    refers back to a `3 9` frame emitted long before; function_name tells which one."""
    f = only(load("recursive_sm90"))
    cu = "/src/recursive.cu"
    loads = [i for i in f.instructions if i.mnemonic == "ld.global.nc.f32"]
    assert len(loads) == 12
    for n, ins in enumerate(loads, start=1):  # Unroll<n> loads x[t + n * 97]
        assert ins.operands[1] == f"[%rd6+{n * 97 * 4}]"
        assert ins.source is not None
        frames = [(s.line, s.column) for s in ins.source.frames()]
        # its own line, one `3 9` call per level above it, then the kernel's call
        assert frames == [(4, 9)] + [(3, 9)] * (12 - n) + [(12, 5)], n
        assert ins.source.outermost == SourceLoc(cu, 12, 5)


def test_inline_chains_past_the_cap_keep_both_ends() -> None:
    locs = "".join(
        f".loc 1 {n} 1, function_name $L__f{n}, inlined_at 1 {n - 1} 1\n" for n in range(2, 400)
    )
    text = HEAD + f'.entry k()\n{{\n.loc 1 1 1\n{locs}ret;\n}}\n.file 1 "a.cu"\n'
    source = only(parse_ptx(text)).instructions[0].source
    assert source is not None
    lines = [s.line for s in source.frames()]
    assert len(lines) == 256  # the cap: SourceLoc's == and str() recurse
    assert lines == [399, *range(255, 0, -1)]  # the innermost, then the outermost 255
    assert str(source).startswith("a.cu:399:1 (inlined at a.cu:255:1")


# -- Triton and the CuTe DSL ---------------------------------------------------------------


def test_triton_vector_add() -> None:
    m = load("triton_add_sm90")
    f = only(m)
    assert (m.version, m.target, dict(m.files)) == ("9.4", "sm_90a", {1: "/src/triton_kernels.py"})
    assert (f.name, f.start_line, f.end_line, f.reqntid) == ("add_kernel", 11, 234, (128,))
    # `.param .u64 .ptr .global .align 1 add_kernel_param_0`
    assert f.params == tuple(f"add_kernel_param_{i}" for i in range(6))
    loads = [i for i in f.instructions if i.mnemonic == "ld.global.b32"]
    assert [i.guard for i in loads] == [f"%p{n}" for n in range(1, 9)] * 2
    assert loads[0].line == 75 and loads[0].operands == ("{ %r1 }", "[ %rd1 + 0 ]")
    assert loads[0].source == SourceLoc("/src/triton_kernels.py", 12, 9)
    assert len(f.instructions) == 100 and opcodes(f)["st"] == 8  # DWARF sections skipped


def test_triton_matmul_wgmma_and_inlined_cdiv() -> None:
    m = load("triton_matmul_sm90")
    f = only(m)  # the module-level `.extern .shared ... global_smem[];` is skipped
    assert dict(m.files) == {1: "/src/triton_kernels.py", 2: "/triton/language/standard.py"}
    assert (f.start_line, f.end_line, len(f.instructions)) == (12, 1027, 707)
    mmas = [i for i in f.instructions if i.mnemonic.startswith("wgmma.mma_async")]
    assert [i.line for i in mmas] == [554, 559]
    assert mmas[0].operands[0].count("%r") == 32 and len(mmas[0].operands) == 8
    cdiv = at(f, 79)  # add.s32 from tl.cdiv, inlined from standard.py
    assert cdiv.source == SourceLoc(
        "/triton/language/standard.py", 43, 13, SourceLoc("/src/triton_kernels.py", 43, 23)
    )


def test_triton_nested_inlining_three_frames() -> None:
    f = only(load("triton_nested_sm90"))
    py = "/src/triton_kernels.py"
    # _square_plus_one (line 57) in _norm_ish (line 62) in nested_kernel (line 70)
    assert at(f, 68).source == SourceLoc(py, 57, 12, SourceLoc(py, 62, 20, SourceLoc(py, 70, 9)))
    # the second call of _square_plus_one has its own call site column
    assert at(f, 80).source == SourceLoc(py, 57, 12, SourceLoc(py, 62, 43, SourceLoc(py, 70, 9)))
    std = "/triton/language/standard.py"
    reduce = at(f, 90).source  # tl.sum: standard.py inlined twice into the kernel
    assert reduce is not None
    assert [(s.file, s.line) for s in reduce.frames()] == [(std, 287), (std, 314), (py, 71)]


def test_cute_dsl_kernel() -> None:
    m = load("cute_add_sm90a")
    f = only(m)
    assert f.name.startswith("kernel_cutlass_add_k_") and f.reqntid == (256, 1, 1)
    # `.param .align 8 .b8 <name>_param_0[8]`: the name without its size
    assert [p.rsplit("_", 2)[1:] for p in f.params] == [["param", str(i)] for i in range(3)]
    assert at(f, 62).mnemonic == "add.f32"
    assert at(f, 62).source == SourceLoc("/src/cute_kernels.py", 15, 21)


# -- synthetic PTX: the forms the compilers above happen not to write ----------------------

SYNTHETIC = """\
// comment { with braces }
.version 8.4 /* inline */
.target sm_90a, texmode_independent
.address_size 64
.pragma "nounroll";
.global .align 4 .b32 table[3] = {1, 2, 3};
.const .align 8 .b8 nested[4] = {{1, 2}, {3, 4}};
.extern .func (.param .b32 r) ext_fn (.param .b32 a);
/* a block comment
   spanning { lines } ; with braces */
.weak .func (.param .b32 ret) helper(.param .b32 helper_a, .param .align 8 .b8 helper_b[16])
.noreturn
{
    .reg .b32 %r<3>, %q;
    .loc 2 10 3
    ld.param.b32 %r1, [helper_a]; add.s32 %r2, %r1, 1;   st.param.b32 [ret], %r2;
    ret;
}
.visible .entry k(.param .u64 k_p0)
.maxntid 256
.maxclusterrank 8
.reqnctapercluster 2, 1, 1 .explicitcluster
.pragma "nounroll";
{
    .reg .pred %p<2>;
    .loc 2 20 5
L0: mov.u32 %r1, %tid.x; // trailing comment
    .loc 2 30 7, function_name_label = $L__info_string0, inlined_at 2 20 5
    @!%p1 bra L0;
    { .reg .pred p; setp.eq.u32 p, %r1, 0; @p mov.b64 {%r1, %r2}, %rd1; }
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
    .pragma "used_bytes_mask 0xff";
    add.s32 /* mid */ %r1, %r1, 1;
    ret;
}
\t.file\t1 "/a/b.cu", 1700000000, 1234
\t.file\t2 "/x/y;z // w.cu"
\t.section\t.debug_str
\t{
$L__info_string0:
.b8 95,90,0
\t}
\t.section\t.debug_macinfo\t{\t}
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_synthetic_forms(newline: str) -> None:
    m = parse_ptx(SYNTHETIC.replace("\n", newline), "syn")
    assert (m.version, m.target) == ("8.4", "sm_90a")  # `, texmode_independent` dropped
    assert dict(m.files) == {1: "/a/b.cu", 2: "/x/y;z // w.cu"}
    assert [f.name for f in m.functions] == ["helper", "k"]  # .extern .func ext_fn skipped
    helper, k = m.functions
    assert (helper.is_entry, helper.params) == (False, ("helper_a", "helper_b"))
    assert helper.registers == (PtxRegisterDecl(".b32", "%r", 3), PtxRegisterDecl(".b32", "%q"))
    assert [(i.line, i.opcode) for i in helper.instructions] == [
        (16, "ld"), (16, "add"), (16, "st"), (17, "ret"),
    ]  # fmt: skip
    assert helper.pragmas == ((5, "nounroll"),)  # the module's pragma, out of the body
    assert (k.start_line, k.end_line, k.maxntid) == (19, 35, (256,))
    assert k.pragmas == ((5, "nounroll"), (23, "nounroll"), (32, "used_bytes_mask 0xff"))
    assert dict(k.labels) == {"L0": 27}  # not prototype_0: it names a .callprototype
    branch = at(k, 29)
    assert (branch.guard, branch.guard_negated, branch.operands) == ("%p1", True, ("L0",))
    assert branch.source == SourceLoc("/x/y;z // w.cu", 30, 7, SourceLoc("/x/y;z // w.cu", 20, 5))
    in_scope = [i for i in k.instructions if i.line == 30]
    assert [(i.opcode, i.guard, i.operands) for i in in_scope] == [
        ("setp", None, ("p", "%r1", "0")), ("mov", "p", ("{%r1, %r2}", "%rd1")),
    ]  # fmt: skip
    assert at(k, 33).operands == ("%r1", "%r1", "1")
    assert PtxRegisterDecl(".pred", "p") in k.registers


def test_vector_registers_and_address_size_default() -> None:
    text = ".version 7.0\n.target sm_75\n.entry e()\n{\n.reg .v4 .f32 v;\nret;\n}\n"
    m = parse_ptx(text)
    assert m.address_size == 32  # PTX's default when .address_size is absent
    assert only(m).registers == (PtxRegisterDecl(".v4.f32", "v"),)


def test_long_statements_and_sections_stay_linear() -> None:
    """A 200k-line initializer and a 200k-line DWARF section: quadratic work would hang."""
    numbers = ",\n".join(["1"] * 200_000)
    dwarf = "\n".join([".b8 1 // DW_AT_something"] * 200_000)
    text = (
        f".version 8.0\n.target sm_80\n.global .b8 x[200000] = {{{numbers}}};\n"
        f".entry e()\n{{\nret;\n}}\n.section .debug_info\n{{\n{dwarf}\n}}\n"
    )
    f = only(parse_ptx(text))  # quadratic work would not finish: CI's time limit catches it
    assert (f.start_line, len(f.instructions)) == (200_003, 1)


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "empty"),
        ("  \n\t\n", 1, "empty"),
        ("int main() { return 0; }\n", 1, "does not look like PTX"),
        ("hello world\n", 1, "no .version"),
        (".version 8.0\n.entry k()\n{\nret;\n}\n", 1, "no .target"),
        (HEAD + ".entry k()\n{\n ret;\n", 3, "never closes"),
        (HEAD + '.entry k()\n{\n.loc 3 1 1\nret;\n}\n.file 1 "a.cu"\n', 5, "file 3"),
        (HEAD + "}\n", 3, "closes nothing"),
        (HEAD + ".entry k()\n{\n.loc 1 x 1\nret;\n}\n", 5, "expected a number"),
        (HEAD + ".entry k()\n{\nret;\n.entry j()\n{\nret;\n}\n", 6, "inside another scope"),
        (HEAD + "mov.u32 %r1, 0;\n", 3, "outside any function"),
        (HEAD + ".entry k()\n{\n@%p1\n;\n}\n", 5, "guard without"),
        (HEAD + ".entry k()\n{\n12abc %r1;\n}\n", 5, "not a PTX instruction"),
        (HEAD + ".entry k() .maxntid x\n{\n}\n", 3, "expected a number"),
        (HEAD + ".entry ()\n{\n}\n", 3, "without a name"),
        (HEAD + ".entry k(\n{\n}\n", 3, "never close"),
        (HEAD + ".entry k()\n{\nret;\n}\nmov.u32 %r1, 0\n", 7, "never ends"),
    ],
)
def test_bad_input_raises_parse_error_with_line(text: str, line: int, message: str) -> None:
    with pytest.raises(ParseError) as err:
        parse_ptx(text, "bad.ptx")
    assert err.value.where == f"bad.ptx:{line}"
    assert message in err.value.message
    assert err.value.hint


REAL = {p.stem: p.read_text() for p in sorted(DATA.glob("*.ptx"))}
_PTX_CHARS = list('{}[]();,:."/*@!%$<>=+- \t\n\r') + [".loc 1 2 3", ".entry", ".section", "\\"]
_junk = st.lists(st.sampled_from(_PTX_CHARS) | st.characters(), max_size=12).map("".join)
_bytes = st.binary(max_size=16).map(lambda b: b.decode("utf-8", "replace"))
_edit = st.tuples(
    st.sampled_from(["delete", "duplicate", "truncate", "insert", "replace", "swap"]),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=0, max_value=10**6),
    _junk | _bytes,
)


def _mutate(text: str, edits: list[tuple[str, int, int, str]]) -> str:
    lines = text.split("\n")
    for op, a, b, junk in edits:
        i, j = a % len(lines), b % len(lines)
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "truncate":  # cut the file mid-line
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: b % (len(lines[-1]) + 1)]
        elif op == "insert":
            line = lines[i]
            cut = b % (len(line) + 1)
            lines[i] = line[:cut] + junk + line[cut:]
        elif op == "replace":
            lines[i] = junk
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(REAL)), edits=st.lists(_edit, min_size=1, max_size=6))
def test_mutated_real_ptx_raises_only_parse_error(
    name: str, edits: list[tuple[str, int, int, str]]
) -> None:
    text = _mutate(REAL[name], edits)
    try:
        module = parse_ptx(text, name)
    except ParseError as err:
        assert err.where.startswith(f"{name}:")
        return
    for f in module.functions:  # what does parse is well formed
        assert f.start_line <= f.end_line
        assert all(f.start_line < i.line < f.end_line for i in f.instructions)


# -- the lines read in bulk ----------------------------------------------------------------

# Finds nothing, with RECORD's groups: with it every line goes the general way.
_NO_RECORDS = re.compile("(?!)" + "()" * ptx_lex.RECORD.groups)
# Lines of every shape RECORD takes, and of shapes next to them.
_SHAPE_LINES = [
    "\t.loc\t1 4 3",
    "\tld.param.u64 \t%rd1, [p];",
    "\t@%p1 bra \t$L__BB0_2;",
    '\t@!%p2 add.s32 %r1, %r2, 4;   // a comment, "quoted" /* */',
    "$L__BB0_2:",
    "\t.loc\t2 9 5, function_name $L__info_string0, inlined_at 1 4 3 // inlined",
    "\tld.global.v2.f32 \t{%f1, %f2}, [%rd6+8];",
    "\tst.shared::cta.v2.f32 \t[%r1], {%f1, %f2};",
    "\tmov.b64 \t%rd2, {%r1,%r2};",
    "\tadd.s32 %r1 , %r2, [ %r3 + 4 ];",
    "\tadd.s32 %r1, , %r2;",
    "\tadd.s32 %r1, %r2,, [%r3];",
    "\tadd.s32 %r1, [%r2, %r3];",
    "\tadd.s32 %r1,x %r2;",
    "\tcall.uni (retval0), f, (param0);",
    "\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;",
    "\tadd.s32\t\t%r1,%r2;\r",
    "\t.loc\t1 5 3\r",
    "\tret;",
    "",
    "\tld.global.nc.f32 \t%f5, [%rd6+132]; ld.global.f32 %f6, [%rd6];",
    "\tbar.sync \t0;",
    "L1:\tadd.s32 %r1, %r2, %r3;",
    "\t.loc 1 7",
    "\t@%p1 ret;",
    "\t@%p}1 add.s32 %r1, %r2;",  # the general path ends a statement at the brace
    '\t@%p"1 add.s32 %r1, %r2;',
]
_HEADER = HEAD + '.file 1 "/a.cu"\n.file 2 "/b.h"\n.visible .entry k(.param .u64 p)\n{\n'
_SHAPES = {
    "shapes": _HEADER + "\n".join(_SHAPE_LINES) + "\n}\n",
    # Each alone in a run of plain lines, so that the bulk checks see it first.
    **{
        f"shape{i}": _HEADER + f"\t.loc\t1 2 3\n{line}\n\tadd.s32 \t%r1, %r2, %r3;\n}}\n"
        for i, line in enumerate(_SHAPE_LINES)
    },
}
_RECORD_EDGES = [", ", ",", " ", "\t", "\r", "\x0b", "\xa0", "{", "}", "[", "]", "(", ")"]
_RECORD_EDGES += [":", "::", ";", '"', "//", "/*", "*/", "@", "@!", "$L1:", ", inlined_at 1 2 3"]
_RECORD_EDGES += ["1" * 25]
_record_edit = st.tuples(
    st.sampled_from(["delete", "duplicate", "insert", "insert", "replace", "swap"]),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=0, max_value=10**6),
    st.lists(st.sampled_from(_RECORD_EDGES), min_size=1, max_size=3).map("".join),
)


def _read(text: str) -> str:
    try:
        return repr(parse_ptx(text, "t"))
    except ParseError as err:
        return f"{err.where}: {err.message} ({err.hint})"


def _read_by_lines(text: str) -> str:
    with mock.patch.object(ptx, "RECORD", _NO_RECORDS):
        return _read(text)


@pytest.mark.parametrize("name", [*sorted(REAL), *_SHAPES])
def test_records_read_in_bulk_as_line_by_line(name: str) -> None:
    """The runs of lines RECORD finds are read in bulk, into what the general path makes of
    each line: the same module, or the same error on the same line."""
    text = REAL.get(name) or _SHAPES[name]
    assert _read(text) == _read_by_lines(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from([*sorted(REAL), "shapes"]),
    edits=st.lists(_record_edit, min_size=1, max_size=4),
)
def test_edited_records_read_in_bulk_as_line_by_line(
    name: str, edits: list[tuple[str, int, int, str]]
) -> None:
    text = _mutate(REAL.get(name) or _SHAPES[name], edits)
    assert _read(text) == _read_by_lines(text)


def test_lines_almost_records_stay_linear() -> None:
    """Lines RECORD gives up on after a long stretch: backtracking over it twice would hang."""
    blanks = " " * 100_000
    lines = [f"add{blanks}x", f"add {blanks}", f"\t{blanks}x", f".loc{blanks}1", f"a ,{blanks};"]
    text = HEAD + ".entry e()\n{\n" + "\n".join(lines * 4) + "\nret;\n}\n"
    with contextlib.suppress(ParseError):  # backtracking twice would not finish in CI's time
        parse_ptx(text)


@given(st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_ptx(text)
    with contextlib.suppress(ParseError):
        parse_ptx(HEAD + ".entry k()\n{\n" + text + "\n}\n")


# -- the shared corpus ---------------------------------------------------------------------

CORPUS_PTX = sorted(CORPUS.glob("**/*.ptx"))


@pytest.mark.skipif(not CORPUS_PTX, reason="no tests/corpus/**/*.ptx recorded yet")
@pytest.mark.parametrize("path", CORPUS_PTX, ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_ptx_parses(path: Path) -> None:
    assert parse_ptx(path.read_text(), str(path)).functions
