"""The integer constants a C++ file defines outside the preprocessor, where each one holds:
`constexpr` and `const` integers (a function's locals in their block, a namespace's
file-wide), `static constexpr` members of a config struct (`GemmCfg::BK`, and `BK` inside the
struct; `Policy::Tile::ROWS` of a struct nested in one; a base class's members through the
struct deriving from it, `Derived::BM`), a struct template's members bound to its arguments
(`Traits<128, 8>::BM`), enum values (`kRows`, `Dir::Up`), and the sizes `sizeof` gives the
built-in and vector types.

A loop header `for (uint k = 0; k < Cfg::BK; ++k)` in `cfg_sgemm<GemmCfg>` reads BK through
the kernel's type parameter (`bind_struct`, called by analyses/loops/files.py).

A scan of blanked text (comments, strings and directives turned to spaces), like
`sassview.parse.source_loops`: each `{` is classed by what precedes it (a struct or class, a
namespace, anything else: a block), each declaration evaluated where it stands with
`constant_expression` over the constants before it.

How it can be wrong: a name declared twice at file level with two values is left out (which
one a loop sees is not known here); a struct's members reached through a template base
class, a `using` alias or a typedef of a template are not found (no number, not a wrong one);
a local shadowing a file-wide name holds only in its block, as in C++.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from sassview.memo import memoized
from sassview.parse.cxx_sizes import SIZES
from sassview.parse.cxx_templates import split_top
from sassview.parse.source_loops import constant_expression

_TYPE = (
    r"(?:(?:unsigned|signed)\s+)?(?:long\s+long|int|long|short|char|size_t|unsigned|uint|"
    r"uint\d+_t|int\d+_t|index_t|bool|auto)"
)
_DECLARATION = re.compile(
    r"\b(?:constexpr|const)\s+(?:static\s+)?(?:inline\s+)?(?:const\s+)?" + _TYPE + r"\s+([^;{}]+);"
)
_ENUM = re.compile(r"\benum\s+(class\s+|struct\s+)?(\w+)?\s*(?::\s*[\w\s:]+?)?\s*\{([^{}]*)\}")
_ASSIGN = re.compile(r"^\s*(\w+)\s*=\s*(.+?)\s*$", re.S)
_STRUCT_HEAD = re.compile(
    r"(?:template\s*<(?P<params>[^{};]*)>\s*)?(?:struct|class)\s+(?:alignas\s*\([^)]*\)\s*)?"
    r"(?P<name>\w+)\s*(?:final\s*)?(?::(?P<bases>[^{};]*))?$"
)
_BASE = re.compile(r"^(?:(?:public|protected|private|virtual)\s+)*(?:\w+::)*(\w+)$")
_NAMESPACE_HEAD = re.compile(r"\bnamespace\s*(\w+)?\s*$")
_PARAMETER = re.compile(r"(?:\w+\s+)+?(\w+)\s*(?:=.*)?$", re.S)


@dataclass(frozen=True, slots=True)
class Scope:
    """Names that hold on lines `lines` (first, last; 1-based) only: a block's locals, a
    struct's members unqualified inside it."""

    lines: tuple[int, int]
    names: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class StructConstants:
    """A struct's integer members in order, as written (`params`: a struct template's
    integral parameters, bound when an instantiation names it)."""

    params: tuple[str, ...]
    members: tuple[tuple[str, str], ...]

    def evaluate(self, names: Mapping[str, int], args: Mapping[str, int]) -> dict[str, int]:
        env = {**names, **args}
        out: dict[str, int] = {}
        for member, expr in self.members:
            value = constant_expression(expr, env)
            if value is not None:
                out[member] = env[member] = value
        return out


