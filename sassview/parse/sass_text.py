"""Read nvdisasm's text listing (`-c -gi -gp`) and cuobjdump -sass listings.

The text form is needed even when JSON exists: only it carries the inline chain of each
instruction (`-gi`: "line 1 inlined at ..., line 2"), the PTX line behind it (`-gp`, lines of
the ".nv_debug_ptx_txt" file) and the label table. It is also the only form older nvdisasm and
cuobjdump give, so `parse_sass_text` must yield the same instructions as the JSON reader on the
same cubin. `read_line_info` is the cheap pass the model builder uses next to the JSON: the same
scan, without building instructions.

Line annotations apply to every following instruction until the next one of the same kind,
or up to the next function's `.type NAME,@function` line: ptxas lays its own subroutines out
after the kernel in the kernel's section (the float division slow path, sm_80's
`__cuda_sm70_shflsync_*`) with no line rows of their own, and nvdisasm's line table keeps
the row before them (the last line of the kernel's code), so their instructions get no
source line and no PTX line here, for every view at once. A run of consecutive `//## File`
lines is one inline chain, innermost first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sassview.errors import ParseError
from sassview.ir import SourceLoc
from sassview.memo import Memo
from sassview.parse.file_names import dwarf_file_name
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
    # First addresses of the functions after a section's first (`.type NAME,@function`): no
    # line row holds across one
    starts: frozenset[int] = frozenset()

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
    starts: list[int] = field(default_factory=list)  # index in rows of each function's first


# What str.splitlines splits at: no record spans one, so records and the general path see the
# same lines.
_LINE_END = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_NOT_PTX = f"(?!{re.escape(PTX_FILE)})"  # a path that does not name the embedded PTX


def _record_regex(line_end: str) -> re.Pattern[str]:
    """An instruction line in nvdisasm's own shape with the annotation lines after it, as
    nvdisasm writes nearly all of a listing: the instruction, then the inline chain and the PTX
    line of the next instruction (the chain's innermost frame in groups, read as `_frame`
    reads it; its outer frames as text). No line may hold a character of `line_end`.

    A record starts with the newline before its first line: a literal first character lets
    the regex engine skip to the candidates at memchr speed (a `^` is tried at every
    character, several times slower). The annotations come after the instruction, all
    optional, so that no attempt fails after it has read a line: the split stays linear in
    the text, whatever runs of annotation lines a malformed listing has."""
    line_char = f"[^{line_end}]"
    path = f'{_NOT_PTX}[^"{line_end}]*'
    end = r"(?=\n|\Z)"
    frame = rf'\t//## File "({path})", line ([0-9]+)(?:, column ([0-9]+))?{end}'
    outer_frame = rf'\t//## File "{path}", line [0-9]+(?:, column [0-9]+)?{end}'
    return re.compile(
        rf"\n(        /\*([0-9a-fA-F]{{4,}})\*/{line_char}*){end}"
        rf"(?:\n{frame}((?:\n{outer_frame})*))?"
        rf'(?:\n\t//## File "{re.escape(PTX_FILE)}", line ([0-9]+){end})?'
    )


_RECORD = _record_regex(_LINE_END)
# The same for a text whose only line end is \n, as nvdisasm writes: sre runs [^\n] as one
# character test, a class of ten as a set lookup (the split takes ~15% less time).
_RECORD_LF = _record_regex("\n")


def _records(text: str) -> list[Any]:
    """re.split by `_RECORD`: the text before each record, its groups (None for one that did
    not take part), ..., the text after the last."""
    lf_only = not any(end in text for end in _LINE_END[1:])
    # With a newline in front, every line starts after one, the first included; each gap
    # between records is then empty, or a newline (ending the line before) and whole lines.
    return (_RECORD_LF if lf_only else _RECORD).split("\n" + text)


_RECORD_FIELDS = _RECORD.groups + 1  # re.split gives the text before each record, then groups


def _scan(text: str, where: str) -> tuple[list[_FunctionScan], str]:
    """The functions of a listing with their instruction rows, and the `.target` arch."""
    try:
        return _scan_text(text, where)
    except ValueError:  # int() of a number past Python's limit of 4300 digits
        raise ParseError(
            "a number longer than any nvdisasm writes (over 4300 digits)",
            where=where,
            hint="the listing looks damaged: produce it again with nvdisasm",
        ) from None


def _scan_text(text: str, where: str) -> tuple[list[_FunctionScan], str]:
    """`_scan`, which see.

    The records (`_RECORD`) are found by one regex split over the whole text, which leaves
    the lines between them (headers, labels, any other spelling) to `_Scan.read_lines`, the
    general path. Both update one state in listing order, so the rows are those of reading
    every line the general way; the records, 10^5 in a large listing, cost a fraction of it.
    """
    scan = _Scan(where)
    pieces = _records(text)
    fields = iter(pieces)
    # The state lives in locals here, and in `scan` while the general path reads a gap.
    rows, loc, ptx_line, lineno = scan.rows, None, None, 0
    frame: tuple[str, str, str | None] | None = None  # a one-frame chain not yet used, as text
    chain = scan.chain  # any other chain not yet used
    in_function = False
    for gap, line, digits, path, number, column, outer, ptx in zip(
        *[fields] * _RECORD_FIELDS,
        strict=False,  # the last piece is the text after the last record
    ):
        if gap:
            if frame is not None:
                chain.append(_frame_of(*frame))
                frame = None
            scan.loc, scan.ptx_line, scan.lineno = loc, ptx_line, lineno
            scan.read_lines((gap[1:] + "\n").splitlines())  # the next newline ends its last line
            rows, loc, ptx_line, lineno = scan.rows, scan.loc, scan.ptx_line, scan.lineno
            chain, in_function = scan.chain, bool(scan.functions)
        lineno += 1
        if not in_function:
            raise ParseError("an instruction before any function", where=f"{where}:{lineno}")
        if frame is not None:
            loc = _frame_locs.get(frame) or _frame_loc(*frame)
            frame = None
        elif chain:
            loc = _chain_loc(tuple(chain))
            chain.clear()
        rows.append((lineno, line, loc, ptx_line, int(digits, 16)))
        if number is not None:  # the next instruction's chain
            if outer:
                chain.append(_frame_of(path, number, column))
                # The regex read each in `_frame`'s shape: none is None.
                chain.extend(map(_frame, outer[1:].split("\n")))  # type: ignore[arg-type]
                lineno += 1 + outer.count("\n")
            else:
                frame = (path, number, column)
                lineno += 1
        if ptx is not None:
            ptx_line = int(ptx)
            lineno += 1
    if frame is not None:
        chain.append(_frame_of(*frame))
    scan.loc, scan.ptx_line, scan.lineno = loc, ptx_line, lineno
    scan.read_lines(pieces[-1][1:].splitlines())
    return scan.functions, scan.arch


def _frame_of(path: str, number: str, column: str | None) -> tuple[str, int, int]:
    return path, int(number), int(column) if column else 0


# One-frame chains by the text of their File line's numbers: most instructions have one.
_frame_locs: Memo[tuple[str, str, str | None], SourceLoc] = Memo(f"{__name__}._frame_locs", 200_000)
_new_tuple = tuple.__new__


def _frame_loc(path: str, number: str, column: str | None) -> SourceLoc:
    # tuple.__new__: SourceLoc's own __new__ is a Python frame, and most lines are new ones.
    loc = _new_tuple(SourceLoc, (*_frame_of(dwarf_file_name(path), number, column), None))
    _frame_locs[(path, number, column)] = loc
    return loc


@dataclass(slots=True)
class _Scan:
    """The state of a listing scan: what the lines read so far put in force."""

    where: str
    functions: list[_FunctionScan] = field(default_factory=list)
    rows: list[_Row] = field(default_factory=list)  # the current function's
    labels: list[tuple[str, int]] = field(default_factory=list)  # the current function's
    chain: list[tuple[str, int, int]] = field(default_factory=list)  # File lines not yet used
    loc: SourceLoc | None = None
    ptx_line: int | None = None
    arch: str = ""
    lineno: int = 0  # of the last line read

    def read_lines(self, lines: list[str]) -> None:
        """The general path: lines one at a time, in any spelling nvdisasm or cuobjdump may use."""
        for line in lines:
            self.lineno += 1
            self.read_line(line)

    def read_line(self, line: str) -> None:
        # nvdisasm's own shapes of the three lines that make up nearly all of a listing, tested
        # by prefix (records take most of them; these are the ones between, such as a
        # function's first annotations); any other spelling goes on to the tests below.
        if line.startswith(_NVDISASM_INSTRUCTION):
            head = line[8:11]  # no lstrip() for the third of all lines
        elif line.startswith(_NVDISASM_PTX) and line[_NVDISASM_PTX_LEN:].isdigit():
            self.ptx_line = int(line[_NVDISASM_PTX_LEN:])
            return
        elif line.startswith(_NVDISASM_FILE) and (frame := _frame(line)) is not None:
            self.chain.append(frame)
            return
        else:
            head = line.lstrip()[:3]
        if head.startswith("/*"):
            self._read_instruction(line, head)
        elif head.startswith("//#"):
            self._read_comment(line)
        else:
            self._read_structure(line)

    def _read_instruction(self, line: str, head: str) -> None:
        """A line that starts with /*: an instruction at its address, or an encoding alone."""
        if not head[2:3].isalnum():
            return  # cuobjdump's encoding-only line: /* 0x000fe20000000f00 */
        if not self.functions:
            raise ParseError(
                "an instruction before any function", where=f"{self.where}:{self.lineno}"
            )
        if self.chain:
            self.loc = _chain_loc(tuple(self.chain))
            self.chain = []
        self.rows.append((self.lineno, line, self.loc, self.ptx_line, _nvdisasm_address(line)))

    def _read_comment(self, line: str) -> None:
        """A //# line in a spelling other than nvdisasm's own: a -gp PTX line or a File line."""
        if _PTX_MARK in line:  # the -gp line
            try:
                self.ptx_line = int(line.rsplit(" ", 1)[1])
                return
            except (IndexError, ValueError):
                pass  # text after the number: the File pattern below reads it
        match = _FILE.match(line)
        if match:
            path, num = match.group(1), int(match.group(2))
            if path.startswith(PTX_FILE):
                self.ptx_line = num
            else:
                self.chain.append((path, num, int(match.group(3) or 0)))

    def _read_structure(self, line: str) -> None:
        """Any other line: a function's section header or `.type`, a label, the `.target`;
        the rest (directives, blank lines, headers of no interest) changes nothing."""
        section = _SECTION.match(line) or _CUOBJDUMP_FUNC.match(line)
        if section:
            self.functions.append(_FunctionScan(section.group(1)))
            self.rows, self.labels = self.functions[-1].rows, self.functions[-1].labels
            self.chain, self.loc, self.ptx_line = [], None, None
            return
        stripped = line.strip()
        if stripped.startswith(".type") and stripped.endswith(",@function"):
            # A function starts: the kernel, or a subroutine laid out after it in its section.
            # What a line row put in force ends with the code before it; a function with rows
            # of its own (a __noinline__ one) states them before its first instruction.
            self.chain, self.loc, self.ptx_line = [], None, None
            if self.functions:
                self.functions[-1].starts.append(len(self.rows))
            return
        if self.functions and stripped.endswith(":"):
            label = _LABEL.match(stripped)
            if label:
                self.labels.append((label.group(1), len(self.rows)))
                return
        target = _TARGET.match(line)
        if target:
            self.arch = target.group(1)


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
    jump_tables = _JUMP_TABLE in text  # most listings have none: skip the test of each line
    out: dict[str, LineInfo] = {}
    for func in functions:
        info = out[func.name] = LineInfo()
        if not func.rows:
            continue
        linenos, lines, locs, ptx_lines, addresses = zip(*func.rows, strict=True)
        if None in addresses:  # some other spelling: read each such address, or say why not
            addresses = tuple(
                _address(line, lineno, where) if address is None else address
                for lineno, line, address in zip(linenos, lines, addresses, strict=True)
            )
        info.sources = {a: loc for a, loc in zip(addresses, locs, strict=True) if loc is not None}
        info.ptx_lines = {a: n for a, n in zip(addresses, ptx_lines, strict=True) if n is not None}
        if jump_tables:
            info.jump_tables = {
                a: _jump_table(line)
                for a, line in zip(addresses, lines, strict=True)
                if _JUMP_TABLE in line
            }
        # The section's first function needs no cut (nothing is in force before it): most
        # sections have no other, and the JSON reader then skips the test of each address.
        info.starts = frozenset(addresses[i] for i in func.starts if 0 < i < len(addresses))
        # A label after the last instruction names nothing.
        info.labels = {label: addresses[i] for label, i in func.labels if i < len(addresses)}
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


_chains: Memo[tuple[tuple[str, int, int], ...], SourceLoc | None] = Memo(
    f"{__name__}._chains", 200_000
)


def _chain_loc(chain: tuple[tuple[str, int, int], ...]) -> SourceLoc | None:
    """Consecutive File lines: innermost first, each inlined into the next one."""
    found = _chains.get(chain, False)
    if found is not False:
        return found  # type: ignore[return-value]
    loc: SourceLoc | None = None
    for path, line, col in reversed(chain):
        loc = SourceLoc(dwarf_file_name(path), line, col, loc)
    _chains[chain] = loc
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
