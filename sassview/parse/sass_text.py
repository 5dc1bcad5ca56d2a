"""Read nvdisasm's text listing (`-c -gi -gp`) and cuobjdump -sass listings.

The text form is needed even when JSON exists: only it carries the inline chain of each
instruction (`-gi`: "line 1 inlined at ..., line 2"), the PTX line behind it (`-gp`, lines of
the ".nv_debug_ptx_txt" file) and the label table. It is also the only form older nvdisasm and
cuobjdump give, so `parse_sass_text` must yield the same instructions as the JSON reader on the
same cubin. `read_line_info` is the cheap pass the model builder uses next to the JSON: the same
scan, without building instructions.

Line annotations apply to every following instruction until the next one of the same kind;
a run of consecutive `//## File` lines is one inline chain, innermost first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sassview.errors import ParseError
from sassview.ir import SourceLoc
from sassview.parse.sass import SassFunction, SassListing, build_instruction, resolve_label_targets
from sassview.parse.sass_operands import label_operand

# The embedded PTX's name: ".nv_debug_ptx_txt" from ptxas, ".nv_debug_ptx_txt.<n>" from nvJitLink.
PTX_FILE = ".nv_debug_ptx_txt"
_PTX_MARK = f'"{PTX_FILE}'  # noqa: Q000

_INSTR = re.compile(
    r"^\s*/\*([0-9a-fA-F]{4,})\*/\s*(?:\{\s*)?(@!?U?P[0-7T]\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)"
    r"\s*(.*?)\s*;?\s*\}?\s*(?:/\*[^*]*\*/\s*)*$"
)
_ADDRESS = re.compile(r"^\s*/\*([0-9a-fA-F]{4,})\*/")
_MARK = re.compile(r'\s*\(\*"([^"]*)"\*\)')
_FILE = re.compile(r'^\s*//## File "([^"]*)", line (\d+)(?:, column (\d+))?')
_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")
_CUOBJDUMP_FUNC = re.compile(r"^\s*Function : (\S+)")
_LABEL = re.compile(r"^([.$A-Za-z_][\w.$@]*):\s*$")
_TARGET = re.compile(r"^\s*\.target\s+(sm_\w+)")
_LABEL_REF = re.compile(r"`\(([^)]*)\)")
# RET.REL.NODEC R4 `(k): the text form drops the comma the JSON form has before a label.
# cuobjdump likewise prints RET.REL.NODEC R4 0x0.
_BARE_LABEL_REF = re.compile(r"(?<=[^,\s])\s+(?=`\(|-?0x)")


@dataclass(slots=True)
class LineInfo:
    """Per function: source chain and PTX line of each instruction address, and the labels."""

    sources: dict[int, SourceLoc] = field(default_factory=dict)
    ptx_lines: dict[int, int] = field(default_factory=dict)
    labels: dict[str, int] = field(default_factory=dict)
    jump_tables: dict[int, tuple[str, ...]] = field(default_factory=dict)  # BRX -> label names

    def jump_targets(self, address: int) -> tuple[int, ...]:
        names = self.jump_tables.get(address, ())
        return tuple(self.labels[n] for n in names if n in self.labels)


# An instruction line as the scanner leaves it: line number, the line, the source chain and PTX
# line in force there, and its address when the line has nvdisasm's own shape (else None).
_Row = tuple[int, str, "SourceLoc | None", "int | None", "int | None"]


@dataclass(slots=True)
class _FunctionScan:
    """One function's lines: its instruction rows, and each label with the row it names."""

    name: str
    rows: list[_Row] = field(default_factory=list)
    labels: list[tuple[str, int]] = field(default_factory=list)  # (label, index in rows)


