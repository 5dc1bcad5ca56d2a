"""Register liveness against nvdisasm's own: `nvdisasm -c -plr -lrm count`, row by row.

Every cubin with a recorded plr.txt — the corpus (tests/corpus/record_plr.py) and the wide /
tensor / control-flow / Triton kernels of tests/data/liveness (make.py there) — is parsed from its
recorded listing (no tools needed), and for every instruction of every function the GPR, PRED,
UGPR and UPRED counts must equal nvdisasm's. The ABI sets of CALL/RET need the cubin's register
columns and each function's register count, which the test reads from the cubin as a caller would.

Known divergences, strict xfails so they speak up when they go away:
(A BRX jump table used to be one: the text listing's `(*"BRANCH_TARGETS ..."*)` now gives
SassInstruction.targets, the CFG gets an edge to each, and the counts match.)
- liveness/wide/sm_80::atom — `@P1 ATOMG ... PT, R9, ...` redefines R9 under a guard, and R9 is
  read after it. A guarded definition may not run, so the value R9 held (the lane id from an S2R
  a dozen instructions up) must survive until then; nvdisasm keeps R9 live only for the three
  instructions before the ATOMG. We follow the dataflow equations. The same happens to two
  registers in the libdevice sqrt(double) slow path (`__cuda_sm20_dsqrt_rn_f64_mediumpath_v1`)
  when it is compiled inside a bigger kernel; we found no rule that explains both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from sassview.binary.elf import read_cubin
from sassview.graph import sass_semantics as sem
from sassview.graph.cfg import BasicBlock, build_cfg
from sassview.graph.dataflow import Liveness, compute_liveness, register_columns, register_effects
from sassview.ir import SassInstruction
from sassview.parse.sass import SassFunction, build_instruction
from sassview.parse.sass_json import parse_sass_json
from sassview.parse.sass_text import parse_sass_text

TESTS = Path(__file__).parent
ROOTS = (TESTS / "corpus", TESTS / "data" / "liveness")
_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_ROW = re.compile(r"^\s*/\*([0-9a-fA-F]{4,})\*/.*?//\s*(\|.*\|)\s*$")
_HEADER = re.compile(r"//\s*\|\s*(GPR|PRED|UGPR|UPRED)\b")

XFAIL = {
    "liveness/wide/sm_80::atom": "nvdisasm ends R9's range 3 instructions above a guarded ATOMG",
}


def read_plr(text: str) -> dict[str, dict[int, dict[str, int]]]:
    """nvdisasm -plr -lrm count: function -> address -> {register file: '#' count}."""
    out: dict[str, dict[int, dict[str, int]]] = {}
    rows: dict[int, dict[str, int]] = {}
    files: list[str] = []
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            rows = out.setdefault(section.group(1), {})
            files = []
            continue
        if not files and _HEADER.search(line):
            files = [c.strip() for c in line.split("//", 1)[1].strip().strip("|").split("|")]
            continue
        row = _ROW.match(line)
        if row and files:
            cells = row.group(2).strip("|").split("|")
            rows[int(row.group(1), 16)] = {
                f: int(c) if c.strip() else 0 for f, c in zip(files, cells, strict=True)
            }
    return out


def _cases() -> list[tuple[Path, str]]:
    found = []
    for root in ROOTS:
        for plr in sorted(root.glob("*/*/plr.txt")):
            for function in read_plr(plr.read_text()):
                found.append((plr.parent, function))
    return found


def _id(directory: Path, function: str) -> str:
    root = "liveness" if directory.parent.parent.name == "liveness" else "corpus"
    return f"{root}/{directory.parent.name}/{directory.name}::{function}"


CASES = _cases()
_listings: dict[
    tuple[Path, str], tuple[dict[str, SassFunction], Mapping[str, int], dict[str, int | None]]
] = {}


def _listing(
    directory: Path, reader: str = "text"
) -> tuple[dict[str, SassFunction], Mapping[str, int], dict[str, int | None]]:
    """A recorded listing's functions, the cubin's register columns, each one's register count."""
    key = (directory, reader)
    if key not in _listings:
        if reader == "json":
            listing = parse_sass_json((directory / "sass.json").read_text())
        else:
            listing = parse_sass_text(
                (directory / "sass.txt").read_text(), str(directory / "sass.txt")
            )
        registers: dict[str, int | None] = {
            k.name: k.resources.registers
            for k in read_cubin((directory / "kernel.cubin").read_bytes()).kernels
        }
        functions = {f.name: f for f in listing.functions}
        columns = register_columns(
            (f.instructions, registers.get(f.name)) for f in listing.functions
        )
        _listings[key] = (functions, columns, registers)
    return _listings[key]


