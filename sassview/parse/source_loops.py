"""Find the loops of C++ source text, and the `#pragma unroll` each one asks for.

A line-based scan, not a parser: comments, strings and preprocessor lines are blanked, then
`for`, `while` and `do` are matched with their bracketed headers and bodies (braces matched, or
the single statement). Lines are numbered as the compiler numbers them, by newlines.

How it can be wrong: macros that expand to loops, and lambdas or loops written across unusual
line breaks, confuse the line-based spans; a pragma whose value is an expression (a template
parameter) is reported as unknown (None).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sassview.memo import memoized
from sassview.parse.cxx_sizes import SIZES

Request = int | str | None  # N, "full", or nothing asked

# The patterns scanned over a whole source begin with their literal words, not with \b or ^\s*:
# the regex engine then jumps between candidate first characters instead of trying every
# position (5-10x faster on a 1.4 MB generated source); `_word_starts` checks the boundary.
_KEYWORD = re.compile(r"(for|while|do)\b")
_STATEMENT = re.compile(r"(for|while|if|switch|do)\b")
_SPACE = re.compile(r"\s*")
_PRAGMA = re.compile(
    r"^\s*#\s*pragma\s+(unroll|nounroll)\b\s*\(?\s*([^)\s]*)"
    r"|_Pragma\(\"unroll\s*(\d*)\"\)"
)
# Comments, strings, character literals and preprocessor lines (a `#` first on its line).
_BLANKS = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|#[^\n]*(?:\\\n[^\n]*)*",
    re.S,
)
_WORD_CHAR = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class SourceLoop:
    line: int  # of the keyword
    statement: frozenset[int]  # its header lines (and the `} while (...);` of a do-loop)
    span: tuple[int, int]  # first and last line of the whole statement
    own: frozenset[int]  # body lines outside nested loops and outside the statement lines
    parent: int | None  # index of the enclosing source loop
    depth: int  # 1 = outermost
    requested: Request
    trip_count: int | None = None  # iterations, when the header is constant (for i = 0; i < 8; ++i)
    requested_by: str = "pragma"  # how `requested` is written: see loops/entry.py `asked`
    # Unrolled before any compiler sees a loop (Triton's `tl.static_range`, the CuTe DSL's
    # `range_constexpr`, `unroll_full=True` over constant bounds): never a SASS loop's statement
    static: bool = False
    step: int | None = None  # Python: the induction's step, when written as a number
    # C++: the `for` header and a pragma's named value as written, to read them again with
    # the constants that hold at this loop (`bound`: a template's arguments, a block's locals)
    header: str = field(default="", compare=False)
    request_name: str = field(default="", compare=False)


def _close(t: str, pos: int) -> int:
    """Index of the bracket matching the one at pos (or the last index)."""
    opening, closing, depth = t[pos], {"(": ")", "{": "}"}[t[pos]], 0
    for i in range(pos, len(t)):
        depth += (t[i] == opening) - (t[i] == closing)
        if not depth:
            return i
    return len(t) - 1


def _skip(t: str, pos: int) -> int:
    return _SPACE.match(t, pos).end()  # type: ignore[union-attr]  # \s* always matches


def _statement_end(t: str, pos: int) -> int:
    """Index of the last character of the statement starting at pos (its `}` or `;`)."""
    pos = _skip(t, pos)
    if pos >= len(t):
        return len(t) - 1
    if t[pos] == "{":
        return _close(t, pos)
    m = _STATEMENT.match(t, pos)
    if m and m.group(1) == "do":
        semicolon = t.find(";", _statement_end(t, m.end()) + 1)
        return semicolon if semicolon >= 0 else len(t) - 1
    if m:
        p = _skip(t, m.end())
        end = _statement_end(t, _close(t, p) + 1) if t[p : p + 1] == "(" else p
        q = _skip(t, end + 1)
        if m.group(1) == "if" and re.match(r"else\b", t[q : q + 5]):
            end = _statement_end(t, q + 4)
        return end
    depth = 0
    for i in range(pos, len(t)):
        depth += (t[i] in "({[") - (t[i] in ")}]")
        if t[i] == ";" and depth <= 0:
            return i
    return len(t) - 1


_CONSTEXPR = re.compile(
    r"(?:constexpr|const)\s+(?:unsigned\s+)?(?:int|long|short|size_t|unsigned)\s+([^;(){}]+);"
)  # `static` before it may be there or not: the match starts at the word that matters
_ASSIGN = re.compile(r"^\s*(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)[uUlL]*\s*$")


def _word_starts(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    r"""pattern.finditer(text) as if the pattern began with \b (its first character being a word
    character): a match inside a word is dropped and the search goes on one character later."""
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        start = m.start()
        if start and _WORD_CHAR.match(text, start - 1):
            pos = start + 1
            continue
        yield m
        pos = max(m.end(), start + 1)


def _code_before(text: str, pos: int) -> bool:
    """Whether anything but whitespace precedes `pos` on its line."""
    return bool(text[text.rfind("\n", 0, pos) + 1 : pos].strip())


@memoized(8)
def blanked(text: str) -> str:
    """The text with every comment, string, character literal and preprocessor line turned to
    spaces (newlines kept, so positions and line numbers stay). A `#` counts as a directive only
    first on its line; its indent is blanked too."""
    out: list[str] = []
    done = pos = 0
    while (m := _BLANKS.search(text, pos)) is not None:
        start, end = m.span()
        if text[start] == "#":
            if _code_before(text, start):
                pos = start + 1  # a `#` after code (token pasting, ...): not a directive
                continue
            start = max(text.rfind("\n", 0, start) + 1, done)  # the indent too
        out.append(text[done:start])
        out.append(_NOT_NEWLINE.sub(" ", text[start:end]))
        done = pos = end
    out.append(text[done:])
    return "".join(out)


_NOT_NEWLINE = re.compile(r"[^\n]")


def integer_macros(text: str, options: Sequence[str] = ()) -> dict[str, int]:
    """Named integer constants a pragma or a loop header may use: `constexpr int A = 64, B =
    16;` (file-wide: scopes are not tracked here, see `sassview.parse.cxx_constants`), then
    the `-DNAME=4` options and the file's `#define NAME 4` in definition order (a `#define`
    replaces a `-D` unless an `#ifndef` guards it: `sassview.parse.cxx_macros`)."""
    return dict(_integer_macros(text, tuple(options)))


@memoized(16)
def _integer_macros(text: str, options: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    from sassview.parse.cxx_macros import Macros

    macros: dict[str, int] = {}
    for m in _word_starts(_CONSTEXPR, text):
        for part in m.group(1).split(","):
            a = _ASSIGN.match(part)
            if a:
                macros[a.group(1)] = int(a.group(2), 0)
    walk = Macros(options)
    walk.walk("", text)
    defined = walk.integers()
    macros.update({n: v for n, v in defined.items() if not n.startswith("__")})
    return tuple(macros.items())


def _request(lines: list[str], line: int, macros: Mapping[str, int]) -> tuple[Request, str]:
    """`_requested`, and the name it was written with where not a number (`TILE`)."""
    m = _PRAGMA.search(lines[line - 1]) if "_Pragma" in lines[line - 1] else None
    k = line - 2
    while m is None and k >= 0 and (not lines[k].strip() or lines[k].strip().startswith("//")):
        k -= 1
    if m is None and k >= 0:
        m = _PRAGMA.search(lines[k])
    if m is None:
        return None, ""
    if m.group(1) == "nounroll":
        return 1, ""
    value = (m.group(2) if m.group(1) else m.group(3)).split("//")[0]
    if not value:
        return "full", ""
    try:
        return int(value, 0), ""
    except ValueError:
        # a name (a macro, a template parameter) or an expression: read with what holds
        return constant_expression(value, macros), value


_FOR_HEADER = re.compile(
    r"^\s*(?:(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|short|char|size_t|auto|"
    r"uint|index_t|int\d+_t|uint\d+_t)\s+|(?:const\s+)?(?:unsigned|signed)\s+)?"  # or `unsigned s`
    r"(\w+)\s*=\s*([^;]+);\s*(\w+)\s*(?:\+\s*([^;<>=!]+?)\s*)?(<=|<|>=|>|!=)\s*([^;]+);"
    r"\s*(.+?)\s*$",
    re.S,
)


_LITERAL_SUFFIX = re.compile(r"\b(\d+)[uUlL]+\b")  # 128u, 4096UL: the value is the digits


# Casts an integer bound is written with: `static_cast<int>(N)`, `(int)N`, `int(N)`
_CAST = re.compile(
    r"\bstatic_cast\s*<\s*[\w\s:]+>|\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?"
    r"(?:int|long|short|char|size_t|uint|unsigned|int\d+_t|uint\d+_t)\s*\)"
)


def constant_expression(expr: str, names: Mapping[str, int]) -> int | None:
    """An integer constant expression of C literals (any `u`/`l` suffix), `true`/`false` and
    the integer constants `names` (qualified ones too: `Cfg::BK`), with + - * / % << >>,
    unary minus, casts to integer types and `sizeof` of a built-in or vector type
    (`SIZES`); None for anything else (a variable, a call, a
    division by zero). Loop headers and launch configurations (`sassview.analyses.launches`)
    are read with it."""
    # Python's grammar reads C's integer arithmetic once casts, suffixes and `::` are gone.
    text = _CAST.sub("", _LITERAL_SUFFIX.sub(r"\1", expr.strip())).replace("::", ".")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    return _value(tree.body, names)


_BOOLEANS = {"true": 1, "false": 0}
# The binary operators a constant expression may use; None where C gives no constant (a
# division by zero, a shift by a negative amount or past 64 bits).
_BINARY: dict[type[ast.operator], Callable[[int, int], int | None]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a // b if b else None,
    ast.FloorDiv: lambda a, b: a // b if b else None,
    ast.Mod: lambda a, b: a % b if b else None,
    ast.LShift: lambda a, b: a << b if 0 <= b < 64 else None,
    ast.RShift: lambda a, b: a >> b if 0 <= b < 64 else None,
}


def _value(node: ast.AST, names: Mapping[str, int]) -> int | None:
    """The integer an expression's tree stands for, or None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, _BOOLEANS.get(node.id))
    if isinstance(node, ast.Attribute):
        name = _dotted(node)
        return names.get(name) if name else None
    if isinstance(node, ast.Call):
        return _sizeof(node, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _value(node.operand, names)
        return -v if v is not None else None
    if isinstance(node, ast.BinOp):
        # Both sides first and the operator after, so one frame a level (as deep as before).
        a, b = _value(node.left, names), _value(node.right, names)
        apply = _BINARY.get(type(node.op))
        return None if a is None or b is None or apply is None else apply(a, b)
    return None


def _sizeof(call: ast.Call, names: Mapping[str, int]) -> int | None:
    """`sizeof(T)` of a built-in type, or of a template's type parameter bound to one
    (cxx_constants binds it as the name `sizeof(T)`); None for any other call."""
    if _dotted(call.func) != "sizeof" or len(call.args) != 1:
        return None
    of = _dotted(call.args[0])
    return (SIZES.get(of) or names.get(f"sizeof({of})")) if of else None


def _dotted(node: ast.AST) -> str | None:
    """`Cfg.BK` (read from `Cfg::BK`) -> "Cfg::BK"; None for anything but names and dots."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        up = _dotted(node.value)
        return f"{up}::{node.attr}" if up else None
    return None


def trip_count(header: str, macros: Mapping[str, int]) -> int | None:
    """Iterations of `for (v = A; v < B; v += S)` when A, B and S are constants; the test
    may add a constant to the variable (`v + W <= B`, a tile loop that stops before a partial
    tile: the test `v <= B - W`)."""
    m = _FOR_HEADER.match(header)
    if not m or m.group(1) != m.group(3):
        return None
    var, init, op, bound, step = m.group(1), m.group(2), m.group(5), m.group(6), m.group(7)
    start, end = constant_expression(init, macros), constant_expression(bound, macros)
    if m.group(4) is not None and end is not None:
        added = constant_expression(m.group(4), macros)
        end = None if added is None else end - added
    step_text = step.replace(" ", "")
    if step_text in (f"++{var}", f"{var}++"):
        delta: int | None = 1
    elif step_text in (f"--{var}", f"{var}--"):
        delta = -1
    elif step_text.startswith(f"{var}+="):
        delta = constant_expression(step_text[len(var) + 2 :], macros)
    elif step_text.startswith(f"{var}-="):
        d = constant_expression(step_text[len(var) + 2 :], macros)
        delta = -d if d is not None else None
    else:
        return _geometric_trips(var, step_text, start, op, end, macros)
    if start is None or end is None or not delta:
        return None
    if op in ("<=", ">="):
        end += 1 if op == "<=" else -1
    span = end - start
    if (op in ("<", "<=", "!=") and delta < 0) or (op in (">", ">=") and delta > 0):
        return None
    if op == "!=" and span % delta:
        return None
    return max(0, -(-span // delta))  # ceil(span / delta); span and delta share a sign


_GEOMETRIC = ("<<=", ">>=", "*=", "/=")
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "!=": lambda a, b: a != b,
}


def _geometric_trips(
    var: str, step: str, start: int | None, op: str, end: int | None, macros: Mapping[str, int]
) -> int | None:
    """Iterations of a header stepping by a factor: `o >>= 1`, `s *= 2`, `o /= 2` (a warp
    butterfly's `for (int o = 16; o > 0; o >>= 1)`: 5), counted by running the header; None
    for a step that stalls (`i *= 2` from 0) or runs past 4096 iterations."""
    kind = next((k for k in _GEOMETRIC if step.startswith(var + k)), None)
    if kind is None or start is None or end is None:
        return None
    by = constant_expression(step[len(var) + len(kind) :], macros)
    if by is None or (kind in ("*=", "/=") and by < 2) or (kind in ("<<=", ">>=") and by < 1):
        return None
    value, trips, test = start, 0, _COMPARE[op]
    while test(value, end):
        if trips == 4096:
            return None
        nxt = (
            value << by
            if kind == "<<="
            else value >> by
            if kind == ">>="
            else value * by
            if kind == "*="
            else int(value / by)  # C's division truncates toward zero
        )
        if nxt == value:
            return None  # 0 * 2, -1 >> 1: it never ends
        value, trips = nxt, trips + 1
    return trips


def _scan_loop(
    t: str, m: re.Match[str], line: Callable[[int], int]
) -> tuple[int, frozenset[int], int, int, int] | None:
    """(start, statement lines, first and last body line, end) of the loop at a keyword."""
    if m.group(1) == "do":
        body = _skip(t, m.end())
        body_end = _statement_end(t, body)
        w = _skip(t, body_end + 1)
        end = t.find(";", w) if t.find(";", w) >= 0 else len(t) - 1
        statement = frozenset({line(m.start()), *range(line(w), line(end) + 1)})
    else:
        p = _skip(t, m.end())
        if t[p : p + 1] != "(":
            return None
        close = _close(t, p)
        body = _skip(t, close + 1)
        if m.group(1) == "while" and t[body : body + 1] == ";":
            return None  # the tail of a do-loop
        end = body_end = _statement_end(t, body)
        statement = frozenset(range(line(m.start()), line(close) + 1))
    return m.start(), statement, line(body), line(body_end), end


def _header(t: str, start: int) -> str:
    """The text between a `for`'s parentheses ("" for another loop)."""
    if not t.startswith("for", start):
        return ""
    p = _skip(t, start + 3)
    if t[p : p + 1] != "(":
        return ""
    return t[p + 1 : _close(t, p)]


def bound(loop: SourceLoop, names: Mapping[str, int]) -> SourceLoop:
    """The loop with its header and pragma read again with `names` (the constants that hold
    at its line: a template instantiation's arguments, a block's constexpr locals, a macro
    as it stands there)."""
    trips = trip_count(loop.header, names) if loop.header else loop.trip_count
    want = constant_expression(loop.request_name, names) if loop.request_name else loop.requested
    if trips == loop.trip_count and want == loop.requested:
        return loop
    return replace(loop, trip_count=trips, requested=want)


def loop_keywords(text: str) -> list[int]:
    """The offset of the keyword of every loop `source_loops` finds, in the same order: where
    the rolled variant (parse/rolled_source.py) puts its pragma."""
    t = blanked(text)
    out = []
    for m in _word_starts(_KEYWORD, t):
        try:
            if _scan_loop(t, m, _no_line) is not None:
                out.append(m.start())
        except RecursionError:  # as `source_loops` skips it
            continue
    return out


def _no_line(pos: int) -> int:
    return 0


def source_loops(text: str, macros: Mapping[str, int] | None = None) -> list[SourceLoop]:
    """Every for/while/do loop of C++ source text, in order, with nesting and requests.

    Memoised on (text, macros): every kernel of a program reads the same source, and a big
    generated source takes a noticeable time to scan."""
    return list(_source_loops(text, tuple(sorted((macros or {}).items()))))


@memoized(16)
def _source_loops(text: str, macro_items: tuple[tuple[str, int], ...]) -> tuple[SourceLoop, ...]:
    macros = dict(macro_items)
    t = blanked(text)
    newlines: list[int] = []  # where each line ends: found at the first loop (most have none)

    def line(pos: int) -> int:
        if not newlines:
            newlines.extend(m.start() for m in re.finditer("\n", t))
            newlines.append(len(t))
        return bisect_right(newlines, pos - 1) + 1

    raw = []  # (start, statement, first and last body line, end) per loop
    for m in _word_starts(_KEYWORD, t):
        try:
            found = _scan_loop(t, m, line)
        except RecursionError:  # thousands of `else if`s deep: not worth a loop entry
            continue
        if found is not None:
            raw.append(found)
    text_lines = text.split("\n")  # numbered as the compiler numbers them: by newlines
    loops: list[SourceLoop] = []
    stack: list[int] = []
    for i, (start, statement, first, last, end) in enumerate(raw):
        while stack and raw[stack[-1]][4] < start:
            stack.pop()
        parent = stack[-1] if stack else None
        nested: set[int] = set()
        j = i + 1
        while j < len(raw) and raw[j][0] <= end:  # the loops inside this one follow it
            nested.update(range(line(raw[j][0]), line(raw[j][4]) + 1))
            j += 1
        own = frozenset(set(range(first, last + 1)) - statement - nested)
        depth = loops[parent].depth + 1 if parent is not None else 1
        kw = line(start)
        header = _header(t, start)
        want, name = _request(text_lines, kw, macros)
        loops.append(
            SourceLoop(
                kw,
                statement,
                (kw, line(end)),
                own,
                parent,
                depth,
                want,
                trip_count(header, macros) if header else None,
                header=header,
                request_name=name,
            )
        )
        stack.append(i)
    return tuple(loops)
