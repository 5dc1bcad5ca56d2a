"""tensor_cores on kernels written so that each path, shape and type is known.

As in test_analyses_memory.py, each check runs on the kernel compiled now (`live`, marked
`compile`), on the recorded cubin (`recorded`) and on the recorded listings read by the parsers
alone (`json`, `text`). Loops are small stand-ins with the attributes the analysis reads, so these
tests do not depend on the loop finder.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import analyses_data as recorded
import pytest
from analyses_data import MODES, program

from sassview.analyses import tensor_cores
from sassview.analyses.base import AnalysisContext, Findings, Severity
from sassview.ir import Kernel, SassInstruction, SourceLoc
from sassview.parse.sass_operands import parse_operand


@dataclasses.dataclass(frozen=True)
class StandInLoop:
    index: int
    depth: int
    addresses: tuple[int, ...]
    source: SourceLoc | None = None


def analyse(
    mode: str, case: str, arch: str, kernel: str, loops: tuple[Any, ...] = ()
) -> tuple[Findings, Kernel]:
    return recorded.analyse(tensor_cores, mode, case, arch, kernel, loops)


def ops(f: Findings) -> list[tuple[Any, ...]]:
    return [
        (o["mnemonic"], o["shape"], o["accumulator"], o["inputs"], o["count"])
        for o in f.facts["ops"]
    ]


@pytest.mark.parametrize("mode", MODES)
def test_mma_sync_bf16_on_sm80(mode: str) -> None:
    f, k = analyse(mode, "mma", "sm_80", "_Z8mma_syncPKjS0_Pf")
    assert f.facts["path"] == "mma.sync"
    assert ops(f) == [("HMMA.16816.F32.BF16", "m16n8k16", "F32", "BF16", 1)]
    assert f.facts["ptx_ops"] == {"mma.sync": 1}
    assert (f.facts["fences"], f.facts["waits"]) == (0, 0)
    (note,) = f.annotations
    assert (note.kind, note.severity) == ("tensor-core", Severity.INFO)
    assert [k.instruction_at(a).opcode for a in note.addresses] == ["HMMA"]  # type: ignore[union-attr]
    assert [s.line for s in note.source] == [8]


ALL = ("sm_80", "sm_90a", "sm_120")
MMA_KINDS = {
    # kernel: {arch: (mnemonic, shape, accumulator, inputs, count)}
    "mma_tf32": {a: ("HMMA.1688.F32.TF32", "m16n8k8", "F32", "TF32", 1) for a in ALL},
    "mma_s8": {a: ("IMMA.16832.S8.S8", "m16n8k32", "S32", "S8", 1) for a in ALL},
    "mma_f16acc": {a: ("HMMA.16816.F16", "m16n8k16", "F16", "F16", 1) for a in ALL},
    "mma_f64": {
        "sm_80": ("DMMA.884", "m8n8k4", "F64", "F64", 1),  # sm_80 prints DMMA.884 ...
        "sm_90a": ("DMMA.8x8x4", "m8n8k4", "F64", "F64", 1),  # ... later chips DMMA.8x8x4
        "sm_120": ("DMMA.8x8x4", "m8n8k4", "F64", "F64", 1),
    },
    "mma_e4m3": {
        "sm_90a": ("HMMA.16816.F32", "m16n8k16", "F32", "F16", 2),  # emulated: two f16 MMAs
        "sm_120": ("QMMA.16832.F32.E4M3.E4M3", "m16n8k32", "F32", "E4M3", 1),
    },
}  # fmt: skip
KIND_CASES = [(k, a) for k, by_arch in MMA_KINDS.items() for a in by_arch]


@pytest.mark.parametrize(("kernel", "arch"), KIND_CASES, ids=[f"{k}-{a}" for k, a in KIND_CASES])
@pytest.mark.parametrize("mode", MODES)
def test_mma_sync_shapes_and_types(mode: str, kernel: str, arch: str) -> None:
    f, _ = analyse(mode, "mma_kinds", arch, kernel)
    assert f.facts["path"] == "mma.sync"
    assert ops(f) == [MMA_KINDS[kernel][arch]]


@pytest.mark.parametrize(("arch", "emulated"), [("sm_90a", True), ("sm_120", False)])
@pytest.mark.parametrize("mode", MODES)
def test_fp8_mma_sync_emulation_is_noted(mode: str, arch: str, emulated: bool) -> None:
    f, _ = analyse(mode, "mma_kinds", arch, "mma_e4m3")
    notes = [a for a in f.annotations if "emulated" in a.message]
    assert len(notes) == int(emulated)
    if emulated:
        assert notes[0].severity is Severity.NOTE and notes[0].message.startswith("fp8 mma.sync")


@pytest.mark.parametrize("mode", MODES)
def test_wgmma_with_fence_and_wait(mode: str) -> None:
    f, _ = analyse(mode, "wgmma", "sm_90a", "_Z14wgmma_m64n8k16PKyPf")
    assert f.facts["path"] == "wgmma"
    assert ops(f) == [("HGMMA.64x8x16.F32.BF16", "m64n8k16", "F32", "BF16", 1)]
    assert (f.facts["fences"], f.facts["waits"]) == (1, 1)  # WARPGROUP.ARRIVE / WARPGROUP.DEPBAR
    assert f.facts["ptx_ops"] == {"wgmma.mma_async": 1}
    (note,) = f.annotations
    assert "1 fence(s), 1 wait(s)" in note.message


@pytest.mark.parametrize(
    ("kernel", "expect"),
    [
        ("wgmma_bf16_n128", ("HGMMA.64x128x16.F32.BF16", "m64n128k16", "F32", "BF16", 1)),
        ("wgmma_s8_n32", ("IGMMA.64x32x32.S8.U8", "m64n32k32", "S32", "S8.U8", 1)),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_wgmma_shapes(mode: str, kernel: str, expect: tuple[Any, ...]) -> None:
    f, _ = analyse(mode, "wgmma_shapes", "sm_90a", kernel)
    assert (f.facts["path"], ops(f)) == ("wgmma", [expect])


@pytest.mark.parametrize("mode", MODES)
def test_tcgen05_kinds_come_from_the_ptx(mode: str) -> None:
    f, _ = analyse(mode, "tcgen05", "sm_100a", "tcgen05_mma")
    assert f.facts["path"] == "tcgen05"
    assert ops(f) == [
        ("UTCHMMA", None, None, "kind::f16", 1),
        ("UTCQMMA", None, None, "kind::f8f6f4", 1),
    ]
    assert f.facts["ptx_ops"] == {"tcgen05.mma": 2}


@pytest.mark.parametrize(
    ("arch", "severity"), [("sm_80", Severity.INFO), ("sm_90", Severity.WARNING)]
)
@pytest.mark.parametrize("mode", MODES)
def test_plain_ffma_matmul_is_an_fma_fallback(mode: str, arch: str, severity: Severity) -> None:
    f, k = analyse(mode, "fma", arch, "sgemm")
    assert f.facts["path"] == "none" and f.facts["ops"] == []
    assert f.facts["fma"] == {"FFMA": 112}  # 16 per k-step, the k0 loop unrolled by ptxas
    assert f.facts["fma_fallback"] is True
    (note,) = f.annotations
    assert note.severity is severity and note.message.startswith("fp32 FMA fallback")
    if arch == "sm_90":
        assert "sm_90a" in note.hint
    assert len(note.addresses) == 112
    # Per loop, with a stand-in loop over the FFMA region and one outside it.
    ffma = [i.address for i in k.instructions if i.opcode == "FFMA"]
    body = tuple(i.address for i in k.instructions if ffma[0] <= i.address <= ffma[-1])
    head = tuple(i.address for i in k.instructions if i.address < ffma[0])
    loops = (StandInLoop(0, 1, body, SourceLoc("fma.cu", 8)), StandInLoop(1, 1, head))
    f, _ = analyse(mode, "fma", arch, "sgemm", loops)
    assert f.facts["per_loop"] == {"0": "none", "1": "none"}
    assert f.facts["fma_fallback_loops"] == [0]
    (note,) = f.annotations
    assert note.loops == (0,) and "loop 0" in note.message
    assert [(s.file, s.line) for s in note.source] == [("fma.cu", 8)]


@pytest.mark.parametrize("mode", ["recorded", "json"])
def test_only_the_innermost_fallback_loop_of_a_nest_is_reported(mode: str) -> None:
    _, k = analyse(mode, "fma", "sm_90", "sgemm")
    ffma = [i.address for i in k.instructions if i.opcode == "FFMA"]
    inner = tuple(i.address for i in k.instructions if ffma[0] <= i.address <= ffma[-1])
    outer = tuple(i.address for i in k.instructions)
    loops = (StandInLoop(0, 1, outer), StandInLoop(1, 2, inner))
    f, _ = analyse(mode, "fma", "sm_90", "sgemm", loops)
    assert f.facts["fma_fallback_loops"] == [1]


@pytest.mark.parametrize("mode", ["recorded", "json"])
def test_per_loop_path_of_a_tensor_loop(mode: str) -> None:
    _, k = analyse(mode, "mma", "sm_80", "_Z8mma_syncPKjS0_Pf")
    everything = tuple(i.address for i in k.instructions)
    f, _ = analyse(mode, "mma", "sm_80", "_Z8mma_syncPKjS0_Pf", (StandInLoop(3, 1, everything),))
    assert f.facts["per_loop"] == {"3": "mma.sync"}
    assert f.annotations[0].loops == (3,)


@pytest.mark.parametrize("mode", ["recorded", "json"])
def test_hfma2_mma_register_moves_are_not_fmas(mode: str) -> None:
    # spill.cu's kernel zeroes registers with `HFMA2.MMA Rn, -RZ, RZ, 0, 0`; its FMAs are 64 FFMA.
    prog = program(mode, "spill", "sm_80")
    k = prog.kernel("_Z5spillPKfPfi")
    assert any(i.mnemonic == "HFMA2.MMA" for i in k.instructions)
    f = tensor_cores.run(AnalysisContext(prog, k, None, (), None))  # type: ignore[arg-type]
    assert f.facts["fma"] == {"FFMA": 64}


@pytest.mark.parametrize("mode", ["recorded", "json"])
def test_warning_when_ptx_has_wgmma_and_sass_does_not(mode: str) -> None:
    prog = program(mode, "wgmma", "sm_90a")
    k = prog.kernel("_Z14wgmma_m64n8k16PKyPf")
    stripped = dataclasses.replace(
        k, instructions=tuple(i for i in k.instructions if i.opcode != "HGMMA")
    )
    f = tensor_cores.run(AnalysisContext(prog, stripped, None, (), None))  # type: ignore[arg-type]
    (warning,) = [a for a in f.annotations if a.severity is Severity.WARNING]
    assert "wgmma" in warning.message and "sm_90a" in warning.hint


def _ins(mnemonic: str, *operands: str) -> SassInstruction:
    opcode, *mods = mnemonic.split(".")
    return SassInstruction(0, opcode, tuple(mods), tuple(parse_operand(o) for o in operands))


@pytest.mark.parametrize(
    ("mnemonic", "decoded"),
    [
        ("HMMA.16816.F32.BF16", ("m16n8k16", "F32", "BF16")),
        ("HMMA.16816.F32", ("m16n8k16", "F32", "F16")),
        ("HMMA.1688.F32.TF32", ("m16n8k8", "F32", "TF32")),
        ("IMMA.16864.U4.U4", ("m16n8k64", "S32", "U4")),
        ("BMMA.168256.XOR.POPC", ("m16n8k256", "S32", "B1")),
        ("DMMA.884", ("m8n8k4", "F64", "F64")),
        ("QMMA.16832.F32.E4M3.E5M2", ("m16n8k32", "F32", "E4M3.E5M2")),
        ("OMMA.SF.16864.F32.E2M1.E2M1.E8", ("m16n8k64", "F32", "E2M1")),  # sm_120a block scale
        ("HGMMA.64x64x16.F16", ("m64n64k16", "F16", "F16")),
        ("QGMMA.64x64x32.F32.E4M3.E5M2", ("m64n64k32", "F32", "E4M3.E5M2")),
        ("BGMMA.64x32x256.AND.POPC", ("m64n32k256", "S32", "B1")),
    ],
)
def test_decode_real_encodings(mnemonic: str, decoded: tuple[str, str, str]) -> None:
    d = tensor_cores.decode(_ins(mnemonic))
    assert (d["shape"], d["accumulator"], d["inputs"]) == decoded


def test_paths_and_fma_moves() -> None:
    assert [tensor_cores.path_of(op) for op in ("HGMMA", "UTCOMMA", "OMMA", "HFMA2", "FFMA")] == [
        "wgmma", "tcgen05", "mma.sync", None, None,
    ]  # fmt: skip
    assert not tensor_cores.is_fma(_ins("HFMA2.MMA", "R5", "-RZ", "RZ", "0", "0"))
    assert tensor_cores.is_fma(_ins("HFMA2", "R5", "R4", "R3", "R2"))
    assert tensor_cores.is_fma(_ins("FFMA", "R5", "R4", "R3", "R2"))


# ptxas' own advisories (sassview/analyses/ptxas_advice.py) on the same wgmma loop written
# three ways; the SASS shows what ptxas says: a WARPGROUP.DEPBAR after every HGMMA.

PIPELINE = "wgmma_pipeline"


def advice(mode: str, kernel: str) -> tuple[Findings, Kernel]:
    from sassview.analyses import ptxas_advice

    return recorded.analyse(ptxas_advice, mode, PIPELINE, "sm_90a", kernel)


def depbars(k: Kernel) -> int:
    return sum(i.opcode == "WARPGROUP" and "DEPBAR" in i.modifiers for i in k.instructions)


@pytest.mark.parametrize("mode", MODES)
def test_no_advisory_when_each_k_step_waits(mode: str) -> None:
    f, k = advice(mode, "_Z15waits_each_stepPKyPfi")
    assert f.facts == {"wgmma_serialized": False, "injected_waits": 0, "advisories": []}
    assert not f.annotations
    assert depbars(k) == k.opcode_counts()["HGMMA"] == 5  # one explicit wait per k-step


@pytest.mark.parametrize("mode", MODES)
def test_serialized_pipeline_is_a_warning_at_the_wgmma(mode: str) -> None:
    f, k = advice(mode, "_Z16waits_after_loopPKyPfi")
    assert f.facts["wgmma_serialized"] and f.facts["injected_waits"] == 0
    ((code, line),) = [(a["code"], a["ptx_line"]) for a in f.facts["advisories"]]
    assert code == "C7515"
    (note,) = f.annotations
    assert note.kind == "wgmma-serialized" and note.severity is Severity.WARNING
    assert "non wgmma instructions defining accumulator registers" in note.message
    assert "scale-d = 0" in note.hint
    # ptxas names the line that ends the pipeline stage, the wait after the loop; that asm
    # left no SASS of its own (the serialized pipeline already waits), so only its source.
    assert [s.outermost.line for s in note.source] == [34]
    assert depbars(k) == k.opcode_counts()["HGMMA"] == 29  # serialized: a wait per HGMMA


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kernel", ["_Z16call_in_pipelinePKyPfi", "_Z15add_in_pipelinePKyPfi"])
def test_accumulator_use_inside_the_pipeline_injects_waits(mode: str, kernel: str) -> None:
    f, k = advice(mode, kernel)
    assert f.facts["wgmma_serialized"] and f.facts["injected_waits"] == 5
    serialized, injected = f.annotations
    assert serialized.kind == "wgmma-serialized" and "C7511" in serialized.message
    assert "registers" in serialized.hint
    # Here ptxas names a wgmma itself: the finding rests on the SASS of that asm line, the
    # HGMMA and/or the WARPGROUP.ARRIVE / DEPBAR ptxas put around it.
    found = {i.opcode for i in map(k.instruction_at, serialized.addresses) if i is not None}
    assert found and found <= {"HGMMA", "WARPGROUP"}
    assert injected.kind == "wgmma-wait-injected" and injected.severity is Severity.NOTE
    assert injected.message.startswith("ptxas injected 5 wgmma.wait_group (PTX lines ")
    assert len(injected.data["ptx_lines"]) == 5 and injected.addresses
    assert depbars(k) == k.opcode_counts()["HGMMA"] == 10


def test_advisories_are_read_from_every_report_shape() -> None:
    from sassview.parse.ptxas_log import PtxasAdvisory, parse_ptxas_advisories

    log = (
        "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are "
        "serialized due to non wgmma instructions defining accumulator registers of a wgmma "
        "between start and end of the pipeline stage in the function 'selp_b16'\n"
        "ptxas info    : (C7517) wgmma.wait_group is injected in around line 91 by compiler to "
        "allow use of registers defined by GMMA in function '_Z1kv'\n"
        "ptxas info    : (C7517) wgmma.wait_group is injected in around line 91 by compiler to "
        "allow use of registers defined by GMMA in function '_Z1kv'\n"
        "ptxas info    : Used 30 registers, used 0 barriers\n"
        "not ptxas: (C1234) something else\n"
    )
    first, second = parse_ptxas_advisories(log)  # the repeated line once
    assert first.code == "C7515" and first.function == "selp_b16" and first.ptx_line is None
    assert first.text.endswith("between start and end of the pipeline stage")
    assert second == PtxasAdvisory(
        "C7517",
        "wgmma.wait_group is injected by compiler to allow use of registers defined by GMMA",
        "_Z1kv",
        91,
    )


def test_an_advisory_about_a_called_device_function_reaches_the_calling_kernel() -> None:
    """ptxas names the non-inlined function, not the kernel: the finding goes to each kernel
    whose PTX calls it, says which function, and rests on that function's SASS and line."""
    from pathlib import Path

    from sassview.analyses import ptxas_advice
    from sassview.build import build_program
    from sassview.ir import Artifacts

    case = Path(__file__).parent / "corpus" / "bounds" / "sm_90a"  # bounded() calls slow_square()
    ptx = (case / "kernel.ptx").read_text()
    plain = build_program(
        Artifacts(kind="cuda", arch="sm_90a", ptx=ptx, cubin=(case / "kernel.cubin").read_bytes())
    )
    assert plain.ptx is not None
    callee = next(f for f in plain.ptx.functions if f.name == "_Z11slow_squaref")
    line = next(p.line for p in callee.instructions if p.opcode == "fma")  # it has SASS
    log = (
        "ptxas info    : (C7599) Potential Performance Loss: something about the callee "
        f"in line {line} in function '_Z11slow_squaref'\n"
        "ptxas info    : (C7598) Potential Performance Loss: about some other function "
        "in function '_Z5otherv'\n"
    )
    program = dataclasses.replace(
        plain, artifacts=dataclasses.replace(plain.artifacts, compile_log=log)
    )
    kernel = program.kernel("_Z7boundedPf")
    f = ptxas_advice.run(AnalysisContext(program, kernel, None, (), None))  # type: ignore[arg-type]
    (note,) = f.annotations
    assert note.kind == "ptxas-advisory" and note.data["function"] == "_Z11slow_squaref"
    assert f"(PTX line {line}, in slow_square(float))" in note.message
    assert note.addresses and all(kernel.correspondence.sass_ptx[a] == line for a in note.addresses)
    assert note.source and note.source[0].file.endswith("bounds.cu")
    assert [a["code"] for a in f.facts["advisories"]] == ["C7599"]
