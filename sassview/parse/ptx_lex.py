"""Helpers of the PTX parser: lines into statement pieces, statements into their fields, and
`.loc` directives into inline chains.

Kept apart from `ptx.py` so the parser reads as a state machine over statements. The lines
that make up nearly all of a file are found by one regex split over the whole text
(`RECORD`), and the fields of a run of them are checked in bulk (`plain_name`,
`plain_operands`, `odd_instructions`, `own_statement`) against what the general path would
read; the other line helpers use plain `str` methods and walk characters only for lines
holding a string literal or a block comment. The regexes here are anchored, and where they
backtrack they give up at the first character that cannot fit, so a file is read in linear
time. The statement readers are pure: they raise `LexError` with a message, and the parser
adds the line and turns it into a `ParseError`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from itertools import compress, count, repeat
from operator import itemgetter, not_

from sassview.ir import PtxRegisterDecl, SourceLoc
from sassview.memo import Memo
from sassview.parse.file_names import c_unescape

# The three characters that end or open a PTX statement outside a string literal.
_PIECES = re.compile(r"([;{}])")
_IDENT = re.compile(r"[A-Za-z_$%][A-Za-z0-9_$]*")
HEADER = re.compile(r"\s*(?:\.(?:visible|extern|weak|common)\s+)*\.(entry|func)(?![\w$])")

# (file id, line, column) of a `.loc` and of its `inlined_at` call site, if any.
LocKey = tuple[int, int, int]
# A `.loc` with its call sites, before `.file` names its files: (file id, line, column, the
# call site's chain, frames in the chain, function_name label or None outside inlined code).
Chain = tuple[int, int, int, "Chain | None", int, "str | None"]
# Inline chains keep at most this many frames. Recursive templates inline legitimately deep
# (Unroll<150> gives 151 frames); past the cap the frames just outside the innermost one are
# dropped, keeping the innermost and the outermost (the kernel's own line), so == and str()
# on SourceLoc, which recurse, stay far from Python's recursion limit.
MAX_INLINE_DEPTH = 256
# What an instruction statement holds: opcode, modifiers, operands, guard, guard negated.
InsFields = tuple[str, tuple[str, ...], tuple[str, ...], "str | None", bool]
# The same after its line: the first six fields of a PtxInstruction, built in one tuple.
InsRecord = tuple[int, str, tuple[str, ...], tuple[str, ...], "str | None", bool]


class LexError(ValueError):
    """A statement that cannot be read; the parser adds where it was."""


def strip_comments(line: str, in_block: bool) -> tuple[str, bool]:
    """The code of one line without `//` and `/* */` comments, and whether a block comment is
    still open at its end. String literals are kept whole, so a `//` inside `.file "..."` stays.
    """
    if not in_block:
        if "/" not in line:
            return line, False
        if '"' not in line and "/*" not in line:
            return line[: line.find("//")] if "//" in line else line, False
    out: list[str] = []
    i, n = 0, len(line)
    slash = quote = -1  # next `/` and `"` at or after i, found again only once passed
    while i < n:
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
            out.append(" ")  # a block comment separates tokens, as in C
            continue
        if slash < i:
            slash = line.find("/", i)
            slash = n if slash < 0 else slash
        if quote < i:
            quote = line.find('"', i)
            quote = n if quote < 0 else quote
        if quote < slash:
            close = string_end(line, quote)
            out.append(line[i:close])
            i = close
        elif slash < n:
            out.append(line[i:slash])
            nxt = line[slash + 1 : slash + 2]
            if nxt == "/":
                return "".join(out), False
            if nxt == "*":
                i, in_block = slash + 2, True
            else:  # a lone slash is not PTX, but is not ours to reject here
                out.append("/")
                i = slash + 1
        else:
            out.append(line[i:])
            break
    return "".join(out), in_block


def string_end(text: str, start: int) -> int:
    """Index just past the string literal opening at `start` (or the end of an unclosed one)."""
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        else:
            i += 1
    return n


def pieces(code: str) -> list[str]:
    """Split code at `;`, `{` and `}` (kept as their own items), ignoring those inside strings."""
    if '"' not in code:
        return _PIECES.split(code)
    out: list[str] = []
    start = i = 0
    n = len(code)
    while i < n:
        c = code[i]
        if c == '"':
            i = string_end(code, i)
            continue
        if c in ";{}":
            out.append(code[start:i])
            out.append(c)
            start = i + 1
        i += 1
    out.append(code[start:])
    return out


def split_label(stmt: str) -> tuple[str | None, str]:
    """`$L__BB0_2: ret` -> ("$L__BB0_2", "ret"); a statement with no leading label is returned
    whole. `shared::cta` is not a label: a label's colon is single and follows an identifier.
    """
    colon = stmt.find(":")
    if colon <= 0 or stmt[colon + 1 : colon + 2] == ":":
        return None, stmt
    name = stmt[:colon].rstrip()
    if not _IDENT.fullmatch(name):
        return None, stmt
    return name, stmt[colon + 1 :].strip()


def split_top(text: str) -> list[str]:
    """Split at commas outside `{}`, `[]` and `()`; each part stripped, empty parts dropped.

    `{%f1, %f2}, [%rd1+16]` is two operands; `call (r), f, (a, b)` keeps `(a, b)` whole.
    Cut at every comma first, then glue back the pieces of a bracket that spans commas: most
    operands hold no bracket, so this stays in `str` methods.
    """
    out: list[str] = []
    held: list[str] = []
    depth = 0
    for chunk in text.split(","):
        if held:
            held.append(chunk)
            depth += _balance(chunk)
            if depth <= 0:
                out.append(",".join(held).strip())
                held = []
        elif ("{" in chunk or "[" in chunk or "(" in chunk) and (opened := _balance(chunk)) > 0:
            held, depth = [chunk], opened
        else:
            out.append(chunk.strip())
    if held:
        out.append(",".join(held).strip())
    return [p for p in out if p] if "" in out else out


def _balance(chunk: str) -> int:
    """Brackets a chunk opens minus those it closes."""
    opened = chunk.count("{") + chunk.count("[") + chunk.count("(")
    return opened - chunk.count("}") - chunk.count("]") - chunk.count(")")


def strings(text: str) -> list[str]:
    """The contents of every string literal in `text`, with `\\"` and `\\\\` unescaped."""
    out: list[str] = []
    i = text.find('"')
    while i >= 0:
        end = string_end(text, i)
        closed = end - 1 > i and text[end - 1] == '"'
        body = text[i + 1 : end - 1] if closed else text[i + 1 :]
        if "\\" in body:
            body = re.sub(r"\\(.)", r"\1", body)
        out.append(body)
        i = text.find('"', end)
    return out


def matching_paren(text: str, open_at: int) -> int:
    """Index of the `)` closing the `(` at `open_at`, or -1 when it never closes."""
    depth = 0
    for i in range(open_at, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def number(text: str) -> int:
    """A decimal count or index; anything else (signs, `1_0`, 5000 digits) is a LexError."""
    text = text.strip()
    if not (text.isdigit() and text.isascii() and len(text) <= 20):
        raise LexError(f"expected a number, found {text[:40]!r}")
    return int(text)


def file_directive(rest: str) -> tuple[int, str]:
    """What follows `.file`: `1 "/a/b.cu"` or LLVM's `1 "/a/b.cu", 1700000000, 1234` (time
    stamp and size) -> (1, "/a/b.cu").
    """
    index, *tail = rest.split(None, 1) or [""]
    path = tail[0] if tail else ""
    if path.startswith('"'):  # a C string literal, bytes above 0x7f as octal escapes
        end = string_end(path, 0)
        name = c_unescape(path[1 : end - 1 if end > 1 and path[end - 1] == '"' else end])
    else:
        name = path.split(",", 1)[0].strip()
    if not name:
        raise LexError(".file without a path")
    return number(index), name


def function_header(stmt: str) -> tuple[str, bool, tuple[str, ...], dict[str, tuple[int, ...]]]:
    """`.visible .func (.param .b32 r) f(.param .b32 a) .maxntid 128, 1, 1` ->
    ("f", False, ("a",), {".maxntid": (128, 1, 1)}): name, is_entry, parameter names and the
    performance directives between the parameters and the body.
    """
    match = HEADER.match(stmt)
    if match is None:
        raise LexError("not a function header")
    rest = stmt[match.end() :].lstrip()
    if match.group(1) == "func" and rest.startswith("("):
        close = matching_paren(rest, 0)
        if close < 0:
            raise LexError("return parameters never close")
        rest = rest[close + 1 :].lstrip()
    name = _IDENT.match(rest)
    if name is None:
        raise LexError("function header without a name")
    rest = rest[name.end() :].lstrip()
    params: list[str] = []
    if rest.startswith("("):
        close = matching_paren(rest, 0)
        if close < 0:
            raise LexError(f"parameters of {name.group()} never close")
        # `.param .u64 .ptr .global .align 1 k_param_0`, `.param .align 8 .b8 k_param_1[8]`
        params = [p.split()[-1].split("[", 1)[0] for p in split_top(rest[1:close])]
        rest = rest[close + 1 :]
    return name.group(), match.group(1) == "entry", tuple(params), _directives(rest)


def _directives(tail: str) -> dict[str, tuple[int, ...]]:
    """`.maxntid 128, 1, 1 .minnctapersm 4 .explicitcluster` -> {directive: its numbers}."""
    found: dict[str, tuple[int, ...]] = {}
    name = ""
    for token in tail.replace(",", " ").split():
        if token[0] == ".":
            name = token
            found[name] = ()
        elif not name:
            raise LexError(f"unexpected {token[:40]!r} after the parameters")
        else:
            found[name] += (number(token),)
    return found


def register_decls(rest: str) -> list[PtxRegisterDecl]:
    """`.f32 %f<12>` / `.v4 .b32 a, b` (what follows `.reg`) -> declarations; `%f<12>` is 12."""
    tokens = rest.split()
    kind, i = "", 0
    while i < len(tokens) and tokens[i][0] == ".":
        if tokens[i] == ".align":
            i += 1  # and its number
        else:
            kind += tokens[i]
        i += 1
    if not kind or i >= len(tokens):
        raise LexError(f"malformed .reg {rest[:40]!r}")
    out = []
    for name in split_top(" ".join(tokens[i:])):
        count = 1
        if name.endswith(">") and "<" in name:
            name, _, n = name[:-1].partition("<")
            count = number(n)
        out.append(PtxRegisterDecl(kind, name.strip(), count))
    return out


def loc_fields(rest: str) -> tuple[LocKey, str | None, LocKey | None]:
    """What follows `.loc`: `1 16 3` or `1 16 3, function_name $L__info_string0, inlined_at 1
    22 5` -> ((1, 16, 3), "$L__info_string0", (1, 22, 5)).
    """
    head, *extras = rest.split(",")
    function = call_site = None
    for extra in extras:
        extra = extra.strip()
        if extra.startswith("inlined_at"):
            call_site = _loc_key(extra[10:].replace("=", " "))
        elif extra.startswith("function_name"):  # `$L__info_string0`, `$L__info_string0+12`
            function = "".join(extra.split()[1:]).lstrip("=") or None
    return _loc_key(head), function, call_site


def loc_numbers(text: str) -> list[int]:
    """The numbers in `text`, a run of ASCII digits between blanks (the numbers of .loc lines
    RECORD took), as int() reads each.

    A JSON array of them is read in C in about half the time; JSON takes a number of digits
    without a leading zero as int() reads it, and fails on anything else (two blanks, a tab,
    a leading zero), which int() then reads."""
    if len(text) > 1000:  # else json's own cost is more than it saves
        try:
            numbers: list[int] = json.loads("[" + text.replace(" ", ",") + "]")
        except ValueError:
            pass
        else:
            return numbers
    return list(map(int, text.split()))


# What `loc_fields` reads: key, function_name, key of the call site.
LocFields = tuple[LocKey, "str | None", "LocKey | None"]


def read_locs(texts: list[str]) -> tuple[list[LocFields], int | None]:
    """`loc_fields` of each text up to the first it cannot read, and the index of that one
    (None when it reads them all)."""
    found: list[LocFields] = []
    for text in texts:
        try:
            found.append(loc_fields(text))
        except LexError:
            return found, len(found)
    return found, None


def _loc_key(text: str) -> LocKey:
    parts = text.split()
    if len(parts) not in (2, 3):
        raise LexError(f"malformed .loc {text.strip()[:40]!r}, expected FILE LINE COLUMN")
    return number(parts[0]), number(parts[1]), number(parts[2]) if len(parts) == 3 else 0


def instruction_fields(stmt: str) -> InsFields:
    """`@!%p1 ld.global.nc.v2.f32 {%f1, %f2}, [%rd5+8]` -> ("ld", ("global", "nc", "v2",
    "f32"), ("{%f1, %f2}", "[%rd5+8]"), "%p1", True). `shared::cta` stays one modifier.
    """
    guarded = _guard(stmt)
    if guarded is None:
        raise LexError(f"a guard without an instruction: {stmt[:60]!r}")
    guard, negated, stmt = guarded
    parts = stmt.split(None, 1)
    mnemonic, rest = parts[0], parts[1] if len(parts) > 1 else ""
    if "{" in mnemonic or "[" in mnemonic or "(" in mnemonic:  # ld.v2.f32{...: no space
        cut = min(i for i in (mnemonic.find(c) for c in "{[(") if i >= 0)
        mnemonic, rest = mnemonic[:cut], mnemonic[cut:] + " " + rest
    split = _mnemonic(mnemonic)
    if split is None:
        raise LexError(f"not a PTX instruction: {stmt[:60]!r}")
    operands = split_top(rest) if rest else []
    if "\n" in rest:  # call.uni (retval0),\n f,\n (\n param0\n ) -> "(param0)"
        joined = (" ".join(op.split()) for op in operands)
        operands = [op.replace("( ", "(").replace(" )", ")") for op in joined]
    return split[0], split[1], tuple(operands), guard, negated


# The lines that make up nearly all of a PTX file, found by one regex split over the whole
# text (`_Parser.run`): a `.loc FILE LINE COLUMN[, function_name ..., inlined_at ...]`
# (group 1: what follows `.loc`), a one-line instruction with operands
# `[@[!]%p] op.mods a, b, [c+8];` (2: the guard and the mnemonic, 3: the operands), a lone
# label `$L__BB0_2:` (4) and a blank line, any of them maybe followed by a `//` comment. A
# record starts with the newline before its line: a literal first character lets sre skip
# to the candidates at memchr speed. Every part is exact, or given up at the first character
# that cannot fit, so the split stays linear.
#
# sre pays per group and per construct more than per character: the guard and the mnemonic
# are one group, `(?:X|)` stands for `(?:X)?` (a branch costs less than a repeat), and the
# mnemonic and the operands are taken loosely, as runs of any character. So the bulk cut of
# a run's instructions is checked first, over the whole run at once (`plain_name`,
# `plain_operands`); an instruction it would cut otherwise than the general path (a vector,
# odd spacing) has the fields `instruction_fields` reads off its line, and a line that is
# more than its one statement (`own_statement`) goes the general way. Whitespace is a space
# or a tab: the general path also takes "\r" and the rest of str.isspace().
RECORD = re.compile(
    r"\n[ \t]*(?:(?:"
    r'\.loc[ \t]+([0-9]{1,20}[ \t]+[0-9]{1,20}[ \t]+[0-9]{1,20}(?:,[^\n;{}"/]*|))'
    r"|((?:@[^ \t\n]+[ \t]+|)[A-Za-z_][^ \t\n]*)[ \t]+([^ \t\n,](?:[^\n]*[^ \t\n,]|));"
    r"|([A-Za-z_$%][A-Za-z0-9_$]*):"
    r")[ \t\r]*|)(?://[^\n]*|)(?![^\n])"
)
# re.split gives the text before each record and then its four groups.
RECORD_STRIDE = RECORD.groups + 1

# Characters that make the general path read a guard or a mnemonic otherwise: it cuts a
# mnemonic at `{[(`, `;{}"/` send the whole line another way, and a colon may make a label.
_NOT_IN_GUARD = re.compile(r'[;{}"/:]')
_NOT_IN_MNEMONIC = re.compile(r'[{}\[(;"/]')
_BRACES = re.compile("[{}]")
# Operands that are plain for certain, one text: pieces between ", " without whitespace,
# commas or `;{}()"/:`, a bracket only around a part of a piece. Used where `plain_operands`
# fails for a run, to find the instructions it failed on.
_ATOM = r'[^\s,;{}()\[\]"/:]'
_PIECE = rf"(?:{_ATOM}+|\[{_ATOM}*\]{_ATOM}*)(?:\[{_ATOM}*\]{_ATOM}*)*"
_PLAIN_OPERANDS = re.compile(f"{_PIECE}(?:, {_PIECE})*")
# The characters that make operands odd on their own, looked for first (`odd_instructions`).
_ODD_CHARACTERS = '{}()";/:'
# ASCII bytes the operand check keeps: brackets, the separators of operands and of pieces,
# and what the general path reads otherwise: other brackets, strings, statements, comments,
# labels and whitespace (str.isspace() in ASCII).
_ASCII_SPACE = "".join(c for c in map(chr, range(128)) if c.isspace())
_OPERAND_KEEP = frozenset(f'[]\n,;{{}}()"/:{_ASCII_SPACE}'.encode())
_OPERAND_DROP = bytes(b for b in range(128) if b not in _OPERAND_KEEP)


@dataclass
class Names:
    """What `plain_name` reads off each guard and mnemonic (RECORD's group 2) seen so far,
    as dicts that the bulk reading maps over: a file has a few dozen of them."""

    opcodes: dict[str, str] = field(default_factory=dict)
    modifiers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    guards: dict[str, str | None] = field(default_factory=dict)
    negated: dict[str, bool] = field(default_factory=dict)
    guarded: set[str] = field(default_factory=set)  # those with a guard
    odd: set[str] = field(default_factory=set)  # those `plain_name` does not take

    def learn(self, names: set[str]) -> None:
        """Read the names not seen before."""
        for name in names.difference(self.opcodes, self.odd):
            fields = plain_name(name)
            if fields is None:
                self.odd.add(name)
                continue
            opcode, modifiers, guard, negated = fields
            self.opcodes[name], self.modifiers[name] = opcode, modifiers
            self.guards[name], self.negated[name] = guard, negated
            if guard is not None:
                self.guarded.add(name)


def plain_name(name: str) -> tuple[str, tuple[str, ...], str | None, bool] | None:
    """Opcode, modifiers, guard and negation of a guard and mnemonic RECORD took, as
    `instruction_fields` reads them,
    or None when it would read them otherwise or not at all: an empty guard, a character in
    `_NOT_IN_GUARD` or `_NOT_IN_MNEMONIC`, a colon not first of `::` (a label), whitespace
    RECORD does not take for it, or an opcode that is not a name."""
    words = name.split()
    guard, negated, mnemonic = None, False, words[-1]
    if name[0] == "@":
        guard = words[0][1:]
        if guard[:1] == "!":
            guard, negated = guard[1:], True
        if len(words) != 2 or not guard or _NOT_IN_GUARD.search(guard):
            return None
    elif words != [name]:
        return None
    colon = mnemonic.find(":")
    split = _mnemonic(mnemonic)
    if (
        split is None
        or _NOT_IN_MNEMONIC.search(mnemonic)
        or (colon >= 0 and mnemonic[colon + 1 : colon + 2] != ":")
    ):
        return None
    return split[0], split[1], guard, negated


def odd_instructions(names: list[str], operands: list[str], odd_names: set[str]) -> list[int]:
    """Where the instructions of a run are that the bulk cut does not read: a name in
    `odd_names`, or operands `plain_operands` does not take. Those with a character of
    `_ODD_CHARACTERS` (vectors, calls: the usual ones) are found by a test per character, in
    C loops; the rest, if some of them fail `plain_operands`, one text at a time."""
    text = "\n".join(operands)
    masks = [map(str.__contains__, operands, repeat(c)) for c in _ODD_CHARACTERS if c in text]
    if not odd_names.isdisjoint(names):
        masks.append(map(odd_names.__contains__, names))
    odd = list(map(any, zip(*masks, strict=True))) if masks else [False] * len(operands)
    kept = list(compress(count(), map(not_, odd)))
    rest = list(map(operands.__getitem__, kept))
    if not plain_operands(rest):
        for i in compress(kept, map(not_, map(_PLAIN_OPERANDS.fullmatch, rest))):
            odd[i] = True
    return list(compress(count(), odd))


def own_statement(text: str) -> bool:
    """Whether the general path reads the line of an instruction record, `text` being its
    guard, mnemonic and operands, as that one statement and nothing else: no string,
    comment or other statement in it, no colon that may make a label, and no `}` that
    would close a scope. Then it reads `instruction_fields` of the line."""
    if ";" in text or '"' in text or "/" in text:
        return False
    colon = text.find(":")
    if colon >= 0 and text[colon + 1 : colon + 2] != ":":
        return False
    depth = 0
    for brace in _BRACES.findall(text) if "}" in text else ():
        depth += 1 if brace == "{" else -1
        if depth < 0:
            return False
    return True


def plain_operands(operands: list[str]) -> bool:
    """Whether the general path reads each operand text RECORD took as its pieces between
    ", ": each piece not empty, without whitespace, commas or `;{}()"/:`, and any `[` closed
    by a `]` in the same piece before another bracket (then `split_top` cuts nowhere else).

    Checked over the whole run at once, the operands one per line: counts say that every
    comma is one of ", ", and a bytes.translate keeping only what the rules look at leaves
    nothing but line breaks once each ", " and then each `[]` pair goes.
    """
    text = "\n".join(operands)
    # RECORD takes no operands that start with a comma or end with a comma or a blank, so a
    # piece can be empty only between two ", ".
    if not text.isascii() or ", , " in text or text.count(",") != text.count(", "):
        return False
    left = text.encode().translate(None, _OPERAND_DROP)
    left = left.replace(b", ", b"\n").replace(b"[]", b"")
    return left.count(b"\n") == len(left)


def _guard(stmt: str) -> tuple[str | None, bool, str] | None:
    """`@!%p1 rest` -> ("%p1", True, "rest"); no guard -> (None, False, stmt); None for a guard
    without an instruction."""
    if stmt[0] != "@":
        return None, False, stmt
    parts = stmt.split(None, 1)
    guard, negated = parts[0][1:], False
    if guard[:1] == "!":
        guard, negated = guard[1:], True
    if not guard or len(parts) < 2:
        return None
    return guard, negated, parts[1]


# Mnemonic -> (opcode, modifiers): a file of 10^5 instructions has a few dozen mnemonics.
_mnemonics: Memo[str, tuple[str, tuple[str, ...]]] = Memo(f"{__name__}._mnemonics", 10_000)


def _mnemonic(mnemonic: str) -> tuple[str, tuple[str, ...]] | None:
    """`ld.global.f32` -> ("ld", ("global", "f32")); None when the opcode is not a name."""
    split = _mnemonics.get(mnemonic)
    if split is None:
        opcode, _, mods = mnemonic.partition(".")
        if not (opcode.isidentifier() and opcode.isascii()):
            return None
        split = (opcode, tuple(mods.split(".")) if mods else ())
        _mnemonics[mnemonic] = split
    return split


_new_tuple = tuple.__new__


class InlineChains:
    """Links each `.loc` of one function to the `.loc` of its call site.

    `inlined_at FILE LINE COL` names the call site by coordinates only. NVVM and LLVM emit the
    call site's `.loc` (outermost first) just before the first `.loc` inlined there, and not
    again for later ones. So: a call site equal to the previous `.loc` is that `.loc`; for a
    later reference, the caller learned then for (function_name, call site) picks the latest
    `.loc` at those coordinates in that caller, which tells apart the frames of recursive
    templates (every level at `3 9` while the recursion unwinds); otherwise the latest `.loc`
    at those coordinates. It can still be wrong when one function is inlined at coinciding
    coordinates in several places and referred to after the fact; a call site never located
    becomes a frame without a caller.
    """

    def __init__(self, remember: bool = True) -> None:
        # False when no .loc of the text has `inlined_at`: then nothing ever reads back what
        # add() records, and add_plains() skips it.
        self.remember = remember
        self.previous: Chain | None = None
        self.latest: dict[LocKey, Chain] = {}
        self.latest_in: dict[tuple[LocKey, str | None], Chain] = {}
        self.callers: dict[tuple[str | None, LocKey], str | None] = {}

    def add(self, key: LocKey, function: str | None, call_site: LocKey | None) -> Chain:
        parent: Chain | None = None
        if call_site is not None:
            if self.previous is not None and self.previous[:3] == call_site:
                parent = self.previous
            elif (function, call_site) in self.callers:
                parent = self.latest_in.get((call_site, self.callers[function, call_site]))
            parent = parent or self.latest.get(call_site)
            if parent is None:
                parent = (*call_site, None, 1, None)
            else:
                self.callers[function, call_site] = parent[5]
            if parent[4] >= MAX_INLINE_DEPTH:
                parent = parent[3]  # drop the immediate call site; see MAX_INLINE_DEPTH
        chain: Chain = (*key, parent, parent[4] + 1 if parent else 1, function)
        self.previous = self.latest[key] = self.latest_in[key, function] = chain
        return chain

    def add_plains(self, numbers: list[int]) -> list[Chain]:
        """`add(key, None, None)` of each key in turn, .loc lines outside inlined code, in C
        loops: `numbers` holds the keys' fields in a row."""
        read = iter(numbers)
        # strict=False: repeat() never ends, and `read` ends when the keys do.
        none, one = repeat(None), repeat(1)
        chains: list[Chain] = list(zip(read, read, read, none, one, none, strict=False))
        if self.remember and chains:
            keys = list(map(_key, chains))
            self.previous = chains[-1]
            self.latest.update(zip(keys, chains, strict=True))
            self.latest_in.update(zip(zip(keys, none, strict=False), chains, strict=True))
        return chains


_key = itemgetter(0, 1, 2)  # a chain's key


def source_locs(chains: list[Chain | None], files: dict[int, str]) -> list[SourceLoc | None]:
    """The SourceLoc of each chain, once `.file` has named every file id they use; frames
    shared between chains become shared objects.
    """
    if not any(map(_parent, filter(None, chains))):
        return _plain_source_locs(chains, files)
    memo: dict[int, SourceLoc] = {}
    out: list[SourceLoc | None] = []
    for chain in chains:
        if chain is not None and chain[3] is None and id(chain) not in memo:
            # A .loc outside inlined code, nearly every one: its only frame.
            only = _new_tuple(SourceLoc, (files[chain[0]], chain[1], chain[2], None))
            memo[id(chain)] = only
            out.append(only)
            continue
        frames: list[Chain] = []
        link = chain
        while link is not None and id(link) not in memo:
            frames.append(link)
            link = link[3]
        outer = memo[id(link)] if link is not None else None
        for frame in reversed(frames):  # SourceLoc(...) without its Python __new__
            outer = _new_tuple(SourceLoc, (files[frame[0]], frame[1], frame[2], outer))
            memo[id(frame)] = outer
        out.append(outer)
    return out


_parent = itemgetter(3)  # a chain's call site
_file, _line, _column = itemgetter(0), itemgetter(1), itemgetter(2)


def _plain_source_locs(chains: list[Chain | None], files: dict[int, str]) -> list[SourceLoc | None]:
    """`source_locs` when no chain has a call site (no `inlined_at` in the text), in C loops:
    each chain between the Nones that start functions is its only frame."""
    out: list[SourceLoc | None] = []
    start = 0
    while True:
        try:
            stop = chains.index(None, start)
        except ValueError:
            stop = len(chains)
        run: list[Chain] = chains[start:stop]  # type: ignore[assignment]
        frames = zip(
            map(files.__getitem__, map(_file, run)),
            map(_line, run),
            map(_column, run),
            repeat(None),
            strict=False,  # repeat() never ends
        )
        out.extend(map(_new_tuple, repeat(SourceLoc), frames))
        if stop == len(chains):
            return out
        out.append(None)
        start = stop + 1
