"""Read nvdisasm's text listing (`-c -gi -gp`) and cuobjdump -sass listings into SassFunctions.

The text form is needed even when JSON exists: only it carries the inline chain of each
instruction (`-gi`: "line 1 inlined at ..., line 2") and the PTX line behind it (`-gp`,
lines of the ".nv_debug_ptx_txt" file). It is also the only form older nvdisasm and cuobjdump
give, so it must yield the same instructions as the JSON reader on the same cubin.

Line annotations apply to every following instruction until the next one of the same kind;
a run of consecutive `//## File` lines is one inline chain, innermost first.
"""

from __future__ import annotations

import re

from sassview.errors import ParseError
from sassview.ir import SourceLoc
from sassview.parse.sass import SassFunction, SassListing, build_instruction, resolve_label_targets
from sassview.parse.sass_operands import label_operand

PTX_FILE = ".nv_debug_ptx_txt"

_INSTR = re.compile(
    r"^\s*/\*([0-9a-fA-F]{4,})\*/\s*(?:\{\s*)?(@!?U?P[0-7T]\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)"
    r"\s*(.*?)\s*;?\s*\}?\s*(?:/\*[^*]*\*/\s*)*$"
)
_MARK = re.compile(r'\s*\(\*"([^"]*)"\*\)')
_FILE = re.compile(r'^\s*//## File "([^"]*)", line (\d+)(?:, column (\d+))?(.*)$')
_INLINED = re.compile(r'\s*inlined at "([^"]*)", line (\d+)(?:, column (\d+))?')
_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_CUOBJDUMP_FUNC = re.compile(r"^\s*Function : (\S+)")
_LABEL = re.compile(r"^([.$A-Za-z_][\w.$@]*):\s*$")
_TARGET = re.compile(r"^\s*\.target\s+(sm_\w+)")
_LABEL_REF = re.compile(r"`\(([^)]*)\)")
# RET.REL.NODEC R4 `(k): the text form drops the comma the JSON form has before a label.
_BARE_LABEL_REF = re.compile(r"(?<=[^,\s])\s+`\(")


def parse_sass_text(text: str, where: str = "<nvdisasm text>") -> SassListing:
    functions: list[SassFunction] = []
    arch = ""
    name: str | None = None
    rows: list[tuple[int, str, str, str, SourceLoc | None, int | None, tuple[str, ...]]] = []
    labels: dict[str, int] = {}
    pending_labels: list[str] = []
    chain: list[tuple[str, int, int]] = []  # the run of //## File lines being read
    chain_open = False
    loc: SourceLoc | None = None
    ptx_line: int | None = None

    def finish() -> None:
        if name is not None:
            functions.append(_make_function(name, rows, labels, where))

    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("/*") and stripped[2:3].isalnum() is False:
            continue  # cuobjdump's encoding-only line: /* 0x000fe20000000f00 */
        match = _INSTR.match(line)
        if match:
            if name is None:
                raise ParseError("an instruction before any function", where=f"{where}:{lineno}")
            if chain_open:
                loc = _chain_loc(chain)
                chain, chain_open = [], False
            address = int(match.group(1), 16)
            for label in pending_labels:
                labels[label] = address
            pending_labels = []
            body = _BARE_LABEL_REF.sub(", `(", match.group(4))
            marks = tuple(_MARK.findall(body))
            if marks:
                body = _MARK.sub("", body).strip()
            predicate = (match.group(2) or "").strip()
            rows.append((address, predicate, match.group(3), body, loc, ptx_line, marks))
            continue
        file_match = _FILE.match(line)
        if file_match:
            path, num = file_match.group(1), int(file_match.group(2))
            if path == PTX_FILE:
                ptx_line = num
            else:
                if not chain_open:
                    chain, chain_open = [], True
                chain.append((path, num, int(file_match.group(3) or 0)))
            continue
        section = _SECTION.match(line) or _CUOBJDUMP_FUNC.match(line)
        if section:
            finish()
            name = section.group(1)
            rows, labels, pending_labels = [], {}, []
            loc, ptx_line, chain, chain_open = None, None, [], False
            continue
        label = _LABEL.match(stripped)
        if label and name is not None:
            pending_labels.append(label.group(1))
            continue
        target = _TARGET.match(line)
        if target:
            arch = target.group(1)
    finish()
    return SassListing(tuple(functions), arch)


def _chain_loc(chain: list[tuple[str, int, int]]) -> SourceLoc | None:
    """Consecutive File lines: innermost first, each inlined into the next one."""
    loc: SourceLoc | None = None
    for path, line, col in reversed(chain):
        loc = SourceLoc(path, line, col, loc)
    return loc


def _make_function(
    name: str,
    rows: list[tuple[int, str, str, str, SourceLoc | None, int | None, tuple[str, ...]]],
    labels: dict[str, int],
    where: str,
) -> SassFunction:
    instructions = []
    for address, predicate, mnemonic, body, loc, ptx_line, marks in rows:
        try:
            operands = _LABEL_REF.sub(lambda m: _label_text(m.group(1), labels), body)
            instructions.append(
                build_instruction(address, predicate, mnemonic, operands, source=loc, ptx_line=ptx_line, marks=marks)
            )
        except (ValueError, IndexError) as exc:
            raise ParseError(f"function {name}, /*{address:04x}*/: {exc}", where=where) from None
    return resolve_label_targets(SassFunction(name, tuple(instructions), dict(labels)))


def _label_text(label: str, labels: dict[str, int]) -> str:
    """A local label (.L_x_3) becomes its address, as the JSON prints it; a symbol stays a name."""
    if label.startswith(".L") and label in labels:
        return label_operand(labels[label]).text
    return label