def _scan(text: str, where: str) -> tuple[list[_FunctionScan], str]:
    """The functions of a listing with their instruction rows, and the `.target` arch.

    One pass and no per-line objects: both readers walk the rows afterwards, so this loop is
    the only one that sees the 10^5 annotation lines of a large listing.
    """
    functions: list[_FunctionScan] = []
    rows: list[_Row] = []
    labels: list[tuple[str, int]] = []
    chain: list[tuple[str, int, int]] = []
    loc: SourceLoc | None = None
    ptx_line: int | None = None
    arch = ""
    for lineno, line in enumerate(text.splitlines(), 1):
        # nvdisasm's own shapes of the three lines that make up nearly all of a listing, tested
        # by prefix; any other spelling (cuobjdump, older nvdisasm) takes the general path.
        if line.startswith(_NVDISASM_INSTRUCTION):
            head = line[8:11]  # no lstrip() for the third of all lines
        elif line.startswith(_NVDISASM_PTX) and line[_NVDISASM_PTX_LEN:].isdigit():
            ptx_line = int(line[_NVDISASM_PTX_LEN:])
            continue
        elif line.startswith(_NVDISASM_FILE) and (frame := _frame(line)) is not None:
            chain.append(frame)
            continue
        else:
            head = line.lstrip()[:3]
        if head.startswith("/*"):
            if not head[2:3].isalnum():
                continue  # cuobjdump's encoding-only line: /* 0x000fe20000000f00 */
            if not functions:
                raise ParseError("an instruction before any function", where=f"{where}:{lineno}")
            if chain:
                loc = _chain_loc(chain)
                chain = []
            rows.append((lineno, line, loc, ptx_line, _nvdisasm_address(line)))
            continue
        if head.startswith("//#"):
            if _PTX_MARK in line:  # the -gp line: half of all annotation lines, so no regex
                try:
                    ptx_line = int(line.rsplit(" ", 1)[1])
                    continue
                except (IndexError, ValueError):
                    pass
            match = _FILE.match(line)
            if match:
                path, num = match.group(1), int(match.group(2))
                if path.startswith(PTX_FILE):
                    ptx_line = num
                else:
                    chain.append((path, num, int(match.group(3) or 0)))
            continue
        section = _SECTION.match(line) or _CUOBJDUMP_FUNC.match(line)
        if section:
            functions.append(_FunctionScan(section.group(1)))
            rows, labels = functions[-1].rows, functions[-1].labels
            chain, loc, ptx_line = [], None, None
            continue
        stripped = line.strip()
        if functions and stripped.endswith(":"):
            label = _LABEL.match(stripped)
            if label:
                labels.append((label.group(1), len(rows)))
                continue
        target = _TARGET.match(line)
        if target:
            arch = target.group(1)
    return functions, arch


_NVDISASM_PTX = f'\t//## File "{PTX_FILE}", line '
_NVDISASM_PTX_LEN = len(_NVDISASM_PTX)
_NVDISASM_FILE = '\t//## File "'
_NVDISASM_INSTRUCTION = "        /*"
_HEX_DIGITS = "0123456789abcdefABCDEF"


def _nvdisasm_address(line: str) -> int | None:
    """The address of an instruction line in nvdisasm's own indent (`        /*03d0*/`), read
    without a regex; None for any other spelling (`_address` then reads it or says why not)."""
    if not line.startswith(_NVDISASM_INSTRUCTION):
        return None
    digits = line[10 : line.find("*/", 10)]
    return int(digits, 16) if len(digits) >= 4 and not digits.strip(_HEX_DIGITS) else None


def _frame(line: str) -> tuple[str, int, int] | None:
    """`\t//## File "/a/k.cu", line 12[, column 3]` -> ("/a/k.cu", 12, 3); None for any other
    line (the PTX file's lines, text after the numbers) so the general path decides."""
    close = line.find('"', 12)
    path = line[12:close]
    if close < 0 or path.startswith(PTX_FILE) or line[close : close + 8] != '", line ':
        return None
    number, _, column = line[close + 8 :].partition(", column ")
    if not (number.isdigit() and (not column or column.isdigit())):
        return None
    return path, int(number), int(column) if column else 0


def _address(line: str, lineno: int, where: str) -> int:
    match = _ADDRESS.match(line)
    if not match:
        raise ParseError("an instruction line without its /*address*/", where=f"{where}:{lineno}")
    return int(match.group(1), 16)


