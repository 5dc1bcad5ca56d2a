"""Integer macros as the preprocessor defines them: in definition order, the `-D` options first,
through `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` and `#undef`.

`-DTILE=16` on a file that `#define`s TILE 32 compiles with 32 from that line on (the compiler
warns: NVRTC's and nvcc's `warning #47-D: incompatible redefinition of macro "TILE"`); under
`#ifndef TILE` the `-D` wins. A loop header is read with the value in force at its line
(`Macros.at`), and each `-D` a file's `#define` replaces is an `Override` (with its line) for
the warning the census gives (`analyses/loops/files.py`).

A walk over the directives, not a preprocessor: an `#include` is followed only into the files
the caller has (`Includes`: those the line table names, found as the compiler finds them), each
walked once at its first `#include` in translation-unit order, so a header sees what its
includer defined ahead of the include (`#define WARPSIZE 32` before `#include
"block_reduce.cuh"`); a function-like macro is expanded only where a loop or a constant uses
one of a single expression (`expand_expression_macros`), and a condition is decided only from
integer literals, `defined(NAME)`, the names defined so far and `__CUDA_ARCH__`.

How it can be wrong: a condition it cannot decide (a name no file read here defines, a
compiler-predefined `__NAME`, a function-like macro) takes both branches: a macro either
branch defines is then unknown from there on (None: no trip count, never a guess). A header
no `#include` of the files walked reaches (through `<...>` from a directory not given, or a
computed name) is walked ahead of them, and sees their final values, not those at its
`#include`; a header included twice is walked at its first `#include` only (as `#pragma once`
or an include guard has it).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sassview.memo import memoized

# One logical directive: `#`, name, the rest (continuations joined by the caller)
_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\s*(.*)$", re.S)
_DEFINE_BODY = re.compile(r"(\w+)(\()?\s*(.*)$", re.S)
_COMMENT = re.compile(r"//.*$|/\*.*?\*/", re.S)
_DEFINED = re.compile(r"\bdefined\s*(?:\(\s*(\w+)\s*\)|(\w+))")
_C_LOGIC = (("&&", " and "), ("||", " or "), ("!=", " __ne__ "), ("!", " not "))
_LITERAL_SUFFIX = re.compile(r"\b(0x[0-9a-fA-F]+|\d+)[uUlL]+\b")
_UNKNOWN = object()  # defined, with a value this walk cannot know
_INCLUDE_NAME = re.compile(r'\s*(?:"([^"]+)"|<([^>]+)>)')
_History = dict[str, list[tuple[int, "int | None"]]]  # name -> (from line, value)


@dataclass(frozen=True, slots=True)
class Override:
    """A `-D NAME=V` the file's own `#define` replaces at `line` (1-based) of `file`."""

    name: str
    option: str  # the -D value as given
    value: str  # the #define's replacement text
    file: str
    line: int