def _liveness(
    directory: Path, function: str, reader: str = "text"
) -> tuple[SassFunction, Liveness]:
    functions, columns, registers = _listing(directory, reader)
    f = functions[function]
    cfg = build_cfg(f.instructions)
    return f, compute_liveness(
        f.instructions, cfg, registers=registers.get(function), columns=columns
    )


def _mismatches(directory: Path, function: str, reader: str = "text") -> list[str]:
    expected = read_plr((directory / "plr.txt").read_text())[function]
    f, live = _liveness(directory, function, reader)
    assert {ins.address for ins in f.instructions} >= set(expected), (
        "plr.txt rows the listing lacks"
    )
    bad = []
    for i, ins in enumerate(f.instructions):
        row = expected.get(ins.address)
        if row is None:  # the padding NOPs nvdisasm does not annotate
            continue
        for file in sem.FILES:
            if live.counts[file][i] != row.get(file, 0):
                got, want = live.counts[file][i], row.get(file, 0)
                bad.append(f"/*{ins.address:04x}*/ {ins.text}: {file} {got}, nvdisasm {want}")
    return bad


@pytest.mark.parametrize(
    ("directory", "function"),
    [
        pytest.param(
            d,
            f,
            id=_id(d, f),
            marks=[pytest.mark.xfail(reason=XFAIL[_id(d, f)], strict=True)]
            if _id(d, f) in XFAIL
            else [],
        )
        for d, f in CASES
    ],
)
def test_counts_match_nvdisasm_at_every_instruction(directory: Path, function: str) -> None:
    bad = _mismatches(directory, function)
    assert not bad, f"{len(bad)} rows differ from nvdisasm -plr:\n" + "\n".join(bad[:12])


def test_every_corpus_cubin_nvdisasm_analyses_has_a_plr_listing() -> None:
    """record_plr.py skips only the ELF ABI 7 cubins, on which nvdisasm 13 refuses dataflow."""
    for cubin in (TESTS / "corpus").glob("*/*/kernel.cubin"):
        assert (cubin.parent / "plr.txt").exists() or cubin.parent.name.endswith("-abi7"), cubin


@pytest.mark.parametrize(
    "directory",
    sorted({d for d, _ in CASES if (d / "sass.json").exists()}),
    ids=lambda d: f"{d.parent.name}/{d.name}",
)
def test_json_reader_gives_the_same_counts(directory: Path) -> None:
    """The model a cubin builds comes from nvdisasm's JSON: its operands must count the same."""
    for function in read_plr((directory / "plr.txt").read_text()):
        if _id(directory, function) not in XFAIL:
            assert not _mismatches(directory, function, reader="json"), function


def _ins(text: str, address: int = 0) -> SassInstruction:
    """One instruction from nvdisasm's text form: '@P0 LDG.E.64 R4, desc[UR4][R2.64]'."""
    match = re.match(r"^(@!?U?P[T\d]\s+)?(\S+)\s*(.*)$", text)
    assert match
    return build_instruction(
        address, (match.group(1) or "").strip(), match.group(2), match.group(3)
    )


