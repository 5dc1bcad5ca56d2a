"""A C++ kernel's template arguments, read from its demangled name, and where its template is
defined in the source: so `for (k = 0; k < TILE; ++k)` in `sgemm<16>` has 16 iterations, and
`sgemm<<<g, dim3(TILE, TILE)>>>` can be told from another instantiation's launch.

A scan, not a parser, like `sassview.parse.source_loops`: the definition is the first
`template <...> ... name(...) {` whose parameter list has as many entries as the name has
arguments; only integral non-type parameters (`int TILE`, `unsigned N = 4`, `bool B`) are
bound, to the instantiation's integer arguments (`16`, `16u`, `true`).

How it can be wrong: a kernel template defined twice under #if, or overloaded with the same
parameter count, binds the first definition's names; a parameter named like a macro shadows
it inside the kernel's body only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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
    arguments; expressions may shift and compare)."""
    opening, closing = ("([{<", ")]}>") if angles else ("([{", ")]}")
    parts, depth, start = [], 0, 0
    for n, ch in enumerate(text):
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        elif ch == "," and depth == 0:
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
        end = _matching_brace(blanked, body)
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


def _matching_brace(text: str, start: int) -> int:
    depth = 0
    for n in range(start, len(text)):
        if text[n] == "{":
            depth += 1
        elif text[n] == "}":
            depth -= 1
            if depth == 0:
                return n
    return len(text) - 1


__all__ = [
    "TemplateScope",
    "integer_argument",
    "mangled_arguments",
    "mangled_identifier",
    "split_top",
    "template_arguments",
    "template_scope",
]
