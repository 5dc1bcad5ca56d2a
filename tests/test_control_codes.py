"""The control-code decoder (sassview.binary.control) against what nvdisasm does print.

nvdisasm shows none of the scheduling bits but one: the `.reuse` suffix of an operand. So the
decoder's test is that suffix, on every instruction of every recorded listing of every
architecture; the scoreboards are checked for consistency with the dataflow nvdisasm shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sassview.binary.control import decode_controls
from sassview.binary.elf import read_cubin
from sassview.ir import ControlCode, SassInstruction
from sassview.parse.sass_text import parse_sass_text

TESTS = Path(__file__).parent


def _recorded() -> list[tuple[Path, Path]]:
    """Every cubin recorded with its nvdisasm text listing, under tests/."""
    pairs = []
    for cubin in sorted(TESTS.rglob("*.cubin")):
        listing = (
            cubin.with_name("sass.txt")
            if cubin.name == "kernel.cubin"
            else cubin.with_suffix(".sass.txt")
        )
        if listing.exists():
            pairs.append((cubin, listing))
    return pairs


RECORDED = _recorded()


def _kernels(
    cubin: Path, listing: Path
) -> Iterator[tuple[str, tuple[SassInstruction, ...], tuple[ControlCode, ...]]]:
    info = read_cubin(cubin.read_bytes(), str(cubin))
    for function in parse_sass_text(listing.read_text()).functions:
        kernel = info.kernel(function.name)
        assert kernel is not None, function.name
        yield function.name, function.instructions, decode_controls(kernel.code, info.arch)


def _id(pair: tuple[Path, Path]) -> str:
    return str(pair[0].relative_to(TESTS).parent) + "/" + pair[0].stem


def test_the_recorded_listings_cover_every_family() -> None:
    archs = {read_cubin(c.read_bytes()).arch for c, _ in RECORDED}
    assert {"sm_80", "sm_90a", "sm_100a", "sm_120"} <= archs


@pytest.mark.parametrize(("cubin", "listing"), RECORDED, ids=[_id(p) for p in RECORDED])
def test_reuse_flags_agree_with_nvdisasm_on_every_instruction(cubin: Path, listing: Path) -> None:
    for name, instructions, controls in _kernels(cubin, listing):
        assert len(controls) == len(instructions)
        for ins in instructions:
            code = controls[ins.address // 16]
            printed = sum(op.reuse for op in ins.operands)
            assert code.reuse.bit_count() == printed, (
                f"{name} /*{ins.address:04x}*/ {ins.text}: reuse bits {code.reuse:04b}"
            )


def _reads(ins: SassInstruction, register: int) -> bool:
    return any(
        r.file == "R" and r.index is not None and r.index <= register < r.index + r.count
        for op in ins.operands[1:]
        for r in op.registers
    )


def test_every_reader_of_a_scoreboarded_result_waits_for_it() -> None:
    """A variable-latency result (write scoreboard SBn) is read only after an instruction that
    waits on SBn, in straight-line code: what the write scoreboard and wait mask mean."""
    checked = 0
    for cubin, listing in RECORDED:
        for name, instructions, controls in _kernels(cubin, listing):
            for i, producer in enumerate(instructions):
                board = controls[i].write
                dest = producer.operands[0].registers if producer.operands else ()
                if board is None or not dest or dest[0].file != "R" or dest[0].index is None:
                    continue
                for j in range(i + 1, len(instructions)):
                    if controls[j].wait >> board & 1:
                        checked += 1
                        break
                    consumer = instructions[j]
                    assert not _reads(consumer, dest[0].index), (
                        f"{cubin}: {name} /*{consumer.address:04x}*/ {consumer.text} reads "
                        f"{producer.text} without waiting on SB{board}"
                    )
                    if consumer.control_flow:
                        break
    assert checked > 1000


def test_write_scoreboards_belong_to_variable_latency_instructions() -> None:
    fixed_latency = {"FFMA", "FADD", "FMUL", "IMAD", "IADD3", "MOV", "LOP3", "ISETP", "SHF"}
    for cubin, listing in RECORDED:
        for _, instructions, controls in _kernels(cubin, listing):
            for ins, code in zip(instructions, controls, strict=True):
                assert code.write is None or ins.opcode not in fixed_latency, ins.text


# Decoded by hand from `nvdisasm -hex` of add_scalar in tests/corpus/vecadd/sm_80: the upper
# 64-bit word of each instruction, its bits 41.. (bits 105.. of the 128) read as stall[4],
# yield[1] (0 prints Y), write[3], read[3] (7 = none), wait[6], reuse[4].
HAND_DECODED = {
    # 0x000e280000002500 >> 41 = 0x714: stall 4, yield bit 1, write 0
    0x0010: ("S2R R6, SR_CTAID.X", ControlCode(4, False, 0, None, 0, 0), "B------:R-:W0:-:S04"),
    # 0x001fca00078e0203 >> 41 = 0xfe5: stall 5, yield bit 0, waits on SB0 (the S2R results)
    0x0030: (
        "IMAD R6, R6, c[0x0][0x0], R3",
        ControlCode(5, True, None, None, 0b1, 0),
        "B0-----:R-:W-:Y:S05",
    ),
    # 0x0c0fe400078e0207 >> 41 = 0x607f2: stall 2, reuse 0b0011 (A and B)
    0x0090: (
        "IMAD.WIDE R2, R6.reuse, R7.reuse, c[0x0][0x160]",
        ControlCode(2, False, None, None, 0, 0b11),
        "B------:R-:W-:-:S02",
    ),
    # 0x000ea8000c1e1900 >> 41 = 0x754: stall 4, write scoreboard 2
    0x00A0: ("LDG.E R4, [R4.64]", ControlCode(4, False, 2, None, 0, 0), "B------:R-:W2:-:S04"),
    # 0x004fca0000000000 >> 41 = 0x27e5: stall 5, yield, waits on SB2 (the loads)
    0x00D0: ("FADD R9, R4, R3", ControlCode(5, True, None, None, 0b100, 0), "B--2---:R-:W-:Y:S05"),
    # 0x000fc0000383ffff >> 41 = 0x7e0: the self-branch after EXIT
    0x0100: ("BRA 0x100", ControlCode(0, True, None, None, 0, 0), "B------:R-:W-:Y:S00"),
}


def test_hand_decoded_instructions() -> None:
    directory = TESTS / "corpus" / "vecadd" / "sm_80"
    kernels = _kernels(directory / "kernel.cubin", directory / "sass.txt")
    _, instructions, controls = next(k for k in kernels if k[0] == "add_scalar")
    by_address = {i.address: i for i in instructions}
    for address, (text, expected, notation) in HAND_DECODED.items():
        assert by_address[address].text == text
        assert controls[address // 16] == expected
        assert controls[address // 16].notation == notation


def test_nothing_is_decoded_before_volta_or_from_ragged_code() -> None:
    word = bytes(16)
    assert decode_controls(word, "sm_61") == ()
    assert decode_controls(word[:8], "sm_90a") == ()
    assert len(decode_controls(word * 3, "sm_75")) == 3


def test_the_opcode_help_words_each_field() -> None:
    from sassview.tui.opcode_help import explain_control

    fields = dict(explain_control(ControlCode(5, True, 2, None, 0b101, 0b11)))
    assert fields["B"] == "waits for scoreboards SB0, SB2 before issuing"
    assert fields["W"] == "sets SB2 until its result is written (variable latency)"
    assert fields["R"] == "sets no read scoreboard"
    assert fields["Y"] == "the scheduler may switch warps here"
    assert fields["S"] == "the warp's next instruction issues 5 cycles later at the earliest"
    assert fields["reuse"] == "operand slots A, B kept in the reuse cache"


def test_the_tui_schedule_column() -> None:
    from rich.style import Style

    from sassview.build import build_program
    from sassview.inspection import inspect_program
    from sassview.ir import Artifacts
    from sassview.tui import state
    from sassview.tui.paint import Palette, SassPainter

    directory = TESTS / "corpus" / "vecadd" / "sm_80"
    art = Artifacts(kind="cubin", arch="sm_80", cubin=(directory / "kernel.cubin").read_bytes())
    insp = next(i for i in inspect_program(build_program(art)) if i.kernel.name == "add_scalar")
    view = state.build(insp)
    row = view.sass[view.row_of[0x00D0]]
    assert row.control == "B--2---:R-:W-:Y:S05"  # FADD waits for the two loads
    painter = SassPainter(view, schedule=True)
    assert "schedule" in painter.header()
    assert "schedule" not in SassPainter(view, schedule=False).header()
    palette = Palette(dark=True, base=Style(), gutter=Style(), dim=Style())
    text = "".join(s.text for s in painter.segments(view.row_of[0x00D0], palette))
    assert "B--2---:R-:W-:Y:S05 FADD R9, R4, R3" in text
