"""Read PTX text (NVRTC, Triton, CuTe DSL output) into `sassview.ir.PtxModule`.

One linear pass over the lines: comments and strings are peeled per line (`ptx_lex`), the code
is cut into statements at `;`, `{` and `}`, and a small state machine places each statement:
module header, function header, register declaration, label, `.loc`, `.pragma` or instruction.
The lines that are nearly all of a large file, a plain `.loc` and a one-line instruction, are
recognised whole by one regex when no statement is pending and read straight into the
function (`quick_line`); what that regex does not take goes the general way, unchanged.
Directives that PTX ends at the line break (`.loc`, `.file`, `.version`, `.target`,
`.address_size`, `.section`) end there; everything else may span lines (`call.uni` does).
DWARF sections (`.section .debug_* { ... }`) are skipped a line at a time without being split.

Source locations are resolved after the pass because NVRTC and LLVM write `.file` after the
functions. An inlined `.loc` names its call site only by file, line and column; which earlier
`.loc` that is, and so the whole chain of frames, is worked out by `ptx_lex.InlineChains`.

Anything malformed raises `ParseError` with `where` = "<where>:<line>"; no other exception
escapes for any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import repeat
from operator import add
from types import MappingProxyType

from sassview.errors import ParseError
from sassview.gcpause import without_gc
from sassview.ir import PtxFunction, PtxInstruction, PtxModule, PtxRegisterDecl, SourceLoc
from sassview.parse.ptx_lex import (
    HEADER,
    QUICK_LINE,
    Chain,
    InlineChains,
    InsRecord,
    LexError,
    LocKey,
    file_directive,
    function_header,
    instruction_fields,
    loc_fields,
    number,
    pieces,
    quick_record,
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

_new_tuple = tuple.__new__  # NamedTuples built from a tuple, without their Python __new__


@dataclass
class _Func:
    """A function while its body is being read."""

    name: str
    is_entry: bool
    start_line: int
    params: tuple[str, ...]
    directives: dict[str, tuple[int, ...]]
    end_line: int = 0
    # Each instruction before its source is resolved: its line and fields, and beside it the
    # index of its .loc in _Parser.locs (0: none), so the build step resolves each .loc once.
    instructions: list[InsRecord] = field(default_factory=list)
    locs: list[int] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    registers: list[PtxRegisterDecl] = field(default_factory=list)
    pragmas: list[tuple[int, str]] = field(default_factory=list)


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
        self.locs: list[Chain | None] = [None]  # every .loc read, in order
        self.loc = 0  # index in locs of the .loc in force
        self.inlined = True  # whether any .loc may have `inlined_at`; run() looks
        self.chains = InlineChains()
        # The statement read so far (lines end with "\n"); cleared, never rebound, as run()
        # holds it in a local.
        self.parts: list[str] = []
        self.pending_line = 0
        self.sdepth = 0  # braces open inside the pending statement ({%f1, %f2}, = {1, 2})
        self.inline_braces = False  # the pending statement's braces are its own, not scopes

    def error(self, message: str, line: int, hint: str = _BAD_HINT) -> ParseError:
        return ParseError(message, where=f"{self.where}:{line}", hint=hint)

    # -- the pass ---------------------------------------------------------------------------

    def run(self, text: str) -> None:
        self.inlined = "inlined_at" in text
        self.chains = InlineChains(self.inlined)
        in_block = False
        lineno = 0
        parts = self.parts
        statement = self.statement
        quick_line = QUICK_LINE.fullmatch
        for lineno, line in enumerate(text.split("\n"), 1):
            if self.section:
                if not in_block and not ("{" in line or "}" in line or "/*" in line):
                    continue  # DWARF bytes: the bulk of a -lineinfo/-G file
            elif not (in_block or parts):
                found = quick_line(line)
                if found is not None and self.quick_line(found, lineno):
                    continue
            if in_block or "/" in line:
                code, in_block = strip_comments(line, in_block)
            else:
                code = line
            if ";" in code or "{" in code or "}" in code or '"' in code:
                if not parts and not self.section:
                    # The common line: one whole statement, `;` last, nothing to split.
                    stmt = code.strip()
                    if (
                        stmt[-1] == ";"
                        and stmt.count(";") == 1
                        and not ("{" in stmt or "}" in stmt or '"' in stmt)
                    ):
                        self.expect_section = False
                        stmt = stmt[:-1].rstrip()
                        if stmt:
                            statement(stmt, lineno)
                        continue
                for piece in pieces(code):
                    if piece == ";":
                        self.end()
                    elif piece == "{":
                        self.open(lineno)
                    elif piece == "}":
                        self.close(lineno)
                    elif self.section:
                        pass
                    elif parts:
                        parts.append(piece)
                    elif piece and not piece.isspace():
                        parts.append(piece)
                        self.pending_line = lineno
            elif self.section or not code:
                continue  # inside DWARF bytes, or an empty line
            elif parts:
                parts.append(code)
            elif not code.isspace():
                parts.append(code)
                self.pending_line = lineno
            if parts:
                self.end_of_line(lineno)
        self.finish()

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

    def quick_line(self, found: re.Match[str], line: int) -> bool:
        """A plain `.loc` or a plain instruction line, as QUICK_LINE matched it, when no
        statement is pending; False (nothing done) for an instruction outside any function."""
        file_id, src_line, column, negated, guard, mnemonic, operands = found.groups()
        if mnemonic is None:
            self.plain_loc((int(file_id), int(src_line), int(column) if column else 0), line)
            return True
        func = self.func
        if func is None:
            return False
        self.expect_section = False
        func.instructions.append(quick_record(line, negated, guard, mnemonic, operands))
        func.locs.append(self.loc)
        return True

    def plain_loc(self, key: LocKey, line: int) -> None:
        self.expect_section = False
        self.file_refs.setdefault(key[0], line)
        self.locs.append(self.chains.add_plain(key))
        self.loc = len(self.locs) - 1

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
        self.func.instructions.append((line, *instruction_fields(stmt)))
        self.func.locs.append(self.loc)

    def directive(self, stmt: str, line: int) -> None:
        head, *tail = stmt.split(None, 1)
        rest = tail[0] if tail else ""
        if head == ".loc":
            key, function, call_site = loc_fields(rest)
            for file_id in (key[0], call_site[0] if call_site else key[0]):
                self.file_refs.setdefault(file_id, line)
            self.locs.append(self.chains.add(key, function, call_site))
            self.loc = len(self.locs) - 1
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
        self.loc, self.chains = 0, InlineChains(self.inlined)

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
        # Each .loc's source as a 1-tuple, to end an instruction's record with.
        sources = [(s,) for s in source_locs(self.locs, self.files)]
        funcs = tuple(self.build(f, sources) for f in self.functions)
        assert self.version is not None and self.target is not None  # finish() checked
        return PtxModule(
            self.version,
            self.target,
            self.address_size or 32,  # the PTX default when .address_size is absent
            MappingProxyType(dict(self.files)),
            funcs,
        )

    def build(self, f: _Func, sources: list[tuple[SourceLoc | None]]) -> PtxFunction:
        # Record + (source,) per instruction, all in C: a Python loop over 10^5 instructions
        # costs several times more.
        records = map(add, f.instructions, map(sources.__getitem__, f.locs))
        ins = tuple(map(_new_tuple, repeat(PtxInstruction), records))
        d = f.directives
        return PtxFunction(
            name=f.name,
            is_entry=f.is_entry,
            start_line=f.start_line,
            end_line=f.end_line,
            params=f.params,
            instructions=ins,
            labels=MappingProxyType(f.labels),
            registers=tuple(f.registers),
            maxntid=d.get(".maxntid") or None,
            reqntid=d.get(".reqntid") or None,
            minnctapersm=(d.get(".minnctapersm") or (None,))[0],
            maxnreg=(d.get(".maxnreg") or (None,))[0],
            pragmas=tuple(sorted(self.module_pragmas) + f.pragmas),
        )


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
