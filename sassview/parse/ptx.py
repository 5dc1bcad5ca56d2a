"""Read PTX text (NVRTC, Triton, CuTe DSL output) into `sassview.ir.PtxModule`.

One linear pass over the lines. The general path (`_Parser.read_lines`) defines what a line
means: comments and strings are peeled per line (`ptx_lex`), the code is cut into statements
at `;`, `{` and `}`, and a small state machine places each statement: module header, function
header, register declaration, label, `.loc`, `.pragma` or instruction. Directives that PTX
ends at the line break (`.loc`, `.file`, `.version`, `.target`, `.address_size`, `.section`)
end there; everything else may span lines (`call.uni` does). DWARF sections
(`.section .debug_* { ... }`) are skipped a line at a time without being split.

The lines that are nearly all of a large file, a `.loc`, a one-line instruction, a lone label
and a blank line, are found first by one regex split of the whole text (`ptx_lex.RECORD`),
which leaves the lines between them to the general path. Runs of such records are read in
bulk (`_Parser.quick_records`): each field is a slice of the split, and C loops (map, zip,
compress, accumulate, str.split) make the instructions' columns, so no Python code runs per
line but for the few the bulk cut does not fit (a vector operand, an inlined `.loc`). They
make what the general path would make of each line, in the same order: a run is read so
only while no statement is pending, and only up to a line that is more than its one
statement, which the general path reads (checked over the whole run at once, see
`ptx_lex.plain_operands`). A 10^5-line file reads in about half the time that a Python step
per line took.

Source locations are resolved after the pass because NVRTC and LLVM write `.file` after the
functions. An inlined `.loc` names its call site only by file, line and column; which earlier
`.loc` that is, and so the whole chain of frames, is worked out by `ptx_lex.InlineChains`.

Anything malformed raises `ParseError` with `where` = "<where>:<line>"; no other exception
escapes for any text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import accumulate, compress, count, islice, repeat
from types import MappingProxyType
from typing import Any

from sassview.errors import ParseError
from sassview.gcpause import without_gc
from sassview.ir import PtxFunction, PtxInstruction, PtxModule, PtxRegisterDecl, SourceLoc
from sassview.parse.ptx_lex import (
    HEADER,
    RECORD,
    RECORD_STRIDE,
    Chain,
    InlineChains,
    InsFields,
    InsRecord,
    LexError,
    LocFields,
    LocKey,
    Names,
    file_directive,
    function_header,
    instruction_fields,
    loc_fields,
    loc_numbers,
    number,
    odd_instructions,
    own_statement,
    pieces,
    plain_operands,
    read_locs,
    register_decls,
    source_locs,
    split_label,
    strings,
    strip_comments,
)

__all__ = ["parse_ptx"]

# Directives PTX ends at the line break rather than with `;`.
_LINE_DIRECTIVES = frozenset({".loc", ".file", ".version", ".target", ".address_size", ".section"})
_LINKAGE = (".visible", ".extern", ".weak", ".common", ".entry", ".func")
_PTX_HINT = "expected PTX as NVRTC, Triton or the CuTe DSL write it (.version, .target, functions)"
_BAD_HINT = "the PTX looks damaged: truncated, hand-edited, or from a tool sassview does not know"

# The records `quick_records` reads at once after a line it left to the general path.
_WINDOW = 64

_new_tuple = tuple.__new__  # NamedTuples built from a tuple, without their Python __new__


# A function's instructions as columns: line, opcode, modifiers, operands, guard, negated,
# and the index of the instruction's .loc in _Parser.locs, which the build step turns into its
# source (so each .loc is resolved once). `build` zips them into PtxInstructions. A run read by
# `quick_records` has repeat() for guard and negated when none of it has a guard.
_Columns = tuple[
    Iterable[int],
    Iterable[str],
    Iterable[tuple[str, ...]],
    Iterable[tuple[str, ...]],
    Iterable["str | None"],
    Iterable[bool],
    Iterable[int],
]


@dataclass
class _Func:
    """A function while its body is being read."""

    name: str
    is_entry: bool
    start_line: int
    params: tuple[str, ...]
    directives: dict[str, tuple[int, ...]]
    end_line: int = 0
    # The instructions in line order, a chunk of _Columns after another.
    chunks: list[_Columns] = field(default_factory=list)
    general: tuple[list[Any], ...] | None = None  # the last chunk, if it holds lists
    labels: dict[str, int] = field(default_factory=dict)
    registers: list[PtxRegisterDecl] = field(default_factory=list)
    pragmas: list[tuple[int, str]] = field(default_factory=list)

    def add(self, record: InsRecord, loc: int) -> None:
        """An instruction read the general way, and the index of its .loc."""
        if self.general is None:
            self.general = ([], [], [], [], [], [], [])
            self.chunks.append(self.general)
        for column, value in zip(self.general, (*record, loc), strict=True):
            column.append(value)

    def add_run(self, columns: _Columns) -> None:
        """The instructions of a run of quick records."""
        self.general = None
        self.chunks.append(columns)


class _Parser:
    """The state of one pass: `run` reads the text, `module` builds the result."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.version: str | None = None
        self.target: str | None = None
        self.address_size: int | None = None
        self.files: dict[int, str] = {}
        self.file_refs: dict[int, int] = {}  # file id -> first line of a .loc naming it
        self.functions: list[_Func] = []
        self.module_pragmas: list[tuple[int, str]] = []
        self.header_pragmas: list[tuple[int, str]] = []
        self.func: _Func | None = None
        self.scopes: list[tuple[str, int]] = []  # ("func" | "block", line it opened)
        self.section = 0  # brace depth inside a skipped .section
        self.expect_section = False
        # Every .loc read, in order; the last is the one in force, None before a function's
        # first one.
        self.locs: list[Chain | None] = [None]
        self.inlined = True  # whether any .loc may have `inlined_at`; run() looks
        self.chains = InlineChains()
        # The statement read so far (lines end with "\n"); cleared, never rebound, as run()
        # holds it in a local.
        self.parts: list[str] = []
        self.pending_line = 0
        self.sdepth = 0  # braces open inside the pending statement ({%f1, %f2}, = {1, 2})
        self.inline_braces = False  # the pending statement's braces are its own, not scopes
        self.in_block = False  # inside a /* */ comment at the end of the last line read
        self.text = ""
        self.lines: list[str] | None = None  # the text's lines, once the general path needs one
        self.names = Names()  # what plain_name reads off each guard and mnemonic

    def error(self, message: str, line: int, hint: str = _BAD_HINT) -> ParseError:
        return ParseError(message, where=f"{self.where}:{line}", hint=hint)

    # -- the pass ---------------------------------------------------------------------------

    def run(self, text: str) -> None:
        """Read the text: the lines RECORD takes in runs, in bulk (`read_records`), and the
        lines between the runs the general way (`read_lines`), all in line order."""
        self.inlined = "inlined_at" in text
        self.chains = InlineChains(self.inlined)
        self.text = text
        # With a newline in front, every line starts after one, the first included; each gap
        # between records is then empty, or a newline (ending the record before) and whole
        # lines.
        pieces = RECORD.split("\n" + text)
        gaps = pieces[::RECORD_STRIDE]  # the text before each record, then the rest
        records = len(gaps) - 1
        start = lineno = 0  # records and lines read
        for stop in [*compress(range(records), gaps), records]:
            self.read_records(pieces, start, stop, lineno + 1)
            lineno += stop - start
            if gaps[stop]:
                lines = gaps[stop][1:].split("\n")
                self.read_lines(lines, lineno + 1)
                lineno += len(lines)
            start = stop
        self.finish()

    def read_records(self, pieces: list[Any], start: int, stop: int, lineno: int) -> None:
        """Records start..stop-1 of the split, the first on line `lineno`: in bulk by
        `quick_records` where the state lets them, else the general way, in line order.

        `quick_records` checks all the records it is given before it reads the first, so
        they go to it in windows, small after a line it left to the general path and
        doubling while it takes them all: a file where such lines are many costs linear time.
        """
        window = _WINDOW
        while start < stop:
            # Inside a skipped section, a block comment or a statement: the general way.
            if not (self.section or self.in_block or self.parts):
                end = min(stop, start + window)
                done = self.quick_records(pieces, start, end, lineno)
                start, lineno = start + done, lineno + done
                if start == end:
                    window *= 2
                    continue
                window = _WINDOW
            self.read_lines(self.source_lines(lineno, 1), lineno)
            start, lineno = start + 1, lineno + 1

    def quick_records(self, pieces: list[Any], start: int, stop: int, lineno: int) -> int:
        """Read records from `start` on (the first on line `lineno`), no statement pending,
        as the general path would read them one by one but in C loops over each field; stop
        before the first one it must leave to the general path and say how many it read.

        Each field is a slice of the split, None on the records without it: a .loc's
        numbers, an instruction's guard and mnemonic, its operands, a label. An instruction
        whose mnemonic or operands are not plain (`plain_name`, `plain_operands`: a vector,
        say) has the fields `instruction_fields` reads off its line, and the .loc lines of a
        run where one has `inlined_at` are read one by one (`read_locs`). Where either would
        raise, or a line is more than its one statement, the general path takes over.
        """
        at, end, step = start * RECORD_STRIDE, stop * RECORD_STRIDE, RECORD_STRIDE
        locs: list[str | None] = pieces[at + 1 : end : step]
        names: list[str | None] = pieces[at + 2 : end : step]
        mnemonics: list[str] = list(filter(None, names))  # with their guards
        if mnemonics and self.func is None:  # the general path stops at the first instruction
            return self.quick_records(pieces, start, start + _nth(names, 0), lineno)
        operands: list[str] = list(compress(pieces[at + 3 : end : step], names))
        seen, names_read = set(mnemonics), self.names
        names_read.learn(seen)
        lines = range(lineno, lineno + stop - start)
        ins_lines = list(compress(lines, names))
        odd: dict[int, InsFields] = {}  # instruction -> its fields, read off its line
        stray = stop - start  # the first record to leave to the general path
        if not (names_read.odd.isdisjoint(seen) and plain_operands(operands)):
            for i in odd_instructions(mnemonics, operands, names_read.odd):
                fields = self.own_fields(mnemonics[i] + " " + operands[i], ins_lines[i])
                if fields is None:
                    stray = _nth(names, i)
                    break
                odd[i] = fields
        loc_texts: list[str] = list(filter(None, locs))
        loc_text = " ".join(loc_texts)
        inlined: list[LocFields] | None = None
        if "," in loc_text:  # one has `function_name` or `inlined_at`
            inlined, failed = read_locs(loc_texts)
            if failed is not None:
                stray = min(stray, _nth(locs, failed))
        if stray < stop - start:  # read up to it: what was found before it
            stop, end = start + stray, (start + stray) * step
            count = stray - names[:stray].count(None)  # instructions before it
            locs, names, lines = locs[:stray], names[:stray], lines[:stray]
            mnemonics, operands, ins_lines = mnemonics[:count], operands[:count], ins_lines[:count]
            loc_texts = loc_texts[: stray - locs.count(None)]
            loc_text = " ".join(loc_texts)
            inlined = inlined[: len(loc_texts)] if inlined is not None else None
            odd = {i: fields for i, fields in odd.items() if i < count}
        # Nothing below raises: read the run.
        before = len(self.locs) - 1  # the .loc in force before it
        if inlined is not None:
            for found, line in zip(inlined, compress(lines, locs), strict=True):
                self.add_loc(*found, line)
        elif loc_texts:
            self.plain_locs(loc_text, compress(lines, locs))
        if mnemonics or loc_texts:
            self.expect_section = False
        labels: list[str | None] = pieces[at + 4 : end : step]
        if self.func is not None and labels.count(None) < len(labels):
            for name, line in zip(compress(labels, labels), compress(lines, labels), strict=True):
                self.func.labels.setdefault(name, line)  # type: ignore[arg-type]
        if self.func is not None and mnemonics:
            guarded = bool(odd) or not names_read.guarded.isdisjoint(seen)
            columns = self.columns(ins_lines, mnemonics, operands, guarded, odd)
            # Each instruction's .loc: the one before the run, moved on by each of the run.
            in_force = accumulate(map(bool, locs), initial=before)
            next(in_force)
            self.func.add_run((*columns, list(compress(in_force, names))))
        return stop - start

    def columns(
        self,
        lines: list[int],
        names: list[str],
        operands: list[str],
        guarded: bool,
        odd: dict[int, InsFields],
    ) -> tuple[list[int], list[str], list[tuple[str, ...]], list[tuple[str, ...]], Any, Any]:
        """The columns of a run's instructions but their .locs: the fields of their names
        (`self.names`), their operands cut at ", ", and at `odd` the fields read off the
        line; guards and negation are repeat()s unless `guarded`.

        They are made now rather than when the build step zips them: the strings the split
        made are still in the CPU cache (the whole parse takes a tenth less)."""
        known = self.names
        opcodes: list[Any] = list(map(known.opcodes.get, names))
        modifiers: list[Any] = list(map(known.modifiers.get, names))
        cut = list(map(tuple, map(str.split, operands, repeat(", "))))
        if not guarded:
            return lines, opcodes, modifiers, cut, repeat(None), repeat(False)
        guards = list(map(known.guards.get, names))
        negated = list(map(known.negated.get, names, repeat(False)))
        for i, fields in odd.items():
            opcodes[i], modifiers[i], cut[i], guards[i], negated[i] = fields
        return lines, opcodes, modifiers, cut, guards, negated

    def own_fields(self, text: str, line: int) -> InsFields | None:
        """What the general path reads off the line of an instruction record, `text` being
        its guard, mnemonic and operands, when that is one statement (`own_statement`) that
        reads without error; else None."""
        if not own_statement(text):
            return None
        code = self.source_lines(line, 1)[0]
        code = code[: code.find("/")] if "/" in code else code  # a `//` comment
        try:
            return instruction_fields(code.strip()[:-1].rstrip())
        except LexError:
            return None

    def source_lines(self, lineno: int, count: int) -> list[str]:
        """`count` lines of the text from line `lineno`, for the general path."""
        if self.lines is None:
            self.lines = self.text.split("\n")
        return self.lines[lineno - 1 : lineno - 1 + count]

    def read_lines(self, lines: list[str], first: int) -> None:
        """Read lines the general way, the first being line `first`: what this makes of a
        line is what it means, and what `quick_records` must make of it too."""
        in_block = self.in_block
        parts = self.parts
        for lineno, line in enumerate(lines, first):
            if self.section and not in_block and not ("{" in line or "}" in line or "/*" in line):
                continue  # DWARF bytes: the bulk of a -lineinfo/-G file
            if in_block or "/" in line:
                code, in_block = strip_comments(line, in_block)
            else:
                code = line
            if ";" in code or "{" in code or "}" in code or '"' in code:
                if not parts and not self.section and self.whole_statement(code, lineno):
                    continue
                self.read_pieces(code, lineno)
            elif self.section or not code:
                continue  # inside DWARF bytes, or an empty line
            else:
                self.add_text(code, lineno)
            if parts:
                self.end_of_line(lineno)
        self.in_block = in_block

    def whole_statement(self, code: str, lineno: int) -> bool:
        """Read the common line, one whole statement with `;` last and nothing to split;
        False (and nothing read) for any other line."""
        stmt = code.strip()
        if stmt[-1] != ";" or stmt.count(";") != 1 or "{" in stmt or "}" in stmt or '"' in stmt:
            return False
        self.expect_section = False
        stmt = stmt[:-1].rstrip()
        if stmt:
            self.statement(stmt, lineno)
        return True

    def read_pieces(self, code: str, lineno: int) -> None:
        """Read a line that `;`, braces or a string split into pieces."""
        for piece in pieces(code):
            if piece == ";":
                self.end()
            elif piece == "{":
                self.open(lineno)
            elif piece == "}":
                self.close(lineno)
            elif not self.section:
                self.add_text(piece, lineno)

    def add_text(self, text: str, lineno: int) -> None:
        """Add text to the statement being read; a statement starts at its first non-blank."""
        if self.parts:
            self.parts.append(text)
        elif text and not text.isspace():
            self.parts.append(text)
            self.pending_line = lineno

    def end_of_line(self, lineno: int) -> None:
        """End a line directive or a lone label at the line break; let anything else go on.

        Only a statement that began on this line can be either, so a long statement spanning
        many lines (a big initializer) is never re-read here.
        """
        if self.pending_line == lineno and self.sdepth == 0:
            text = "".join(self.parts).strip()
            if not text:
                self.parts.clear()
                return
            if text[0] == "." and text.split(None, 1)[0] in _LINE_DIRECTIVES:
                self.end()
                return
            if text[-1] == ":":
                label, rest = split_label(text)
                if label is not None and not rest:
                    self.add_label(label, lineno)
                    self.parts.clear()
                    return
        self.parts.append("\n")

    def end(self) -> None:
        stmt, line = "".join(self.parts).strip(), self.pending_line
        self.parts.clear()
        self.sdepth, self.inline_braces = 0, False
        if stmt:
            self.statement(stmt, line)

    def open(self, lineno: int) -> None:
        if self.section:
            self.section += 1
            return
        if self.sdepth or self.inline_braces:
            self.parts.append("{")
            self.sdepth += 1
            return
        stmt = "".join(self.parts).strip()
        if stmt and not self.opens_scope(stmt):
            self.parts.append("{")
            self.sdepth, self.inline_braces = 1, True
            return
        line = self.pending_line
        self.parts.clear()
        if stmt.startswith(".section") or (not stmt and self.expect_section):
            self.section, self.expect_section = 1, False
        elif stmt and HEADER.match(stmt):
            self.start_function(stmt, line, lineno)
        else:
            if stmt:  # a label just before the brace
                self.add_label(split_label(stmt)[0] or stmt, line)
            self.scopes.append(("block", lineno))

    def opens_scope(self, stmt: str) -> bool:
        """Whether `{` after `stmt` opens a scope rather than a vector operand or initializer."""
        if stmt.startswith(".section") or (stmt[0] == "." and HEADER.match(stmt)):
            return True
        label, rest = split_label(stmt)
        return label is not None and not rest

    def close(self, lineno: int) -> None:
        if self.section:
            self.section -= 1
            return
        if self.sdepth:
            self.parts.append("}")
            self.sdepth -= 1
            return
        if self.parts:
            self.end()  # a last statement without its `;`: take it as ended
        if not self.scopes:
            raise self.error("'}' closes nothing", lineno)
        kind, _ = self.scopes.pop()
        if kind == "func" and self.func is not None:
            self.func.end_line = lineno
            self.functions.append(self.func)
            self.func = None

    # -- statements -------------------------------------------------------------------------

    def statement(self, stmt: str, line: int) -> None:
        try:
            self.place(stmt, line)
        except LexError as exc:
            raise self.error(str(exc), line) from None

    def plain_locs(self, text: str, lines: Iterable[int]) -> None:
        """`.loc` lines RECORD took, their "FILE LINE COLUMN" joined in `text`, on `lines`, as
        `directive` reads them."""
        numbers = loc_numbers(text)
        files = numbers[::3]
        fresh = set(files).difference(self.file_refs)
        if fresh:  # the first line of a .loc naming each file not named before
            at = list(lines)
            for file_id in sorted(fresh, key=files.index):
                self.file_refs[file_id] = at[files.index(file_id)]
        self.locs.extend(self.chains.add_plains(numbers))

    def add_loc(
        self, key: LocKey, function: str | None, call_site: LocKey | None, line: int
    ) -> None:
        """A `.loc` on `line`, its fields read by `loc_fields`."""
        for file_id in (key[0], call_site[0] if call_site else key[0]):
            self.file_refs.setdefault(file_id, line)
        self.locs.append(self.chains.add(key, function, call_site))

    def place(self, stmt: str, line: int) -> None:
        self.expect_section = False
        if stmt[0] == ".":
            self.directive(stmt, line)
            return
        label, rest = split_label(stmt) if ":" in stmt else (None, stmt)
        if label is not None:
            if not rest.startswith(".callprototype"):
                self.add_label(label, line)
            if not rest or rest[0] == ".":
                return
            stmt = rest
        if self.func is None:
            if self.version is None:
                raise self.error(
                    "this does not look like PTX: no .version before it", line, _PTX_HINT
                )
            raise self.error(f"instruction outside any function: {stmt[:60]!r}", line)
        self.func.add((line, *instruction_fields(stmt)), len(self.locs) - 1)

    def directive(self, stmt: str, line: int) -> None:
        head, *tail = stmt.split(None, 1)
        rest = tail[0] if tail else ""
        if head == ".loc":
            self.add_loc(*loc_fields(rest), line)
        elif head == ".reg":
            if self.func is not None:
                self.func.registers.extend(register_decls(rest))
        elif head == ".pragma":
            found = [(line, s) for s in strings(rest) or [rest.rstrip(";").strip()]]
            (self.func.pragmas if self.func else self.module_pragmas).extend(found)
        elif head == ".section":
            self.expect_section = True
        elif head.startswith(_LINKAGE) and HEADER.match(stmt):
            self.declaration(stmt, line)
        elif self.func is None:
            self.module_directive(head, rest)

    def module_directive(self, head: str, rest: str) -> None:
        """The header, `.file`; the first .version/.target wins, a later `.file N` replaces."""
        if head in (".version", ".target") and not rest.split(",", 1)[0].strip():
            raise LexError(f"{head} without a value")
        if head == ".version":
            self.version = self.version or rest.split()[0]
        elif head == ".target":  # sm_90a, or `sm_90, debug` from -G
            self.target = self.target or rest.split(",", 1)[0].strip()
        elif head == ".address_size":
            self.address_size = self.address_size or number(rest)
        elif head == ".file":
            index, path = file_directive(rest)
            self.files[index] = path

    def declaration(self, stmt: str, line: int) -> None:
        """A function header ended by `;`: a prototype, or a header carrying `.pragma`."""
        at = stmt.find(".pragma")
        if at < 0:
            self.header_pragmas = []
            return  # .extern .func f(...); or a forward declaration: nothing to read
        self.header_pragmas.extend(
            (line + stmt.count("\n", 0, at), s) for s in strings(stmt[at:]) or ["?"]
        )
        self.parts.append(stmt[:at])  # the body's `{` is still to come
        self.pending_line = line

    def add_label(self, name: str, line: int) -> None:
        if self.func is not None:
            # Inline-asm scopes may repeat a label name; the first one is kept.
            self.func.labels.setdefault(name, line)

    # -- functions --------------------------------------------------------------------------

    def start_function(self, stmt: str, line: int, lineno: int) -> None:
        if self.func is not None or self.scopes:
            hint = "the body before it is missing its closing '}' (truncated or hand-edited PTX?)"
            raise self.error("a function header inside another scope", line, hint)
        try:
            name, is_entry, params, directives = function_header(stmt)
        except LexError as exc:
            raise self.error(str(exc), line) from None
        self.func = _Func(name, is_entry, line, params, directives, pragmas=self.header_pragmas)
        self.header_pragmas = []
        self.scopes.append(("func", lineno))
        self.locs.append(None)  # no .loc in force yet
        self.chains = InlineChains(self.inlined)

    # -- the result -------------------------------------------------------------------------

    def finish(self) -> None:
        if self.version is None or self.target is None:
            missing = ".version" if self.version is None else ".target"
            raise self.error(f"this does not look like PTX: no {missing} directive", 1, _PTX_HINT)
        if self.func is not None:
            raise self.error(
                f"the body of {self.func.name} never closes",
                self.func.start_line,
                "the PTX looks truncated: every function body needs its closing '}'",
            )
        if self.scopes:
            raise self.error("a '{' that never closes", self.scopes[-1][1])
        if self.parts and not self.section:
            raise self.error("the last statement never ends", self.pending_line)
        for file_id, line in self.file_refs.items():
            if file_id not in self.files:
                raise self.error(
                    f".loc names file {file_id}, which no .file declares",
                    line,
                    f"declared files: {sorted(self.files) or 'none'}",
                )

    def module(self) -> PtxModule:
        sources = source_locs(self.locs, self.files)
        funcs = tuple(self.build(f, sources) for f in self.functions)
        assert self.version is not None and self.target is not None  # finish() checked
        return PtxModule(
            self.version,
            self.target,
            self.address_size or 32,  # the PTX default when .address_size is absent
            MappingProxyType(dict(self.files)),
            funcs,
        )

    def build(self, f: _Func, sources: list[SourceLoc | None]) -> PtxFunction:
        # The fields of each instruction zipped, and PtxInstruction made of them, all in C: a
        # Python loop over 10^5 instructions costs several times more, and zip hands on one
        # tuple that tuple.__new__ copies, so each instruction costs one tuple.
        ins: list[PtxInstruction] = []
        for lines, opcodes, modifiers, operands, guards, negated, locs in f.chunks:
            fields = zip(
                lines,
                opcodes,
                modifiers,
                operands,
                guards,
                negated,
                map(sources.__getitem__, locs),
                strict=False,  # a run without guards repeats None and False for them
            )
            ins.extend(map(_new_tuple, repeat(PtxInstruction), fields))
        d = f.directives
        return PtxFunction(
            name=f.name,
            is_entry=f.is_entry,
            start_line=f.start_line,
            end_line=f.end_line,
            params=f.params,
            instructions=tuple(ins),
            labels=MappingProxyType(f.labels),
            registers=tuple(f.registers),
            maxntid=d.get(".maxntid") or None,
            reqntid=d.get(".reqntid") or None,
            minnctapersm=(d.get(".minnctapersm") or (None,))[0],
            maxnreg=(d.get(".maxnreg") or (None,))[0],
            pragmas=tuple(sorted(self.module_pragmas) + f.pragmas),
        )


def _nth(selectors: list[str | None], n: int) -> int:
    """The index of the `n`th (from 0) selector that is not None."""
    return next(islice(compress(count(), selectors), n, None))


def parse_ptx(text: str, where: str = "<ptx>") -> PtxModule:
    """Parse PTX text into a `PtxModule`; `where` names the text in errors ("<where>:<line>").

    Functions are `.entry` and `.func` definitions with a body; prototypes are skipped. A
    module-level `.pragma` applies to every function (as PTX defines it), so it is listed in
    each function's `pragmas` with its own, out-of-body line number. Register declarations and
    labels of nested `{ }` scopes (inline asm) belong to the enclosing function.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise ParseError("the PTX text is empty", where=f"{where}:1", hint=_PTX_HINT)
    parser = _Parser(where)
    # One object per instruction and nothing cyclic: the collector would only rescan them
    # (about a tenth of the time on a large file).
    return without_gc(_parse)(parser, text)


def _parse(parser: _Parser, text: str) -> PtxModule:
    parser.run(text)
    return parser.module()
