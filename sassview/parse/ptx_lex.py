"""Helpers of the PTX parser: lines into statement pieces, statements into their fields, and
`.loc` directives into inline chains.

Kept apart from `ptx.py` so the parser reads as a state machine over statements. The two
common lines, a plain `.loc` and a one-line instruction, are recognised whole by one regex
(`QUICK_LINE`); the other line helpers use plain `str` methods and walk characters only for
lines holding a string literal or a block comment. The regexes here are anchored, and where
they backtrack they give up at the first character that cannot fit, so a file is read in
linear time. The statement readers are pure: they raise `LexError` with a
message, and the parser adds the line and turns it into a `ParseError`.
"""

from __future__ import annotations

import re

from sassview.ir import PtxRegisterDecl, SourceLoc

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
    found = strings(path)
    name = found[0] if found else path.split(",", 1)[0].strip()
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


# The two lines that make up nearly all of a PTX file, recognised by one regex so that each
# costs one C call instead of a dozen string methods: a plain `.loc FILE LINE [COLUMN]`
# (groups 1-3) and a whole one-line instruction `[@[!]%p] op.mods a, b, [c+8];` (groups 4-7:
# "!" or "", guard, mnemonic, operands), either maybe followed by a `//` comment. It accepts
# only lines the general reader reads the same way, and only shapes whose operands it would
# cut at ", " alone: no whitespace, comma or bracket inside an operand but for one whole
# `[address]`. `\s` is str.isspace(), as for strip() and split(). Anything else (labels,
# `shared::cta`, vectors, strings, odd spacing) does not match and is read the longer way.
_ATOM = r'[^\s,;{}()\[\]"/:]+'  # %r1, 0f3F800000, $L__BB0_2, -1
_ADDRESS = rf"\[{_ATOM}\]"
_OPERANDS = rf"{_ATOM}(?:, {_ATOM})*(?:, {_ADDRESS}(?:, {_ATOM})*)?|{_ADDRESS}(?:, {_ATOM})*"
_NUMBER = "([0-9]{1,20})"
QUICK_LINE = re.compile(
    rf"\s*(?:\.loc\s+{_NUMBER}\s+{_NUMBER}(?:\s+{_NUMBER})?"
    rf'|(?:@(!?)([^\s;{{}}"/:!]+)\s+)?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)'
    rf"(?:\s+({_OPERANDS}))?\s*;)\s*(?://.*)?"
)


def quick_record(
    line: int, negated: str, guard: str | None, mnemonic: str, operands: str | None
) -> InsRecord:
    """The record of an instruction line QUICK_LINE matched, from its groups 4-7."""
    split = _mnemonics.get(mnemonic) or _mnemonic(mnemonic)
    assert split is not None  # the regex let through only an identifier as the opcode
    return (
        line,
        split[0],
        split[1],
        tuple(operands.split(", ")) if operands else (),
        guard,
        negated == "!",
    )


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
_mnemonics: dict[str, tuple[str, tuple[str, ...]]] = {}


def _mnemonic(mnemonic: str) -> tuple[str, tuple[str, ...]] | None:
    """`ld.global.f32` -> ("ld", ("global", "f32")); None when the opcode is not a name."""
    split = _mnemonics.get(mnemonic)
    if split is None:
        opcode, _, mods = mnemonic.partition(".")
        if not (opcode.isidentifier() and opcode.isascii()):
            return None
        split = (opcode, tuple(mods.split(".")) if mods else ())
        if len(_mnemonics) < 10_000:
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
        # add() records, and add_plain() skips it (a third of a .loc line's cost).
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

    def add_plain(self, key: LocKey) -> Chain:
        """`add(key, None, None)`: a `.loc` outside inlined code, the common one."""
        chain: Chain = (*key, None, 1, None)
        if self.remember:
            self.previous = self.latest[key] = self.latest_in[key, None] = chain
        return chain


def source_locs(chains: list[Chain | None], files: dict[int, str]) -> list[SourceLoc | None]:
    """The SourceLoc of each chain, once `.file` has named every file id they use; frames
    shared between chains become shared objects.
    """
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