def read_line_info(text: str, where: str = "<nvdisasm text>") -> dict[str, LineInfo]:
    """Function name -> its LineInfo, without parsing the instructions themselves."""
    functions, _ = _scan(text, where)
    out: dict[str, LineInfo] = {}
    for func in functions:
        info = out[func.name] = LineInfo()
        addresses = []
        sources, ptx_lines = info.sources, info.ptx_lines
        for lineno, line, loc, ptx_line, known in func.rows:
            address = _address(line, lineno, where) if known is None else known
            addresses.append(address)
            if loc is not None:
                sources[address] = loc
            if ptx_line is not None:
                ptx_lines[address] = ptx_line
            if _JUMP_TABLE in line:
                info.jump_tables[address] = _jump_table(line)
        for label, index in func.labels:
            if index < len(addresses):  # a label after the last instruction names nothing
                info.labels[label] = addresses[index]
    return out


_JUMP_TABLE = "BRANCH_TARGETS "


def _jump_table(line: str) -> tuple[str, ...]:
    """Label names of (*"BRANCH_TARGETS .L_x_57,.L_x_58"*) on a BRX line."""
    for mark in _MARK.findall(line):
        if mark.startswith(_JUMP_TABLE):
            return tuple(n.strip() for n in mark[len(_JUMP_TABLE) :].split(",") if n.strip())
    return ()


def parse_sass_text(text: str, where: str = "<nvdisasm text>") -> SassListing:
    functions, arch = _scan(text, where)
    out = []
    for func in functions:
        rows: list[tuple[int, str, str, str, SourceLoc | None, int | None, tuple[str, ...]]] = []
        for lineno, line, loc, ptx_line, _ in func.rows:
            match = _INSTR.match(line)
            if not match:
                raise ParseError(
                    f"cannot read this instruction: {line.strip()!r}", where=f"{where}:{lineno}"
                )
            body = _BARE_LABEL_REF.sub(", ", match.group(4))
            marks = tuple(_MARK.findall(body))
            if marks:
                body = _MARK.sub("", body).strip()
            predicate = (match.group(2) or "").strip()
            address = int(match.group(1), 16)
            rows.append((address, predicate, match.group(3), body, loc, ptx_line, marks))
        labels = {label: rows[i][0] for label, i in func.labels if i < len(rows)}
        out.append(_make_function(func.name, rows, labels, where))
    return SassListing(tuple(out), arch)


_chains: dict[tuple[tuple[str, int, int], ...], SourceLoc | None] = {}


def _chain_loc(chain: list[tuple[str, int, int]]) -> SourceLoc | None:
    """Consecutive File lines: innermost first, each inlined into the next one."""
    key = tuple(chain)
    found = _chains.get(key, False)
    if found is not False:
        return found  # type: ignore[return-value]
    loc: SourceLoc | None = None
    for path, line, col in reversed(chain):
        loc = SourceLoc(path, line, col, loc)
    if len(_chains) < 200_000:
        _chains[key] = loc
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
                build_instruction(
                    address,
                    predicate,
                    mnemonic,
                    operands,
                    source=loc,
                    ptx_line=ptx_line,
                    marks=marks,
                )
            )
        except (ValueError, IndexError) as exc:
            raise ParseError(f"function {name}, /*{address:04x}*/: {exc}", where=where) from None
    instructions = [
        i._replace(targets=tuple(labels[n] for n in table if n in labels))
        if (table := _jump_table_of(i.marks))
        else i
        for i in instructions
    ]
    return resolve_label_targets(SassFunction(name, tuple(instructions), dict(labels)))


def _jump_table_of(marks: tuple[str, ...]) -> tuple[str, ...]:
    for mark in marks:
        if mark.startswith(_JUMP_TABLE):
            return tuple(n.strip() for n in mark[len(_JUMP_TABLE) :].split(",") if n.strip())
    return ()


def _label_text(label: str, labels: dict[str, int]) -> str:
    """A local label (.L_x_3) becomes its address, as the JSON prints it; a symbol stays a name."""
    if label.startswith(".L") and label in labels:
        return label_operand(labels[label]).text
    return label