@dataclass(frozen=True, slots=True)
class FileConstants:
    names: Mapping[str, int]  # file-wide: namespace level, enums, `Struct::MEMBER`
    scopes: tuple[Scope, ...]
    structs: Mapping[str, StructConstants]
    index: tuple[tuple[int, ...], ...] = ()  # line -> the scopes holding it (`_scope_index`)

    def at(self, line: int) -> dict[str, int]:
        """The names the scopes around `line` add (innermost last, so it wins)."""
        out: dict[str, int] = {}
        index = self.index
        for i in index[line] if 0 <= line < len(index) else ():
            out.update(self.scopes[i].names)
        return out


def _scope_index(scopes: tuple[Scope, ...]) -> tuple[tuple[int, ...], ...]:
    """Line -> the scopes holding it, outermost first (scopes are in order of their `{`)."""
    last = max((s.lines[1] for s in scopes), default=0)
    index: list[list[int]] = [[] for _ in range(last + 2)]
    for i, s in enumerate(scopes):
        for n in range(s.lines[0], s.lines[1] + 1):
            index[n].append(i)
    return tuple(map(tuple, index))


@dataclass
class _Block:
    kind: str  # "struct", "namespace", "block"
    name: str
    params: tuple[str, ...]
    start: int  # position of its `{`
    end: int  # of its `}`
    parent: int = -1  # index of the block around it (-1: none)
    bases: tuple[str, ...] = ()  # a struct's base classes, by their last name (no template)


def file_constants(blanked: str, macros: Mapping[str, int]) -> FileConstants:
    """The constants of one file's blanked text (`source_loops.blanked`), `macros` already
    known (they may size a constant: `constexpr int kTiles = TILE / 4`)."""
    return _file_constants(blanked, tuple(sorted(macros.items())))


@memoized(8)
def _file_constants(blanked: str, macro_items: tuple[tuple[str, int], ...]) -> FileConstants:
    blocks = _blocks(blanked)
    lines = _Lines(blanked)
    found: list[tuple[int, str, str]] = []  # (position, name, expression) in text order
    for m in _DECLARATION.finditer(blanked):
        for part in split_top(m.group(1)):
            a = _ASSIGN.match(part)
            if a:
                found.append((m.start(), a.group(1), a.group(2)))
    enums = [(m.start(), n, e, m.group(2), bool(m.group(1))) for m in _ENUM.finditer(blanked)
             for n, e in _enumerators(m.group(3))]  # fmt: skip
    wide: dict[str, int] = dict(macro_items)
    ambiguous: set[str] = set()
    local: dict[int, dict[str, int]] = {}  # block index -> its names
    structs: dict[str, tuple[tuple[str, ...], list[tuple[str, str]]]] = {}
    items = [(p, n, e, None, False) for p, n, e in found] + enums
    starts = [b.start for b in blocks]
    named = {b.name: i for i, b in enumerate(blocks) if b.kind == "struct" and not b.params}
    for pos, name, expr, enum, scoped in sorted(items, key=lambda x: x[0]):
        around = _around(blocks, starts, pos)
        env = _env(blocks, named, local, wide, around)
        inner = blocks[around[-1]] if around else None
        qualified = f"{enum}::{name}" if enum else None
        if inner is not None and inner.kind == "struct" and inner.params:
            structs.setdefault(inner.name, (inner.params, []))[1].append((name, expr))
            continue
        value = constant_expression(expr, env)
        if value is None:
            continue
        # an `enum class`'s values only qualified; an unscoped enum's both ways
        targets: list[str] = [name] if not (scoped and qualified) else []
        targets += [qualified] if qualified else []
        if inner is None or inner.kind == "namespace":
            prefix = f"{inner.name}::" if inner is not None and inner.name else ""
            for t in targets:
                _put(wide, ambiguous, t, value)
                if prefix:
                    _put(wide, ambiguous, prefix + t, value)
        else:
            local.setdefault(around[-1], {}).update(dict.fromkeys(targets, value))
            if inner.kind == "struct":
                for prefix in _qualified(blocks, around):
                    for t in targets:
                        _put(wide, ambiguous, f"{prefix}::{t}", value)
                structs.setdefault(inner.name, ((), []))[1].append((name, str(value)))
    _inherit(blocks, named, local, structs, wide, ambiguous)
    for name in ambiguous:
        wide.pop(name, None)
    scopes = tuple(
        Scope((lines.of(blocks[i].start), lines.of(blocks[i].end)), names)
        for i, names in local.items()
    )
    for name, _ in macro_items:
        wide.pop(name, None)  # the macros' values are the caller's (they change by line)
    return FileConstants(
        wide,
        scopes,
        {n: StructConstants(p, tuple(ms)) for n, (p, ms) in structs.items()},
        _scope_index(scopes),
    )