@dataclass
class Macros:
    """What is defined, carried from file to file, and each file's definition history."""

    options: Sequence[str] = ()
    arch: str | None = None
    # name -> an int, another value (str), or _UNKNOWN; absent: undefined
    defined: dict[str, object] = field(default_factory=dict)
    from_option: dict[str, str] = field(default_factory=dict)  # -D names not redefined since
    overrides: list[Override] = field(default_factory=list)
    # file -> name -> [(line, int value or None)]: what each name holds from each line on
    history: dict[str, dict[str, list[tuple[int, int | None]]]] = field(default_factory=dict)
    _redefined: dict[str, dict[str, list[tuple[int, int | None]]]] = field(
        default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        for opt in self.options:
            if opt.startswith("-D"):
                name, eq, value = opt[2:].partition("=")
                name = name.strip()
                self.defined[name] = _value(value) if eq else 1
                self.from_option[name] = value.strip() if eq else "1"
            elif opt.startswith("-U"):
                self.defined.pop(opt[2:].strip(), None)
        if self.arch and (m := re.match(r"sm_(\d+)", self.arch)):
            self.defined.setdefault("__CUDA_ARCH__", int(m.group(1)) * 10)
        self.defined.setdefault("__CUDACC__", 1)

    def integers(self) -> dict[str, int]:
        """The integer macros defined now (after the files walked so far)."""
        return {n: v for n, v in self.defined.items() if type(v) is int}

    def walk(self, file: str, text: str, includes: Includes | None = None) -> None:
        """Follows `text`'s directives in order, recording each name's values by line; an
        `#include` of one of `includes`' files not walked yet is walked there."""
        hist = self.history.setdefault(file, {})
        self._redefined.pop(file, None)
        start = dict(self.defined)
        for name, v in start.items():
            hist.setdefault(name, []).append((0, v if type(v) is int else None))
        stack: list[tuple[bool | None, bool]] = []  # (this branch taken?, an earlier one taken?)
        for line, directive, rest in _directives(text):
            live = _live(stack)
            if directive in ("if", "ifdef", "ifndef"):
                cond = self._condition(directive, rest) if live is not False else False
                stack.append((cond, cond is True))
            elif directive in ("elif", "else") and stack:
                _, done = stack[-1]
                cond = (
                    (self._condition("if", rest) if directive == "elif" else True)
                    if not done
                    else False
                )
                stack[-1] = (cond, done or cond is True)
            elif directive == "endif" and stack:
                stack.pop()
            elif directive in ("define", "undef") and live is not False:
                self._define(file, line, directive, rest, certain=live is True, hist=hist)
            elif directive == "include" and live is not False and includes is not None:
                found = includes.enter(file, rest)
                if found is not None:
                    self.walk(found, includes.files[found], includes)

    def _define(
        self, file: str, line: int, directive: str, rest: str, *, certain: bool, hist: _History
    ) -> None:
        m = _DEFINE_BODY.match(rest.strip())
        if m is None:
            return
        name = m.group(1)
        if directive == "undef":
            new: object = None
        elif m.group(2):  # a function-like macro: defined, no integer value
            new = "()"
        else:
            new = _value(_COMMENT.sub("", m.group(3)).strip())
        if not certain:  # under a condition not decided: either value from here on
            new = _UNKNOWN if new != self.defined.get(name) else new
        if certain and name in self.from_option and directive == "define":
            given = self.from_option[name]
            body = _COMMENT.sub("", m.group(3)).strip()
            if new != self.defined.get(name):
                self.overrides.append(Override(name, given, body, file, line))
        self.from_option.pop(name, None)
        if new is None:
            self.defined.pop(name, None)
        else:
            self.defined[name] = new
        hist.setdefault(name, []).append((line, new if type(new) is int else None))

    def _condition(self, directive: str, rest: str) -> bool | None:
        """An `#if`'s truth: True, False, or None where it cannot be decided here."""
        rest = _COMMENT.sub("", rest).strip()
        if directive in ("ifdef", "ifndef"):
            name = rest.split()[0] if rest.split() else ""
            known = self._is_defined(name)
            return None if known is None else known == (directive == "ifdef")
        return _evaluate(rest, self)

    def _is_defined(self, name: str) -> bool | None:
        if name in self.defined:
            return True
        return None if name.startswith("__") else False  # the compiler's own: not known here

    def at(self, file: str, line: int) -> dict[str, int | None]:
        """The names of `file` whose value at `line` is not their final one (None: not an
        integer, or not known, there). A name not yet defined at `line` is left out: code
        there cannot use it. Only names defined more than once are looked at (a big
        generated source has thousands defined once)."""
        out: dict[str, int | None] = {}
        for name, steps in self._changing(file).items():
            if steps[0][0] >= line:
                continue
            value: int | None = None
            for at, v in steps:
                if at >= line:
                    break
                value = v
            final = self.defined.get(name)
            if value != (final if type(final) is int else None):
                out[name] = value
        return out

    def _changing(self, file: str) -> dict[str, list[tuple[int, int | None]]]:
        """The names defined more than once in `file`, or once to another value than their
        final one (a header walked at its `#include`, redefined after it)."""
        found = self._redefined.get(file)
        if found is None:
            hist = self.history.get(file, {})
            found = self._redefined[file] = {
                n: s for n, s in hist.items() if len(s) > 1 or s[0][1] != self._final(n)
            }
        return found

    def _final(self, name: str) -> int | None:
        value = self.defined.get(name)
        return value if type(value) is int else None


@dataclass
class Includes:
    """The files an `#include` may be followed into (name as the line table names it -> text),
    found as the compiler finds them: a quoted name beside the including file, then in the
    include directories (`-I`); each entered once."""

    files: Mapping[str, str]
    dirs: Sequence[str] = ()
    entered: set[str] = field(default_factory=set)
    _by_path: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_path = {os.path.normpath(n): n for n in self.files}

    def resolve(self, file: str, rest: str) -> str | None:
        """The file of `files` an `#include` (its `rest`) in `file` names, or None."""
        m = _INCLUDE_NAME.match(rest)
        if m is None:
            return None
        name = m.group(1) or m.group(2)
        bases = [os.path.dirname(file)] if m.group(1) else []
        for base in (*bases, *self.dirs):
            found = self._by_path.get(os.path.normpath(os.path.join(base, name)))
            if found is not None:
                return found
        return None

    def enter(self, file: str, rest: str) -> str | None:
        """The file to walk at this `#include`: one of `files` not entered yet, else None."""
        found = self.resolve(file, rest)
        if found is None or found in self.entered:
            return None
        self.entered.add(found)
        return found

    def reached(self, root: str, text: str) -> set[str]:
        """The files `root`'s includes reach, in either branch of every condition."""
        seen: set[str] = set()
        todo = [(root, text)]
        while todo:
            file, body = todo.pop()
            for _, directive, rest in _directives(body):
                found = self.resolve(file, rest) if directive == "include" else None
                if found is not None and found not in seen and found != root:
                    seen.add(found)
                    todo.append((found, self.files[found]))
        return seen


def include_dirs(options: Iterable[str]) -> list[str]:
    """The `-I` directories of a compile's options, in order (`-Idir`, `-I dir`)."""
    out, options = [], list(options)
    for i, opt in enumerate(options):
        if opt == "-I" and i + 1 < len(options):
            out.append(options[i + 1])
        elif opt.startswith("-I") and len(opt) > 2:
            out.append(opt[2:])
    return out


def _live(stack: list[tuple[bool | None, bool]]) -> bool | None:
    """Whether code here is compiled: True, False, or None (a condition not decided)."""
    state: bool | None = True
    for cond, _ in stack:
        if cond is False:
            return False
        if cond is None:
            state = None
    return state


def _directives(text: str) -> list[tuple[int, str, str]]:
    """(line, directive, rest) of each preprocessor line, continuations joined."""
    out, lines, n = [], text.split("\n"), 0
    while n < len(lines):
        first, line = n + 1, lines[n]
        while line.endswith("\\") and n + 1 < len(lines):
            n += 1
            line = line[:-1] + " " + lines[n]
        n += 1
        m = _DIRECTIVE.match(line)
        if m:
            out.append((first, m.group(1), m.group(2)))
    return out


def _value(text: str) -> object:
    """A macro's replacement as an int where it is one (`32`, `(0x20)`, `16u`), else the text."""
    stripped = _LITERAL_SUFFIX.sub(r"\1", text.strip()).strip("() ")
    try:
        return int(stripped, 0)
    except ValueError:
        return text.strip()


def _evaluate(expr: str, macros: Macros) -> bool | None:
    """An `#if` expression: integer literals, defined(), the integer macros, C's logic and
    comparisons; None for anything else (an undefined name may come from an unread header)."""
    unknown = False

    def defined(m: re.Match[str]) -> str:
        nonlocal unknown
        known = macros._is_defined(m.group(1) or m.group(2))
        unknown |= known is None
        return "1" if known else "0"

    text = _LITERAL_SUFFIX.sub(r"\1", _DEFINED.sub(defined, expr))
    for c, py in _C_LOGIC:
        text = text.replace(c, py)
    text = text.replace(" __ne__ ", " != ")
    if unknown:
        return None
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    value = _node(tree.body, macros.integers())
    return None if value is None else bool(value)


def _node(node: ast.AST, names: Mapping[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.UnaryOp):
        v = _node(node.operand, names)
        if v is None:
            return None
        return (
            int(not v)
            if isinstance(node.op, ast.Not)
            else -v
            if isinstance(node.op, ast.USub)
            else v
        )
    if isinstance(node, ast.BoolOp):
        values = [_node(v, names) for v in node.values]
        if any(v is None for v in values):
            return None
        return int(all(values) if isinstance(node.op, ast.And) else any(values))
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _node(node.left, names), _node(node.comparators[0], names)
        if a is None or b is None:
            return None
        ops = {ast.Eq: a == b, ast.NotEq: a != b, ast.Lt: a < b, ast.LtE: a <= b}
        ops.update({ast.Gt: a > b, ast.GtE: a >= b})
        return int(ops[type(node.ops[0])]) if type(node.ops[0]) in ops else None
    if isinstance(node, ast.BinOp):
        a, b = _node(node.left, names), _node(node.right, names)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, (ast.Div, ast.FloorDiv)) and b:
            return a // b
    return None


__all__ = ["Includes", "Macros", "Override", "include_dirs"]


# Function-like macros of one expression (`#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))`):
# a use in a constant (`constexpr int WMITER = CEIL_DIV(BM, WM);`) or a loop header is
# replaced as the preprocessor replaces it, so the constant is read. Bodies with statements,
# `#`/`##`, a variadic or continued definition, or two definitions (or an #undef) anywhere
# are left alone: no value there, never a guess.
_FUNCTION_DEFINE = re.compile(r"^[ \t]*#[ \t]*(define|undef)[ \t]+(\w+)(\(([^)]*)\))?(.*)$", re.M)
_NOT_AN_EXPRESSION = re.compile(r"[;{}#\\]|\b(?:for|while|do|if|return|goto)\b")
ExpressionMacros = dict[str, tuple[tuple[str, ...], str]]  # name -> (parameters, body)


def expression_macros(texts: Iterable[str]) -> ExpressionMacros:
    """The function-like macros of one expression defined once across `texts`."""
    found: ExpressionMacros = {}
    left_out: set[str] = set()
    for text in texts:
        for m in _FUNCTION_DEFINE.finditer(text):
            name, params = m.group(2), m.group(4)
            if m.group(1) == "undef" or m.group(3) is None:
                left_out.update([name] if m.group(1) == "undef" else ())
                continue
            body = _COMMENT.sub("", m.group(5)).strip()
            names = tuple(p.strip() for p in params.split(",")) if params.strip() else ()
            if (
                not body
                or _NOT_AN_EXPRESSION.search(body)
                or any(not p.isidentifier() for p in names)
            ):
                left_out.add(name)
                continue
            if found.setdefault(name, (names, body)) != (names, body):
                left_out.add(name)
    return {n: d for n, d in found.items() if n not in left_out}


def expand_expression_macros(text: str, macros: ExpressionMacros) -> str:
    """`text` with each use of `macros` outside directives replaced by its body, arguments
    substituted (each parenthesised, as its parameter is in a well-written body), uses inside
    a body too (eight levels); a use whose arguments run past its line is left as written,
    so every line keeps its number."""
    if not macros or not text:
        return text
    return _expanded(text, tuple(sorted(macros.items())))


@memoized(16)
def _expanded(text: str, items: tuple[tuple[str, tuple[tuple[str, ...], str]], ...]) -> str:
    """`expand_expression_macros`, once a text (a census reads a source once a kernel)."""
    macros = dict(items)
    use = re.compile(r"\b(" + "|".join(map(re.escape, sorted(macros))) + r")\s*\(")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _DIRECTIVE.match(line) or not use.search(line):
            continue
        for _ in range(8):
            new = _expand_line(line, use, macros)
            if new == line:
                break
            line = new
        lines[i] = line
    return "\n".join(lines)


def _expand_line(line: str, use: re.Pattern[str], macros: ExpressionMacros) -> str:
    out, pos = [], 0
    while (m := use.search(line, pos)) is not None:
        args, close = _arguments(line, m.end())
        params, body = macros[m.group(1)]
        if args is None or len(args) != len(params) and (params or args != [""]):
            out.append(line[pos : m.end()])
            pos = m.end()
            continue
        sub = _substituted(body, dict(zip(params, args, strict=False)))
        out.append(line[pos : m.start()] + f"({sub})")
        pos = close + 1
    return "".join(out) + line[pos:]


def _substituted(body: str, given: dict[str, str]) -> str:
    """`body` with each parameter named in `given` replaced by its argument, parenthesised."""
    return re.sub(r"\b\w+\b", lambda w: f"({given[w[0]]})" if w[0] in given else w[0], body)


def _arguments(line: str, start: int) -> tuple[list[str] | None, int]:
    """The top-level comma-separated arguments from `start` (just past the `(`) to its `)`
    on this line, and the `)`'s position; None where the line ends first."""
    depth, begin = 0, start
    args: list[str] = []
    for pos in range(start, len(line)):
        c = line[pos]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return [*args, line[begin:pos].strip()], pos
            depth -= 1
        elif c == "," and depth == 0:
            args.append(line[begin:pos].strip())
            begin = pos + 1
    return None, len(line)
