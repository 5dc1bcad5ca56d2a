"""A C++ kernel's template arguments, read from its demangled name, and where its template is
defined in the source: so `for (k = 0; k < TILE; ++k)` in `sgemm<16>` has 16 iterations, and
`sgemm<<<g, dim3(TILE, TILE)>>>` can be told from another instantiation's launch.

A scan, not a parser, like `sassview.parse.source_loops`: the definition is the first
`template <...> ... name(...) {` whose parameter list has as many entries as the name has
arguments; only integral non-type parameters (`int TILE`, `unsigned N = 4`, `bool B`) are
bound, to the instantiation's integer arguments (`16`, `16u`, `true`).

A device function template's arguments are read at its call site instead
(`function_templates`, `call_at`): `mac_tile<BK, BM, BN>(...)` as written there, for the
caller to evaluate with the constants that hold on that line (analyses/loops/files.py), and the
call's function arguments, for those it deduces (`mac_tile(acc, ...)`,
`sassview.parse.cxx_deduce`).

How it can be wrong: a kernel template defined twice under #if, or overloaded with the same
parameter count, binds the first definition's names; a parameter named like a macro shadows
it inside the kernel's body only. A call written on another line than the one the line table
names gives none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sassview.memo import memoized
from sassview.parse.ptx_lex import matching_paren

_SUFFIX = re.compile(r"^(-?\d+)[uUlL]*$")
_PARAMETER_NAME = re.compile(r"(\w+)\s*(?:=.*)?$", re.DOTALL)
_TYPE_PARAMETER = re.compile(r"^(?:typename|class)\b")
_BODY_OR_END = re.compile(r"[;{]")


@dataclass(frozen=True, slots=True)
class TemplateScope:
    """The integral template parameters of one instantiation, by name, and the lines of its
    definition's body (first and last, 1-based) where they hold."""

    bindings: dict[str, int]
    lines: tuple[int, int]
    # type parameters -> the argument as the demangler writes it (`Cfg` -> `GemmCfg`): a
    # config struct's members are read through it (`sassview.parse.cxx_constants`)
    types: dict[str, str] = field(default_factory=dict)


def split_top(text: str, *, angles: bool = False) -> list[str]:
    """`text` split at the commas outside brackets (and outside <> where `angles`: template
    arguments; outside parentheses: expressions inside them may shift and compare)."""
    parts, depth, angle, start = [], 0, 0, 0
    for n, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif angles and depth == 0 and ch in "<>":
            angle += 1 if ch == "<" else -1  # inside parentheses, `>` is a comparison
        elif ch == "," and depth == 0 and angle == 0:
            parts.append(text[start:n].strip())
            start = n + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def template_arguments(display_name: str) -> tuple[str, list[str] | None]:
    """('transpose', ['32', '8', '0']) from 'transpose<32, 8, 0>(float*, ...)'; a name left
    mangled (no demangler ran) gives its identifier and no arguments."""
    if display_name.startswith("_Z"):
        return mangled_identifier(display_name), mangled_arguments(display_name)
    head = display_name.split("(", 1)[0]
    name, _, rest = head.partition("<")
    base = name.split("::")[-1].strip()
    if not rest:
        return base, None
    return base, split_top(rest.rsplit(">", 1)[0], angles=True)


def mangled_identifier(symbol: str) -> str:
    """The function's own identifier in an Itanium-mangled symbol: `_Z11sgemm_tiledILi16E...`
    -> sgemm_tiled, `_ZN2ns6kernelEv` -> kernel (the last name of a nested one)."""
    nested = symbol.startswith("_ZN")
    pos, last = 3 if nested else 2, ""
    while (digits := re.match(r"\d+", symbol[pos:])) is not None:
        size = int(digits.group(0))
        start = pos + len(digits.group(0))
        last, pos = symbol[start : start + size], start + size
        if not nested:
            break
    return last


# Itanium's codes of the built-in types a kernel template is instantiated with
_BUILTIN_CODES = {
    "b": "bool", "c": "char", "a": "signed char", "h": "unsigned char", "s": "short",
    "t": "unsigned short", "i": "int", "j": "unsigned int", "l": "long", "m": "unsigned long",
    "x": "long long", "y": "unsigned long long", "f": "float", "d": "double",
}  # fmt: skip
_INTEGER_CODES = frozenset("bcahstijlmxy")