def _env(
    blocks: list[_Block],
    named: Mapping[str, int],
    local: Mapping[int, dict[str, int]],
    wide: Mapping[str, int],
    around: list[int],
) -> dict[str, int]:
    """The names a declaration inside the blocks `around` sees: the file-wide ones, then each
    block's, a struct's bases' members before its own."""
    env = dict(wide)
    for i in around:
        env.update(_inherited(blocks, named, local, i))
        env.update(local.get(i, {}))
    return env


def _qualified(blocks: list[_Block], around: list[int]) -> list[str]:
    """The names the innermost struct of `around` is reached by: `Tile`, `Policy::Tile`
    (a struct nested in a struct or a named namespace), innermost first."""
    out: list[str] = []
    chain = ""
    for i in reversed(around):
        b = blocks[i]
        if b.kind == "block" or not b.name:
            break
        chain = f"{b.name}::{chain}" if chain else b.name
        out.append(chain)
    return out


def _inherited(
    blocks: list[_Block], named: Mapping[str, int], local: Mapping[int, dict[str, int]], i: int
) -> dict[str, int]:
    """The members a struct block reaches through its bases (theirs first, its own after)."""
    out: dict[str, int] = {}
    seen = {i}
    todo = list(blocks[i].bases)
    while todo:  # a base's bases before the base: walked outwards, applied innermost last
        j = named.get(todo.pop(0))
        if j is None or j in seen:
            continue
        seen.add(j)
        out = {**_inherited(blocks, named, local, j), **local.get(j, {}), **out}
    return out


def _inherit(
    blocks: list[_Block],
    named: Mapping[str, int],
    local: dict[int, dict[str, int]],
    structs: dict[str, tuple[tuple[str, ...], list[tuple[str, str]]]],
    wide: dict[str, int],
    ambiguous: set[str],
) -> None:
    """A derived struct's inherited members under its own name (`ThreadShape::BM` of a base's
    BM), where it does not declare them itself."""
    for i, b in enumerate(blocks):
        if b.kind != "struct" or not b.bases or b.params:
            continue
        own = local.get(i, {})
        for member, value in _inherited(blocks, named, local, i).items():
            if member in own:
                continue
            _put(wide, ambiguous, f"{b.name}::{member}", value)
            entry = structs.setdefault(b.name, ((), []))[1]
            entry.insert(0, (member, str(value)))


def _around(blocks: list[_Block], starts: list[int], pos: int) -> list[int]:
    """The blocks holding `pos`, outermost first."""
    from bisect import bisect_left

    i = bisect_left(starts, pos) - 1
    out: list[int] = []
    while i >= 0:  # a block closed before pos: the one holding pos is around it
        if blocks[i].end > pos:
            out.append(i)
        i = blocks[i].parent
    return out[::-1]


def _put(names: dict[str, int], ambiguous: set[str], name: str, value: int) -> None:
    if names.get(name, value) != value:
        ambiguous.add(name)
    names[name] = value


def _enumerators(body: str) -> list[tuple[str, str]]:
    """(name, value expression) of each enumerator, implicit values counted on."""
    out: list[tuple[str, str]] = []
    last, step = "-1", 0
    for part in split_top(body):
        a = _ASSIGN.match(part)
        if a:
            last, step = f"({a.group(2)})", 0
            out.append((a.group(1), last))
        elif re.fullmatch(r"\w+", part.strip()):
            step += 1
            out.append((part.strip(), f"{last} + {step}"))
    return out


