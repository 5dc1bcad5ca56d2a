"""Turn nvdisasm's opcode and operand text into typed Operands.

Both SASS readers (JSON and text) end here, so they agree by construction on everything but
addresses and line info. Operand texts repeat a great deal (R1, RZ, c[0x0][0x28], ...), and
Operands are immutable, so parsed operands are memoised: the cache is what keeps parsing a
65k-instruction kernel cheap.
"""

from __future__ import annotations

import re

from sassview.ir import Operand, OperandKind, Register
from sassview.memo import Memo

# R12, UR4, P0, UP1, B0 (convergence barrier), with optional .64/.128 width, .reuse, .H1/.B2 etc.
_REG = re.compile(r"^(UR|UP|R|P|B)(\d+|Z|T)((?:\.[A-Za-z0-9_]+)*)$")
_ZERO_NAMES = {"RZ": "R", "URZ": "UR", "PT": "P", "UPT": "UP"}
_WIDTH_SUFFIX = {"64": 2, "128": 4, "U32": 1}
_INT = re.compile(r"^[+-]?(?:0x[0-9a-fA-F]+|\d+)$")
_FLOAT = re.compile(r"^[+-]?(?:\d+\.\d*(?:e[+-]?\d+)?|\d+e[+-]?\d+|INF|QNAN|NAN)$", re.I)
_CONST = re.compile(r"^(c|cx)\[([^\]]*)\]\[([^\]]*)\]$")
# desc[UR4][R2.64+0x10], [R1+0x8], gdesc[UR4].tnspB (a trailing modifier on the descriptor)
_MEM = re.compile(r"^([a-z]*)\[([^\]]*)\](?:\[([^\]]*)\])?(?:\.\w+)*$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_LABEL_TEXT = re.compile(r"^`\((.*)\)$")

# An operand prefix that takes subscripts: c / cx / desc / gdesc / tmem, maybe with one already.
_SUBSCRIPTED = re.compile(r"^[-!|]*[a-z]+(?:\[[^\]]*\])?$")

_cache: Memo[str, Operand] = Memo(f"{__name__}._cache", 200_000)


# One whole operand with brackets, as nearly every memory and constant operand is written:
# [R2.64+0x10], desc[UR4][R2.64+0x10], c[0x0][0x210], gdesc[UR4].tnspB. No comma can hide in it
# and no bracket in it starts another operand (see split_operands).
_ONE_BRACKETED = (
    r"(?:[-!|]*[a-z]+\[[^\[\],]*\]\[[^\[\],]*\]|(?:[-!|]*[a-z]+)?\[[^\[\],]*\])[^\[\],]*"
)
# A list of operands each of which has no bracket or is _ONE_BRACKETED (after blanks): one
# match rather than one per operand.
_PLAIN_OPERAND = rf"(?:[^\[\],]*|\s*{_ONE_BRACKETED})"
_PLAIN_LIST = re.compile(rf"{_PLAIN_OPERAND}(?:,{_PLAIN_OPERAND})*")


def split_operands(text: str) -> list[str]:
    """Split at commas outside brackets: 'R1, c[0x0][0x28]' -> ['R1', 'c[0x0][0x28]']."""
    if (
        "(" not in text
        and "{" not in text
        and (
            "[" not in text or (")" not in text and "}" not in text and _PLAIN_LIST.fullmatch(text))
        )
    ):
        return [p for p in map(str.strip, text.split(",")) if p]
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if (
            ch == "["
            and depth == 0
            and text[start:i].strip()
            and not _SUBSCRIPTED.match(text[start:i].strip())
        ):
            # nvdisasm's JSON may run operands together before a bare address: "R12[R5+UR5]"
            # (13.1), "[R5][R6.64]" (LDGSTS, 13.5). Only c[..][..], desc[..][..] and the like
            # open a bracket right after a name, so any other bracket starts a new operand.
            parts.append(text[start:i].strip())
            start = i
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


# R2.64 -> Register("R", 2, 2), for 10^4 addresses
_registers: Memo[str, Register | None] = Memo(f"{__name__}._registers", 20_000)


def _register(token: str) -> Register | None:
    found = _registers.get(token, False)
    if found is False:
        found = _read_register(token) if token[:1] in "RUPB" else None  # every register's file
        _registers[token] = found
    return found  # type: ignore[return-value]


def _read_register(token: str) -> Register | None:
    if token in _ZERO_NAMES:
        return Register(_ZERO_NAMES[token], None)
    match = _REG.match(token)
    if not match:
        return None
    file, num, suffix = match.groups()
    if num in ("Z", "T"):
        if (file + num) not in _ZERO_NAMES:
            return None
        return Register(file, None)
    count = 1
    for part in suffix.split(".")[1:]:
        count = max(count, _WIDTH_SUFFIX.get(part, 1))
    return Register(file, int(num), count)


def _int(token: str) -> int | None:
    return int(token, 0) if _INT.match(token) else None


_TERMS = re.compile(r"(?=[+-])")


def _address_parts(inner: str) -> tuple[tuple[Register, ...], int | None]:
    """'R2.64+UR4+0x10' -> (R2 (2 regs), UR4), 0x10."""
    regs: list[Register] = []
    offset: int | None = None
    for raw in _TERMS.split(inner.replace(" ", "")):
        term = raw.lstrip("+")
        if not term:
            continue
        value = _int(term)
        if value is not None:
            offset = (offset or 0) + value
            continue
        reg = _register(term.lstrip("-"))
        if reg is not None:
            regs.append(reg)
    return tuple(regs), offset


def parse_operand(text: str) -> Operand:
    cached = _cache.get(text)
    if cached is not None:
        return cached
    shape = _quick_shape(text)
    return _remember(text, _general_operand(text) if shape is None else _quick_operand(shape))


def _remember(text: str, op: Operand) -> Operand:
    _cache[text] = op
    return op


# The operands that tell one unrolled instruction from the next, read without the general
# path's tries: an address whose last bracket ends in a hex offset (desc[UR4][R2.64+0x318],
# [R1+-0x8], c[0x0][0x210]) and a plain number (0x318, -3, 1.0060000419616699219). In
# unrolled code nearly every instruction has a new one; the rest of the address repeats.
_OFFSET_ADDRESS = re.compile(
    r"(?P<head>(?:[a-z]+\[[\w.]*\]|[a-z]*)\[)(?:(?P<base>[\w.]*)(?P<sign>\+-?|-))?"
    r"(?P<hex>0x[0-9a-fA-F]+)\]",
    re.ASCII,
)
_NUMBER = re.compile(r"[+-]?(?:0x[0-9a-fA-F]+|[0-9]+(?P<fraction>\.[0-9]*(?:[eE][+-]?[0-9]+)?)?)")


def _quick_shape(text: str) -> re.Match[str] | None:
    return (_OFFSET_ADDRESS if text[-1:] == "]" else _NUMBER).fullmatch(text)


def _quick_operand(shape: re.Match[str]) -> Operand:
    """What _general_operand makes of an operand of one of the two shapes above."""
    if shape.re is _OFFSET_ADDRESS:
        return _offset_address(shape)
    # _INT or _FLOAT matches such a number whole, sign included: no negation, no register.
    text = shape.string
    value = int(text, 0) if shape["fraction"] is None else float(text)
    return Operand(text, OperandKind.IMMEDIATE, (), False, False, False, value)


def _offset_address(address: re.Match[str]) -> Operand:
    """desc[UR4][R2.64+0x318] is its base desc[UR4][R2.64] (memoised) at offset 0x318.

    The general path tells constant from memory by the brackets, reads the last one as terms
    split before each sign, blanks removed, and adds up the numbers among them. Head and base
    hold no sign or blank: the address reads as the base does, with one more term, the offset.
    """
    head, base_text, sign, hex_text = address.groups()
    base = parse_operand(head + (base_text or "") + "]")
    offset = -int(hex_text, 16) if sign and "-" in sign else int(hex_text, 16)
    return Operand(
        address.string,
        base.kind,
        base.registers,
        base.negated,
        base.absolute,
        base.reuse,
        base.value,
        base.bank,
        (base.offset or 0) + offset,
    )


def _general_operand(text: str) -> Operand:
    body = text
    negated = absolute = False
    if body[:1] in "-!~" and len(body) > 1 and not _INT.match(body) and not _FLOAT.match(body):
        negated, body = True, body[1:]
    # before |..|: nvdisasm prints |R0|.reuse; and before a half's swizzle, R4.reuse.H0_H0
    reuse = body.endswith(".reuse") or ".reuse." in body
    if reuse:
        body = body.removesuffix(".reuse").replace(".reuse.", ".", 1)
    if len(body) > 2 and body[0] == "|" and body[-1] == "|":
        absolute, body = True, body[1:-1]

    bracketed = "[" in body  # no register or number has a bracket: skip those regexes
    reg = None if bracketed else _register(body)
    if reg is not None:
        return Operand(text, OperandKind.REGISTER, (reg,), negated, absolute, reuse)
    value = None if bracketed else _int(body)
    if value is not None:
        return Operand(
            text, OperandKind.IMMEDIATE, negated=False, value=-value if negated else value
        )
    if not bracketed and _FLOAT.match(body):
        try:
            fvalue = float(body.replace("QNAN", "nan").replace("INF", "inf"))
        except ValueError:
            fvalue = None
        if fvalue is not None and negated:
            fvalue = -fvalue
        return Operand(text, OperandKind.IMMEDIATE, value=fvalue)
    const = _CONST.match(body)
    if const:
        bank_text, addr = const.group(2), const.group(3)
        bank = _int(bank_text)
        regs, offset = _address_parts(addr)
        bank_reg = _register(bank_text)
        if bank_reg is not None:
            regs = (bank_reg, *regs)
        return Operand(
            text, OperandKind.CONSTANT, regs, negated, absolute, reuse, bank=bank, offset=offset
        )
    mem = _MEM.match(body)
    if mem:
        prefix, first, second = mem.groups()
        # desc[UR4][R2.64+0x10]: the first bracket is the descriptor, the second the address.
        inner = second if second is not None else first
        regs, offset = _address_parts(inner)
        if second is not None:
            desc_regs, _ = _address_parts(first)
            regs = desc_regs + regs
        del prefix
        return Operand(text, OperandKind.MEMORY, regs, negated, absolute, reuse, offset=offset)
    label = _LABEL_TEXT.match(body)
    if label:
        return Operand(text, OperandKind.LABEL)
    if body.startswith("SR_") or body == "SRZ":
        return Operand(text, OperandKind.SPECIAL, negated=negated)
    return Operand(text, OperandKind.OTHER, negated=negated)


def split_mnemonic(mnemonic: str) -> tuple[str, tuple[str, ...]]:
    opcode, *mods = mnemonic.split(".")
    return opcode, tuple(mods)


# Opcodes whose first operand is a code address (a label or a 0x... address).
BRANCHES = frozenset({"BRA", "BRX", "JMP", "JMX", "CALL", "SSY", "PBK", "PCNT", "BSSY"})
# As nvdisasm's JSON marks them ("control-flow": true), so both readers agree (the text listing
# is the only one read where no spill can be marked: disasm/forms.py); the warp-level ones in
# the last row are marked too (tests/test_sass_parsers.py checks the set against every recorded
# JSON listing). graph/cfg.py's _NOT_BRANCHES says which of them end no basic block.
CONTROL_FLOW = frozenset(
    {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "KILL", "BPT", "BRK", "CONT", "RTT", "SYNC"}
    | {"BSSY", "BSYNC"}
    | {"ELECT", "WARPSYNC", "NANOSLEEP", "YIELD", "ENDCOLLECTIVE", "UTCBAR"}
)


def branch_target(
    opcode: str, operands: tuple[Operand, ...]
) -> tuple[tuple[Operand, ...], int | None]:
    """The constant code address a branch names, if any (JSON prints it as 0x3a0), and the
    operands with that one turned into a LABEL, so both readers type it the same way."""
    if opcode not in BRANCHES:
        return operands, None
    for i in range(len(operands) - 1, -1, -1):
        op = operands[i]
        if op.kind is OperandKind.IMMEDIATE and isinstance(op.value, int) and _HEX.match(op.text):
            return (*operands[:i], label_operand(op.value), *operands[i + 1 :]), op.value
    return operands, None


def label_operand(address: int) -> Operand:
    text = hex(address)
    cached = _cache.get("label:" + text)
    if cached is None:
        cached = _cache["label:" + text] = Operand(text, OperandKind.LABEL, value=address)
    return cached