def mangled_arguments(symbol: str) -> list[str] | None:
    """The template arguments of a mangled kernel name as the demangler writes the simple
    ones: `_Z10tile_sgemmILi8ELi2EEvPKfS1_Pfi` -> ['8', '2'], `_Z9cfg_sgemmI7GemmCfgEv...` ->
    ['GemmCfg'], `...ILb1EE...` -> ['true']; None for a name with no template arguments or
    with any argument not of these forms (a pointer, a nested template, a substitution):
    offline listings carry no demangled names, and a wrong binding is worse than none."""
    nested = symbol.startswith("_ZN")
    pos = 3 if nested else 2
    while (digits := re.match(r"\d+", symbol[pos:])) is not None:
        pos += len(digits.group(0)) + int(digits.group(0))
        if not nested or symbol[pos : pos + 1] == "I":
            break
    if symbol[pos : pos + 1] != "I":
        return None
    pos += 1
    out: list[str] = []
    while pos < len(symbol) and symbol[pos] != "E":
        literal = re.match(r"L([a-z])(n?)(\d+)E", symbol[pos:])
        name = re.match(r"(\d+)", symbol[pos:])
        if literal is not None and literal.group(1) in _INTEGER_CODES:
            value = ("-" if literal.group(2) else "") + literal.group(3)
            if literal.group(1) == "b":
                value = "true" if value == "1" else "false"
            out.append(value)
            pos += literal.end()
        elif name is not None:
            size = int(name.group(1))
            start = pos + len(name.group(1))
            out.append(symbol[start : start + size])
            pos = start + size
        elif symbol[pos] in _BUILTIN_CODES:
            out.append(_BUILTIN_CODES[symbol[pos]])
            pos += 1
        else:
            return None
    return out if pos < len(symbol) else None


def integer_argument(text: str) -> int | None:
    """A template argument as the demangler writes an integer: `16`, `16u`, `-1`, `true`."""
    text = text.strip()
    if text in ("true", "false"):
        return int(text == "true")
    m = _SUFFIX.match(text)
    return int(m.group(1)) if m else None


def template_scope(blanked: str, display_name: str) -> TemplateScope | None:
    """Where the kernel's template is defined in `blanked` (source text with comments and
    strings blanked, positions kept) and what its integral parameters are; None when the
    kernel is no template instantiation or its definition is not in this text."""
    base, arguments = template_arguments(display_name)
    if not arguments or not base:
        return None
    pattern = re.compile(r"template\s*<([^;{}]*?)>[^;{}]*?\b" + re.escape(base) + r"\s*\(")
    for m in pattern.finditer(blanked):
        parameters = split_top(m.group(1), angles=True)
        if len(parameters) != len(arguments):
            continue
        body = _body_start(blanked, m.end() - 1)
        if body is None:
            continue  # a declaration: the definition comes later
        end = matching_brace(blanked, body)
        first = blanked.count("\n", 0, body) + 1
        return TemplateScope(
            _bind(parameters, arguments),
            (first, first + blanked.count("\n", body, end)),
            _types(parameters, arguments),
        )
    return None


def _bind(parameters: list[str], arguments: list[str]) -> dict[str, int]:
    bound: dict[str, int] = {}
    for parameter, argument in zip(parameters, arguments, strict=True):
        if _TYPE_PARAMETER.match(parameter) or "..." in parameter:
            continue
        name, value = _PARAMETER_NAME.search(parameter), integer_argument(argument)
        if name is not None and value is not None:
            bound[name.group(1)] = value
    return bound


def _types(parameters: list[str], arguments: list[str]) -> dict[str, str]:
    """Each type parameter's argument (`typename Cfg` -> `GemmCfg`)."""
    out: dict[str, str] = {}
    for parameter, argument in zip(parameters, arguments, strict=True):
        if _TYPE_PARAMETER.match(parameter) and "..." not in parameter:
            name = _PARAMETER_NAME.search(parameter.split(None, 1)[-1])
            if name is not None:
                out[name.group(1)] = argument.strip()
    return out


def _body_start(text: str, paren: int) -> int | None:
    """The `{` opening the function whose parameter list opens at `paren`; None if a `;`
    (a declaration) comes first."""
    close = matching_paren(text, paren)
    found = _BODY_OR_END.search(text, close) if close >= 0 else None
    return found.start() if found is not None and found.group() == "{" else None


def matching_brace(text: str, start: int) -> int:
    """The index of the `}` closing the `{` at `start` (in text whose comments and strings are
    blanked), else the text's last index."""
    depth = 0
    for n in range(start, len(text)):
        if text[n] == "{":
            depth += 1
        elif text[n] == "}":
            depth -= 1
            if depth == 0:
                return n
    return len(text) - 1


@dataclass(frozen=True, slots=True)
class FunctionTemplate:
    """A function template's definition: its name, its parameters as written (`int BK`,
    `typename Cfg`, `int kWarp = 32`), the lines of its body (first, last; 1-based) and its
    function parameters as written (`float (&acc)[TM][TN]`, `const float* a`)."""

    name: str
    parameters: tuple[str, ...]
    lines: tuple[int, int]
    arguments: tuple[str, ...] = ()


_FUNCTION_TEMPLATE = re.compile(r"template\s*<([^;{}]*?)>[^;{}]*?\b(\w+)\s*\(")
_NOT_A_NAME = frozenset({"__launch_bounds__", "__align__", "alignas", "decltype", "operator"})