def _blocks(t: str) -> list[_Block]:
    """Every `{ ... }` of `t` in order of its `{`, classed by the text before it."""
    out: list[_Block] = []
    stack: list[int] = []
    prev = 0
    for m in re.finditer(r"[{};]", t):
        c = m.group()
        if c == "{":
            head = t[prev : m.start()].strip()
            s = _STRUCT_HEAD.search(head)
            if s is not None:
                params = tuple(_integral(s.group("params"))) if s.group("params") else ()
                bases = _bases(s.group("bases") or "")
                out.append(_Block("struct", s.group("name"), params, m.start(), len(t), -1, bases))
            elif (n := _NAMESPACE_HEAD.search(head)) is not None:
                out.append(_Block("namespace", n.group(1) or "", (), m.start(), len(t)))
            else:
                out.append(_Block("block", "", (), m.start(), len(t)))
            out[-1].parent = stack[-1] if stack else -1
            stack.append(len(out) - 1)
        elif c == "}" and stack:
            out[stack.pop()].end = m.start()
        prev = m.end()
    return out


def _bases(text: str) -> tuple[str, ...]:
    """The base classes of a struct head's `: public Base, Other` by their last name; none
    where one is a template (`Base<8>`: its members depend on arguments not read here)."""
    out = []
    for part in split_top(text, angles=True):
        m = _BASE.match(part.strip())
        if m is None:
            return ()
        out.append(m.group(1))
    return tuple(out)


def _integral(params: str) -> list[str]:
    """The names of a template's parameters (type parameters too: they take no value, but
    keep the positions matching the arguments)."""
    names = []
    for p in split_top(params, angles=True):
        m = _PARAMETER.match(p.strip())
        names.append(m.group(1) if m else "")
    return names


class _Lines:
    def __init__(self, t: str) -> None:
        self.ends = [m.start() for m in re.finditer("\n", t)]

    def of(self, pos: int) -> int:
        from bisect import bisect_left

        return bisect_left(self.ends, pos) + 1


def bind_struct(
    parameter: str, argument: str, constants: FileConstants, names: Mapping[str, int]
) -> dict[str, int]:
    """`{P::MEMBER: value}` for a type parameter `P` bound to `argument` (`GemmCfg`,
    `ns::Traits<128, 8>`), and `{sizeof(P): n}` where the argument is a sized type."""
    from sassview.parse.cxx_templates import integer_argument

    out: dict[str, int] = {}
    text = argument.strip().removeprefix("struct ").removeprefix("class ").strip()
    if text in SIZES:
        out[f"sizeof({parameter})"] = SIZES[text]
    base, _, rest = text.partition("<")
    s = constants.structs.get(base.split("::")[-1].strip())
    if s is None:
        return out | _integral_constant(parameter, base, rest)
    args: dict[str, int] = {}
    if rest:
        given = split_top(rest.rsplit(">", 1)[0], angles=True)
        if len(given) != len(s.params):
            return out
        for p, g in zip(s.params, given, strict=True):
            if (v := integer_argument(g)) is not None and p:
                args[p] = v
    elif s.params:
        return out
    for member, value in s.evaluate({**names, **constants.names}, args).items():
        out[f"{parameter}::{member}"] = value
    return out


def _integral_constant(parameter: str, base: str, rest: str) -> dict[str, int]:
    """`{P::value: 6}` for `P` bound to the standard library's `integral_constant<int, 6>`
    (std::, cuda::std::; `bool_constant<true>` too), no struct of the source."""
    from sassview.parse.cxx_templates import integer_argument

    name = base.split("::")[-1].strip()
    given = split_top(rest.rsplit(">", 1)[0], angles=True) if rest else []
    if (name, len(given)) not in (("integral_constant", 2), ("bool_constant", 1)):
        return {}
    value = integer_argument(given[-1])
    return {} if value is None else {f"{parameter}::value": value}


__all__ = ["FileConstants", "Scope", "StructConstants", "bind_struct", "file_constants"]