# (instruction, defs, uses) exactly as nvdisasm -lrm narrow marks them (^ v x).
EFFECTS = [
    ("LDG.E.128 R8, desc[UR4][R2.64]", "R8 R9 R10 R11", "R2 R3 UR4 UR5"),
    ("STG.E.128 desc[UR4][R6.64], R12", "", "R6 R7 R12 R13 R14 R15 UR4 UR5"),
    ("IMAD.WIDE R2, R9, 0x4, R2", "R2 R3", "R2 R3 R9"),
    ("IMAD.WIDE.U32 R8, P0, R6, R13, R8", "R8 R9 P0", "R6 R8 R9 R13"),
    ("IMAD.HI.U32 R8, P1, R7, R11, R8", "R8 P1", "R7 R8 R9 R11"),
    ("LDC.64 R2, c[0x0][0x210]", "R2 R3", ""),
    ("ULDC.64 UR4, c[0x0][0x208]", "UR4 UR5", ""),
    ("LDCU.128 UR12, c[0x0][0x390]", "UR12 UR13 UR14 UR15", ""),
    ("ISETP.GE.AND P0, PT, R9, UR4, PT", "P0", "R9 UR4"),
    ("ISETP.GE.U32.AND.EX P0, PT, R15, UR5, PT, P0", "P0", "R15 UR5 P0"),
    ("ISETP.NE.S64.AND P0, PT, RZ, UR10, PT", "P0", "UR10 UR11"),
    ("IADD3 R11, P0, PT, RZ, -R8, RZ", "R11 P0", "R8"),
    ("IADD3.X R11, R2, UR7, RZ, P1, !PT", "R11", "R2 UR7 P1"),
    ("LOP3.LUT P0, RZ, R2, 0x1, RZ, 0xc0, !PT", "P0", "R2"),
    ("PLOP3.LUT P0, PT, P0, P1, PT, 0xa8, 0x0", "P0", "P0 P1"),
    ("DFMA R8, -R4, R2, 1", "R8 R9", "R2 R3 R4 R5"),
    ("DMUL R10, R6, UR6", "R10 R11", "R6 R7 UR6 UR7"),
    ("DSETP.GT.AND P0, PT, R18, 3, PT", "P0", "R18 R19"),
    ("F2F.F64.F32 R18, R3", "R18 R19", "R3"),
    ("F2F.F32.F64 R10, R10", "R10", "R10 R11"),
    ("F2I.S64.F64.TRUNC R14, R6", "R14 R15", "R6 R7"),
    ("I2F.U64.RP R7, UR4", "R7", "UR4 UR5"),
    ("MUFU.RCP64H R3, R5", "R3", "R5"),
    ("IADD.64 R10, R10, R18", "R10 R11", "R10 R11 R18 R19"),
    ("IMNMX.S64 PT, PT, R12, R2, R4, PT, !PT", "R12 R13", "R2 R3 R4 R5"),
    ("CS2R R2, SRZ", "R2 R3", ""),
    ("CS2R.32 R0, SR_CLOCKLO", "R0", ""),
    ("LEPC R20, 0x1f0", "R20 R21", ""),
    ("HMMA.16816.F32.BF16 R12, R12, R10, RZ", "R12 R13 R14 R15", "R10 R11 R12 R13 R14 R15"),
    ("HMMA.16816.F16 R16, R16, R2, RZ", "R16 R17", "R2 R3 R16 R17 R18 R19"),
    ("HMMA.1684.F32.TF32 R4, R12, R0, RZ", "R4 R5 R6 R7", "R0 R12 R13"),
    ("IMMA.16832.S8.S8 R4, R16.ROW, R2.COL, RZ", "R4 R5 R6 R7", "R2 R3 R16 R17 R18 R19"),
    ("DMMA.884 R8, R10, R8, RZ", "R8 R9 R10 R11", "R8 R9 R10 R11"),
    (
        "HGMMA.64x8x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT, gsb0",
        "R24 R25 R26 R27",
        "UR4 UR5 UR6 UR7",
    ),
    (
        "HGMMA.64x32x16.F16 R24, R32, gdesc[UR4].tnspB, RZ, !UPT, gsb0",
        " ".join(f"R{i}" for i in range(24, 32)),
        "R32 R33 R34 R35 UR4 UR5 UR6 UR7",
    ),
    (
        "IGMMA.64x16x32.S8.S8 R40, gdesc[UR4], RZ, !UPT",
        " ".join(f"R{i}" for i in range(40, 48)),
        "UR4 UR5 UR6 UR7",
    ),
    ("LDSM.16.M88.4 R16, [R12+UR4]", "R16 R17 R18 R19", "R12 UR4"),
    ("STSM.16.M88.4 [R0], R4", "", "R0 R4 R5 R6 R7"),
    ("LDGSTS.E.BYPASS.128 [R3], desc[UR6][R4.64]", "", "R3 R4 R5 UR6 UR7"),
    # .E widens the global source only: the shared destination is one register (no R194)
    (
        "LDGSTS.E.BYPASS.128 [R193+0x2800], desc[UR28][R178.64], P6",
        "",
        "R178 R179 R193 UR28 UR29 P6",
    ),
    ("ATOMG.E.CAS.64.STRONG.GPU PT, R6, [R14], R4, R6", "R6 R7", "R4 R5 R6 R7 R14 R15"),
    ("ATOMS.CAST.SPIN R7, [R4], R6, R7", "R7", "R4 R6 R7"),
    ("RED.E.ADD.F64.RN.STRONG.GPU [R12.64], R14", "", "R12 R13 R14 R15"),
    ("SHFL.IDX PT, R6, R8, 0x3, 0x1f", "R6", "R8"),
    ("VOTE.ANY R11, PT, P0", "R11", "P0"),
    ("VOTEU.ALL UP0, P1", "UP0", "P1"),
    ("MATCH.ALL P0, R21, R0", "R21 P0", "R0"),
    ("R2P PR, R10, 0x3", "", "R10"),
    ("SYNCS.ARRIVE.TRANS64.A1T0 R2, [UR5], RZ", "R2 R3", "UR5"),
    ("SYNCS.EXCH.64 URZ, [UR9], UR4", "", "UR4 UR5 UR9"),
    ("UTMALDG.2D [UR8], [UR4]", "", "UR4 UR5 UR8 UR9 UR10 UR11"),
    ("UTMASTG.3D [UR8], [UR6]", "", "UR6 UR7 UR8 UR9 UR10 UR11"),
    ("UBLKCP.S.G [UR6], [UR4], UR8", "", "UR4 UR5 UR6 UR7 UR8"),
    ("LDTM.x8 R4, tmem[UR11]", " ".join(f"R{i}" for i in range(4, 12)), "UR11"),
    (
        "UTCHMMA gdesc[UR4], gdesc[UR6], tmem[UR11], tmem[UR8], idesc[UR9], UP0",
        "",
        "UR4 UR5 UR6 UR7 UR8 UR9 UR11 UP0",
    ),
    ("TLD4.G R14, R8, R8, UR6, 0x0, 2D, 0xb", "R8 R9 R14", "R8 R9 UR6 UR7"),
    ("BRX R4 -0x110", "", "R4 R5"),
    ("RET.REL.NODEC R4 `(_Z7boundedPf)", "", "R4 R5"),
    ("@P0 EXIT", "", "P0"),
    ("@!PT LDS RZ, [RZ]", "", ""),
    ("BRA.U !UP0, 0x960", "", "UP0"),
    ("FSETP.GEU.AND P0, PT, |R0|.reuse, 1.175494350822287508e-38, PT", "P0", "R0"),
]