@memoized(16)
def function_templates(blanked: str) -> tuple[FunctionTemplate, ...]:
    """Every function template defined in `blanked` (source text with comments and strings
    blanked), in order; declarations (no body) left out."""
    out = []
    for m in _FUNCTION_TEMPLATE.finditer(blanked):
        if m.group(2) in _NOT_A_NAME:
            continue  # `__global__ void __launch_bounds__(256) k(...)`: not read, no binding
        body = _body_start(blanked, m.end() - 1)
        if body is None:
            continue
        end = matching_brace(blanked, body)
        first = blanked.count("\n", 0, body) + 1
        parameters = tuple(split_top(m.group(1), angles=True))
        last = first + blanked.count("\n", body, end)
        close = matching_paren(blanked, m.end() - 1)
        arguments = tuple(split_top(blanked[m.end() : close], angles=True))
        out.append(FunctionTemplate(m.group(2), parameters, (first, last), arguments))
    return tuple(out)


def enclosing_template(blanked: str, line: int) -> FunctionTemplate | None:
    """The function template whose body holds `line` (the innermost, were one in another)."""
    found = None
    for t in function_templates(blanked):
        if t.lines[0] <= line <= t.lines[1]:
            found = t
    return found


@dataclass(frozen=True, slots=True)
class Call:
    """A call of a function template as written: its template arguments (None where none are
    written: all deduced or defaulted; `f<8>(...)`: the first written, the rest deduced), its
    function arguments, and where its name starts in the text (what is declared there is
    what its arguments name)."""

    template: tuple[str, ...] | None
    arguments: tuple[str, ...]
    position: int


def call_at(blanked: str, line: int, name: str) -> Call | None:
    """The call of `name` that starts on `line` (`mac_tile<BK, BM, BN>(acc, ...)`,
    `outer_acc(acc, a, b)`, its arguments on the lines after too); None where there is no such
    call there, or two calls with other template arguments (two with other function arguments
    give none of those: which call an inline chain is, the line does not say)."""
    found = calls_on(blanked, line, name)
    first = found[0] if found else None
    if first is None or any(f.template != first.template for f in found):
        return None
    if any(f.arguments != first.arguments for f in found):  # `f<1>(a); f<1>(b);`: none deduce
        return Call(first.template, (), first.position)
    return first


def calls_on(blanked: str, line: int, name: str) -> list[Call]:
    """Every call of `name` that starts on `line`, in order."""
    starts = _line_starts(blanked)
    if not 1 <= line <= len(starts):
        return []
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(blanked)
    found: list[Call] = []
    for m in re.finditer(r"(?<![\w.])(?<!->)" + re.escape(name) + r"\s*([<(])", blanked[begin:end]):
        at = begin + m.start(1)
        template = None
        if m.group(1) == "<":
            close = _closing_angle(blanked, at)
            paren = re.match(r"\s*\(", blanked[close + 1 :]) if close is not None else None
            if close is None or paren is None:
                continue
            template = tuple(split_top(blanked[at + 1 : close], angles=True))
            at = close + paren.end()
        shut = matching_paren(blanked, at)
        if shut < 0:
            continue
        arguments = tuple(split_top(blanked[at + 1 : shut], angles=True))
        found.append(Call(template, arguments, begin + m.start()))
    return found


def call_arguments(blanked: str, line: int, name: str) -> list[str] | None:
    """The template arguments written at a call of `name` that starts on `line`
    (`mac_tile<BK, BM, BN>(` -> ['BK', 'BM', 'BN']; `warp_max<>(` -> []); None where there is
    no such call there (or none written), or two calls with other arguments."""
    call = call_at(blanked, line, name)
    return list(call.template) if call is not None and call.template is not None else None


@memoized(16)
def _line_starts(blanked: str) -> tuple[int, ...]:
    return (0, *(m.end() for m in re.finditer("\n", blanked)))


def _closing_angle(text: str, start: int) -> int | None:
    """Index of the `>` closing the template argument list whose `<` is at `start` (a `>`
    inside parentheses is a comparison); None past a `;` or `{`."""
    angles = parens = 0
    for n in range(start, len(text)):
        ch = text[n]
        if ch in ";{":
            return None
        if ch == "(":
            parens += 1
        elif ch == ")":
            parens -= 1
        elif parens == 0 and ch == "<":
            angles += 1
        elif parens == 0 and ch == ">":
            angles -= 1
            if angles == 0:
                return n
    return None


def parameter_name(parameter: str) -> tuple[str | None, bool, str]:
    """(name, whether a type parameter, default as written or "") of a template parameter:
    `int BK` -> ('BK', False, ''), `typename Cfg` -> ('Cfg', True, ''), `int kWarp = 32` ->
    ('kWarp', False, '32'); no name for a pack."""
    head, _, default = parameter.partition("=")
    if "..." in head:
        return None, False, ""
    is_type = bool(_TYPE_PARAMETER.match(head.strip()))
    words = head.split(None, 1)[-1] if is_type else head
    name = _PARAMETER_NAME.search(words.strip())
    return (name.group(1) if name else None), is_type, default.strip()


__all__ = [
    "Call",
    "FunctionTemplate",
    "TemplateScope",
    "call_arguments",
    "call_at",
    "calls_on",
    "enclosing_template",
    "function_templates",
    "parameter_name",
    "integer_argument",
    "mangled_arguments",
    "mangled_identifier",
    "split_top",
    "template_arguments",
    "template_scope",
]
