"""What both SASS readers produce: per function, its instructions and named code addresses."""

from __future__ import annotations

from dataclasses import dataclass, field

from sassview.ir import Operand, OperandKind, Register, SassInstruction, SourceLoc
from sassview.memo import Memo
from sassview.parse.sass_operands import (
    CONTROL_FLOW,
    branch_target,
    parse_operand,
    split_mnemonic,
    split_operands,
)

INSTRUCTION_BYTES = 16  # every architecture from sm_70 on


@dataclass(frozen=True, slots=True)
class SassFunction:
    name: str
    instructions: tuple[SassInstruction, ...]
    labels: dict[str, int] = field(default_factory=dict)  # .L_x_3 / $k$helper -> address


@dataclass(frozen=True, slots=True)
class SassListing:
    """One disassembled cubin: the functions, and what nvdisasm said about the cubin."""

    functions: tuple[SassFunction, ...]
    arch: str = ""  # sm_90a as the listing names it ("" when it does not)
    producer: str = ""  # the nvdisasm that wrote it
    schema: tuple[int, int] | None = None  # nvdisasm JSON SchemaVersion (major, minor)

    def function(self, name: str) -> SassFunction | None:
        return next((f for f in self.functions if f.name == name), None)


# (predicate, mnemonic, operand text) -> everything about an instruction but its place.
_Template = tuple[
    str, tuple[str, ...], tuple[Operand, ...], Register | None, bool, int | None, bool
]
_templates: Memo[tuple[str, str, str], _Template] = Memo(f"{__name__}._templates", 500_000)
# The memo's lookup alone, for a reader that asks for 10^5 forms in a row: a hit costs no
# Python call; on None it calls instruction_template.
decoded_template = _templates.get


def instruction_template(predicate: str, mnemonic: str, operand_text: str) -> _Template:
    """Unrolled code repeats whole instructions but for their address: decode each form once."""
    key = (predicate, mnemonic, operand_text)
    found = _templates.get(key)
    if found is not None:
        return found
    opcode, modifiers = split_mnemonic(mnemonic)
    operands, target = branch_target(opcode, _operands(operand_text) if operand_text else ())
    guard = None
    negated = False
    if predicate:
        pred = predicate.lstrip("@")
        negated = pred.startswith("!")
        guard_op = parse_operand(pred.lstrip("!"))
        guard = guard_op.registers[0] if guard_op.registers else None
    found = (opcode, modifiers, operands, guard, negated, target, opcode in CONTROL_FLOW)
    _templates[key] = found
    return found


def build_instruction(
    address: int,
    predicate: str,
    mnemonic: str,
    operand_text: str,
    *,
    source: SourceLoc | None = None,
    ptx_line: int | None = None,
    marks: tuple[str, ...] = (),
    control_flow: bool | None = None,
) -> SassInstruction:
    opcode, modifiers, operands, guard, negated, target, flow = instruction_template(
        predicate, mnemonic, operand_text
    )
    return SassInstruction(
        address,
        opcode,
        modifiers,
        operands,
        guard,
        negated,
        source,
        ptx_line,
        marks,
        flow if control_flow is None else control_flow,
        target,
    )


_operand_lists: Memo[str, tuple[Operand, ...]] = Memo(f"{__name__}._operand_lists", 500_000)


def _operands(text: str) -> tuple[Operand, ...]:
    """Whole operand strings repeat ("R1,c[0x0][0x28]"): parse each distinct one once."""
    found = _operand_lists.get(text)
    if found is None:
        found = tuple(map(parse_operand, split_operands(text)))
        _operand_lists[text] = found
    return found


def resolve_label_targets(function: SassFunction) -> SassFunction:
    """Give CALL $k$helper / BRA `(.L_x_0) their address once the label table is known."""
    if not function.labels:
        return function
    fixed = []
    changed = False
    for ins in function.instructions:
        # RET names its function only as a base for the return address in a register.
        if ins.target is None and ins.control_flow and ins.opcode != "RET":
            for op in ins.operands:
                name = op.text.strip("`()") if op.kind is OperandKind.LABEL else op.text
                if name in function.labels:
                    ins = _with_target(ins, function.labels[name])
                    changed = True
                    break
        fixed.append(ins)
    if not changed:
        return function
    return SassFunction(function.name, tuple(fixed), function.labels)


def _with_target(ins: SassInstruction, target: int) -> SassInstruction:
    return ins._replace(target=target)