@pytest.mark.parametrize(
    ("text", "defs", "uses"),
    EFFECTS,
    ids=[e[0].split()[0] + f"-{i}" for i, e in enumerate(EFFECTS)],
)
def test_register_effects_as_nvdisasm_marks_them(text: str, defs: str, uses: str) -> None:
    effects = register_effects(_ins(text))
    assert set(effects.defs) == set(defs.split()) and set(effects.uses) == set(uses.split())


def test_call_clobbers_the_abi_scratch_registers_and_reads_r0_r1() -> None:
    effects = register_effects(
        _ins("CALL.ABS.NOINC R10"), columns={"GPR": 40, "PRED": 2, "UGPR": 8, "UPRED": 1}
    )
    expected_gpr = {0, *range(3, 16), 32, 33, 34, 35}
    assert {int(r[1:]) for r in effects.defs if r[:1] == "R" and r[1:].isdigit()} == expected_gpr
    assert {"P0", "P1", "UR4", "UR7", "UP0"} <= set(effects.defs) and "UR8" not in effects.defs
    assert set(effects.uses) == {"R0", "R1", "R10", "R11"}


def test_live_at_names_what_the_counts_count() -> None:
    directory = TESTS / "corpus" / "mma" / "sm_90a"
    f, live = _liveness(directory, "_Z13cp_async_ffmaPKfPfi")
    for i in range(len(f.instructions)):
        for file in sem.FILES:
            assert len(live.live_at(i, file)) == live.counts[file][i]
    assert live.peak == max(live.counts["GPR"]) and live.counts["GPR"][live.peak_index] == live.peak
    assert live.counts["GPR"].index(live.peak) == live.peak_index
    assert "R1" in live.live_at(len(f.instructions) - 1)  # the stack pointer, even in the trap


def test_a_cfg_without_edge_kinds_still_works() -> None:
    """compute_liveness only needs blocks with first/last/successors (the brief's interface)."""

    class Plain:
        def __init__(self, blocks: tuple[BasicBlock, ...]) -> None:
            self.blocks = blocks

    directory = TESTS / "corpus" / "tiled" / "sm_90a"
    functions, columns, registers = _listing(directory)
    f = functions["_Z9tiled_sumPKfPfi"]
    cfg = build_cfg(f.instructions)
    a = compute_liveness(f.instructions, cfg, registers=registers[f.name], columns=columns)
    plain: Any = Plain(cfg.blocks)
    b = compute_liveness(f.instructions, plain, registers=registers[f.name], columns=columns)
    assert a.counts == b.counts


def test_an_empty_function_has_no_peak() -> None:
    live = compute_liveness((), build_cfg(()))
    assert live.peak == 0 and live.peak_index == -1 and all(c == () for c in live.counts.values())
