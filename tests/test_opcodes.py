"""Instruction categories for the mix `sassview check` prints (sassview.opcodes)."""

from __future__ import annotations

import pytest

from sassview.opcodes import category, instruction_category, is_move
from sassview.parse.sass import build_instruction


@pytest.mark.parametrize(
    ("opcode", "operands", "expected"),
    [
        # ptxas loads a constant with a half multiply-add by zero: a move, not fp16 math.
        ("HFMA2.MMA", "R23, -RZ, RZ, 0, 2.384185791015625e-07", "move"),
        ("HFMA2", "R5, -RZ, RZ, 1.875, 0", "move"),
        ("HFMA2", "R4, R2, R3, -RZ", "fp16"),
        ("FFMA", "R4, RZ, R3, R5", "fp32"),
        # Ordering points move no data: with the barriers, not with global memory.
        ("FENCE.VIEW.ASYNC.S", "", "control"),
        ("MEMBAR.ALL.GPU", "", "control"),
        ("STG.E", "desc[UR4][R2.64], R5", "global"),
    ],
)
def test_the_mix_counts_what_an_instruction_does(opcode: str, operands: str, expected: str) -> None:
    ins = build_instruction(0, "", opcode, operands)
    assert instruction_category(ins) == expected
    assert is_move(ins) == (expected == "move")


def test_an_unknown_opcode_is_other() -> None:
    assert category("NOTANOPCODE") == "other"
