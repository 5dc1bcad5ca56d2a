"""A device function template's arguments the compiler deduced from a call
(`outer_acc(acc, a, b)` for `template <int TM, int TN> void outer_acc(float (&acc)[TM][TN],
...)`), read from the declarations the call's arguments name: so the loops of its body have
their trip counts where no template argument is written at the call site.

A scan, not a parser, like `sassview.parse.cxx_templates`. The shapes read, each a function
parameter against the argument given for it:

- an array by reference, `float (&acc)[TM][TN]`, `const float (&x)[N]`: each extent that is a
  template parameter alone is the argument's declared extent, in order (`float acc[8][4]` in
  the caller, a `__shared__ float As[BK][64]`, the caller's own parameter
  `const float (&acc)[R][C]`; `acc[m]` drops the outermost one);
- a struct template's instantiation, by value, reference or pointer (`Frag<M, N>& f`,
  `Frag<M, N>* f`, `Int<N>`, `integral_constant<int, N>`): each of its arguments that is a
  template parameter alone is the argument type's (`Frag<3, 4> f`, `&f`, `Int<3>{}`);
- a type parameter, by value, reference or pointer (`Cfg cfg`, `const F& f`): the argument's
  declared type (`const Tile44 cfg`, `Int<5> five`, `Frag<M, 4> f`), where the pointer levels
  agree.

An argument is read where it is a name (`acc`), a name's address (`&f`), a name subscripted
(`acc[m]`), a data member (`f.v`, `p->v[m]`: its declaration in the one definition of the
object's struct, its template arguments put in: `float v[M][N]` of `Frag<3, 2>` is
`float v[(3)][(2)]`) or a braced temporary of a type (`Int<3>{}`); its declaration is the one
visible at the call (the innermost block first, then the enclosing function's parameters and
the blocks around it, then file scope; then the file scope of the unit's other files, where one
of them alone declares it), `auto f = Frag<3, 2>{};` too, its type through the aliases visible
there (`using Frag24 = Frag<2, 4>;`, `typedef float Row5[5];`, a header's). The extents and
type arguments are the caller's expressions, for the caller to evaluate with the constants that
hold at the call (analyses/loops/files.py).

How it can be wrong: a call's result, a cast, an `auto` of anything but a braced temporary, a
member of a struct defined twice (under `#if`) or reached through a base class gives nothing
(the parameter stays unknown, never a guess); so do a parameter pack, a forwarding reference
(`T&&`, deduced as a reference) and an array passed to a pointer; a name declared in a macro's
expansion, or in a namespace other than the call's, is not seen (a header's file-scope
declaration is read whatever namespace it is in); a struct's member extents naming the
struct's own constants (`float v[ROWS]`) are not evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sassview.memo import memoized
from sassview.parse.cxx_templates import (
    FunctionTemplate,
    matching_brace,
    parameter_name,
    split_top,
)

_QUALIFIERS = re.compile(
    r"^(?:(?:const|constexpr|static|volatile|register|extern|inline|__shared__|__device__|"
    r"__constant__|__restrict__|__forceinline__|typename|struct|class)\b\s*|"
    r"(?:alignas|__align__)\s*\([^()]*\)\s*)+"
)
_BUILTIN = re.compile(r"^(?:(?:unsigned|signed|long|short)\s+)+(?:int|char|long|double)?\b")
_NAME = re.compile(r"^(?:::)?(?:\w+\s*::\s*)*\w+")
_NOT_A_TYPE = frozenset({
    "return", "if", "else", "for", "while", "do", "switch", "case", "goto", "delete", "new",
    "throw", "using", "typedef", "sizeof", "template", "operator", "co_return", "co_yield",
    "break", "continue", "default",
})  # fmt: skip
# A declarator: `* const p`, `acc[8][4] = {}`, `(&acc)[TM][TN]`, `f{}`.
_DECLARATOR = re.compile(
    r"^(?P<ptr>(?:[*&]\s*(?:const\b|__restrict__\b)?\s*)*)"
    r"(?:\(\s*(?P<ref>&{1,2})\s*(?P<rname>\w+)\s*\)|(?P<name>\w+))"
    r"\s*(?P<dims>(?:\[[^\[\]]*\]\s*)*)(?P<rest>.*)$",
    re.S,
)
_DIM = re.compile(r"\[([^\[\]]*)\]")
_BRACED = re.compile(r"^(?P<type>(?:::)?(?:\w+\s*::\s*)*\w+\s*(?:<.*>)?)\s*\{[^{}]*\}$", re.S)
_SUBSCRIPTS = re.compile(r"^(?P<name>\w+(?:\s*(?:\.|->)\s*\w+)?)\s*(?P<subs>(?:\[[^\[\]]*\]\s*)+)$")


@dataclass(frozen=True, slots=True)
class Declared:
    """A declared type as written: `float` with extents `('8', '4')`, `Frag<M, 4>`,
    `Tile44`; `pointers` its `*` levels (`&`, a reference, adds none: `reference`)."""

    type: str
    dims: tuple[str, ...] = ()
    pointers: int = 0
    reference: int = 0  # `&` 1, `&&` 2 (a forwarding reference where `type` is a parameter)


@memoized(4096)
def declaration(text: str) -> list[tuple[str, Declared]]:
    """(name, what it is declared as) for each declarator of one declaration statement or
    function parameter, `float lo[2][4] = {}, hi[4][1]` -> [('lo', float[2][4]), ('hi',
    float[4][1])]; [] where it is not a declaration."""
    rest = _QUALIFIERS.sub("", text.strip())
    head = _BUILTIN.match(rest) or _NAME.match(rest)
    if head is None or head.group(0) in _NOT_A_TYPE:
        return []
    end = head.end()
    if rest[end:].lstrip().startswith("<"):
        close = _angle_end(rest, rest.index("<", end))
        if close is None:
            return []
        end = close + 1
    base = re.sub(r"\s+", " ", rest[:end]).strip()
    after = _QUALIFIERS.sub("", rest[end:].strip())
    out = []
    for part in split_top(after, angles=True):
        m = _DECLARATOR.match(part)
        if m is None or (m.group("rest").strip()[:1] not in ("", "=", "{", "(")):
            continue
        ptr = m.group("ptr") or ""
        dims = tuple(d.strip() for d in _DIM.findall(m.group("dims") or ""))
        ref = len(m.group("ref") or "") or ptr.count("&")
        name = m.group("rname") or m.group("name")
        out.append((name, Declared(base, dims, ptr.count("*"), ref)))
    return out


def _angle_end(text: str, start: int) -> int | None:
    """The `>` closing the `<` at `start` (parentheses and brackets aside)."""
    angle = paren = 0
    for n in range(start, len(text)):
        ch = text[n]
        if ch in "([":
            paren += 1
        elif ch in ")]":
            paren -= 1
        elif paren == 0 and ch == "<":
            angle += 1
        elif paren == 0 and ch == ">":
            angle -= 1
            if angle == 0:
                return n
    return None


@memoized(64)
def visible_scopes(blanked: str, position: int) -> tuple[tuple[str, str], ...]:
    """The text of each block open at `position`, innermost first, with the blocks closed
    before `position` left out: (its own statements, the head before its `{`: a function's
    parameter list, a `for`'s header). The file scope's head is empty. A braced initializer
    (`= {}`, `f{}`, `Int<3>{}` in a call) is no block: it stays, as `{}`."""
    levels: list[list[str]] = [[]]
    heads: list[str] = [""]
    start = parens = 0
    skip_to = -1
    for m in re.finditer(r"[{}()]", blanked[:position]):
        at, ch = m.start(), m.group()
        if at < skip_to:
            continue
        if ch in "()":
            parens = parens + 1 if ch == "(" else max(parens - 1, 0)
            continue
        levels[-1].append(blanked[start:at])
        start = m.end()
        if ch == "{" and (parens or _initializer("".join(levels[-1]))):
            skip_to = matching_brace(blanked, at) + 1
            levels[-1].append("{}")
            start = skip_to
        elif ch == "{":
            text = "".join(levels[-1])
            cut = max(text.rfind(";"), text.rfind("}"))
            heads.append(text[cut + 1 :])
            levels.append([])
        elif len(levels) > 1:
            levels.pop()
            heads.pop()
            levels[-1].append(";")  # a closed block ends a statement
    levels[-1].append(blanked[start:position] if start < position else "")
    return tuple(("".join(t), h) for t, h in zip(reversed(levels), reversed(heads), strict=True))


_BLOCK_HEAD = re.compile(
    r"^(?:template\s*<.*>\s*)?(?:struct|class|union|enum|namespace|extern)\b", re.S
)


def _initializer(text: str) -> bool:
    """Whether a `{` after `text` opens an initializer: after `=`, `,`, `]`, or a declared
    name (`Frag<3, 4> f{`), not a struct's or a statement's head (`struct Tile {`, `else {`)."""
    cut = max(text.rfind(";"), text.rfind("}"), text.rfind("{"))
    head = text[cut + 1 :].strip()
    if not head or head[-1] == ")":
        return False
    if head[-1] == ">":  # `auto f = Frag<3, 2>{`, not `struct Tile<int> {`
        return "=" in head
    if head[-1] in "=,]":
        return True
    if ")" in head or _BLOCK_HEAD.match(head):  # `void f() const {`, `struct Tile {`
        return False
    return bool(declaration(head))


def declared(
    blanked: str, position: int, name: str, elsewhere: Sequence[str] = ()
) -> Declared | None:
    """What `name` is declared as where `position` is (the last declaration of it in the
    innermost block that has one, its head's parameters after its statements; then the file
    scope of each of `elsewhere`, the other files of the unit: a header's), its type through
    the aliases visible there (`using Tile = Frag<2, 4>;`, `typedef float Row6[6];`)."""
    here = _declared(blanked, position, name)
    if here is None:
        found = {d[1] for text in elsewhere if (d := _declared(text, len(text), name))}
        here = (True, found.pop()) if len(found) == 1 else None
    return _resolved(blanked, position, here[1], elsewhere) if here and here[1] else None


_AUTO = re.compile(r"^(?:(?:const|constexpr|static)\s+)*auto\s*&?\s*(\w+)\s*=\s*(.+)$", re.S)
_USING = re.compile(r"^using\s+(\w+)\s*=\s*(.+)$", re.S)


def _declared(blanked: str, position: int, name: str) -> tuple[bool, Declared | None] | None:
    """(found, what) of the innermost declaration of `name`: (True, None) for one not read
    (`auto r = make();`: it hides any further out), None where there is none."""
    for names, _ in _scopes(blanked, position):
        if name in names:
            return True, names[name]
    return None


_Scope = tuple[dict[str, Declared | None], dict[str, Declared | None]]


@memoized(64)
def _scopes(blanked: str, position: int) -> tuple[_Scope, ...]:
    """Each block open at `position`, innermost first: (its names as declared, its head's
    parameters after its statements; its aliases)."""
    out = []
    for statements, head in visible_scopes(blanked, position):
        names: dict[str, Declared | None] = {}
        aliases: dict[str, Declared | None] = {}
        for parameter in _head_parameters(head):
            names.update(declaration(parameter))
        inner: dict[str, Declared | None] = {}
        for statement in _statements(statements):
            _read_statement(statement, inner, aliases)
        out.append(({**names, **inner}, aliases))
    return tuple(out)


def _read_statement(
    statement: str, names: dict[str, Declared | None], aliases: dict[str, Declared | None]
) -> None:
    """The names one statement declares into `names`, the aliases into `aliases`."""
    auto = _AUTO.match(statement)
    if auto is not None:  # `auto f = Frag<3, 2>{};`
        braced = _BRACED.match(auto.group(2).strip())
        names[auto.group(1)] = Declared(_spaced(braced.group("type"))) if braced else None
        return
    using = _USING.match(statement)
    if using is not None:
        aliases[using.group(1)] = _type_id(using.group(2))
    elif statement.startswith("typedef "):
        aliases.update(declaration(statement[8:]))
    else:
        names.update(declaration(statement))


def _resolved(
    blanked: str, position: int, found: Declared, elsewhere: Sequence[str], depth: int = 0
) -> Declared:
    """`found` with its type's alias put in (its extents after the variable's own)."""
    alias = None
    if depth < 4 and re.fullmatch(r"\w+", found.type):
        alias = _alias(blanked, position, found.type)
        if alias is None:
            hits = {a for t in elsewhere if (a := _alias(t, len(t), found.type)) is not None}
            alias = hits.pop() if len(hits) == 1 else None
    if alias is None:
        return found
    merged = Declared(
        alias.type, found.dims + alias.dims, found.pointers + alias.pointers, found.reference
    )
    return _resolved(blanked, position, merged, elsewhere, depth + 1)


def _alias(blanked: str, position: int, name: str) -> Declared | None:
    """What a `using name = ...;` or `typedef ... name;` visible at `position` names."""
    for _, aliases in _scopes(blanked, position):
        if name in aliases:
            return aliases[name]
    return None


def _type_id(text: str) -> Declared | None:
    """A type as an alias names it: `Frag<2, 4>`, `float[6]`, `const Tile*`."""
    m = re.match(r"^(.*?)\s*((?:\[[^\[\]]*\]\s*)*)$", text.strip(), re.S)
    if m is None:
        return None
    got = declaration(m.group(1) + " unnamed_")
    if len(got) != 1:
        return None
    d = got[0][1]
    return Declared(d.type, tuple(x.strip() for x in _DIM.findall(m.group(2))), d.pointers)


def _spaced(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@memoized(256)
def _statements(text: str) -> list[str]:
    """`text` split at each `;` outside parentheses (a `for` header keeps its own)."""
    out, depth, start = [], 0, 0
    for n, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch == ";" and depth == 0:
            out.append(text[start:n])
            start = n + 1
    out.append(text[start:])
    # a statement's own text after a `)` closing an `if (...)`/`for (...)` head: the rest
    return [s.strip() for s in out if s.strip()]


def _head_parameters(head: str) -> list[str]:
    """The declarations of a block's head: a function's parameters, a `for`'s first clause
    (the last parenthesised group before the `{`, not a call's)."""
    close = head.rstrip().rfind(")")
    if close < 0 or head[close + 1 :].strip().split()[:1] not in ([], ["const"], ["override"]):
        return []
    depth, n = 0, close
    while n >= 0:
        if head[n] == ")":
            depth += 1
        elif head[n] == "(":
            depth -= 1
            if depth == 0:
                break
        n -= 1
    if n < 0:
        return []
    words = re.findall(r"\w+", head[:n])
    inside = head[n + 1 : close]
    if words and words[-1] == "for":
        return [_statements(inside + ";")[0]] if ";" in inside else []
    if not words or words[-1] in _NOT_A_TYPE or words[-1] in ("while", "switch", "catch"):
        return []
    return split_top(inside, angles=True)


def enclosing_function(blanked: str, position: int) -> str | None:
    """The name of the function whose body holds `position` (a template's or not; a lambda's
    or a struct's member function: the innermost), None at file scope."""
    for _, head in visible_scopes(blanked, position):
        close = head.rstrip().rfind(")")
        if close < 0 or head[close + 1 :].strip() not in ("", "const", "override"):
            continue
        n = _open_paren(head, close)
        words: list[str] = re.findall(r"\w+", head[:n]) if n is not None else []
        if words and words[-1] not in _NOT_A_TYPE and words[-1] not in ("while", "switch", "catch"):
            return words[-1]
    return None


def _open_paren(text: str, close: int) -> int | None:
    """The `(` matching the `)` at `close`."""
    depth, n = 0, close
    while n >= 0:
        if text[n] == ")":
            depth += 1
        elif text[n] == "(":
            depth -= 1
            if depth == 0:
                return n
        n -= 1
    return None


def argument_type(
    blanked: str, position: int, argument: str, elsewhere: Sequence[str] = ()
) -> Declared | None:
    """What a call's argument is, where it is one of the shapes read (see the module
    docstring); None for any other expression. `elsewhere`: the unit's other files (`declared`)."""
    text = argument.strip()
    braced = _BRACED.match(text)
    if braced is not None:
        return Declared(re.sub(r"\s+", " ", braced.group("type")).strip())
    address = text.startswith("&") and not text.startswith("&&")
    text = text[1:].strip() if address else text
    drop = 0
    sub = _SUBSCRIPTS.match(text)
    if sub is not None:
        text, drop = sub.group("name"), len(_DIM.findall(sub.group("subs")))
    member = _MEMBER.fullmatch(text)
    if member is not None and not address:  # `f.v`, `f->v[m]`
        found = _member(blanked, position, member, elsewhere)
    elif re.fullmatch(r"\w+", text) and not (address and drop):
        found = declared(blanked, position, text, elsewhere)
    else:
        return None
    if found is None or len(found.dims) < drop:
        return None
    return Declared(found.type, found.dims[drop:], found.pointers + address)


_MEMBER = re.compile(r"(?P<object>\w+)\s*(?P<arrow>\.|->)\s*(?P<member>\w+)")


def _member(
    blanked: str, position: int, m: re.Match[str], elsewhere: Sequence[str]
) -> Declared | None:
    """What a data member is, in the struct its object is declared as (`Frag<3, 4> f`:
    `float v[M][N]` of `template <int M, int N> struct Frag`, as `float v[3][4]`)."""
    owner = declared(blanked, position, m.group("object"), elsewhere)
    if owner is None or owner.dims or owner.pointers != (m.group("arrow") == "->"):
        return None
    base, _, rest = owner.type.partition("<")
    bodies = {b for t in (blanked, *elsewhere) for b in _struct_bodies(t, base.split("::")[-1])}
    if len(bodies) != 1:
        return None  # none, or two definitions of that name: which one is not known here
    params, body = bodies.pop()
    given = split_top(rest.rsplit(">", 1)[0], angles=True) if rest else []
    if len(given) != len(params):
        return None
    found = next(
        (d for st in _statements(body) for n, d in declaration(st) if n == m.group("member")),
        None,
    )
    if found is None:
        return None
    put = {p: f"({g})" for p, g in zip(params, given, strict=True) if p}

    def bound(text: str) -> str:
        return re.sub(r"\b\w+\b", lambda w: put.get(w.group(0), w.group(0)), text)

    return Declared(bound(found.type), tuple(map(bound, found.dims)), found.pointers)


_STRUCT_HEAD = r"(?:template\s*<(?P<params>[^{};]*)>\s*)?\b(?:struct|class)\s+"
_STRUCT_TAIL = r"\s*(?:final\s*)?(?::[^{;]*)?\{"


def _struct_bodies(blanked: str, name: str) -> list[tuple[tuple[str | None, ...], str]]:
    """(template parameter names, the body's own statements) of each definition of struct
    `name` in `blanked`; a member function's body left out."""
    out = []
    for m in re.finditer(_STRUCT_HEAD + re.escape(name) + _STRUCT_TAIL, blanked):
        params = split_top(m.group("params") or "", angles=True)
        end = matching_brace(blanked, m.end() - 1)
        statements = visible_scopes(blanked, end)[0][0]  # the struct's block, innermost
        out.append((tuple(parameter_name(p)[0] for p in params), statements))
    return out


@dataclass(frozen=True, slots=True)
class Deduced:
    """What deduction gave: integral parameters -> the caller's expression for them, type
    parameters -> the caller's type as written (to map through the caller's own)."""

    values: dict[str, str]
    types: dict[str, str]


def deduce(
    callee: FunctionTemplate,
    arguments: list[str],
    type_of: Callable[[str], Declared | None],
) -> Deduced:
    """The template parameters of `callee` its call's `arguments` deduce (`type_of`: what an
    argument is, `argument_type` at the call). A parameter two arguments give two readings of
    is left out."""
    names = {n: t for p in callee.parameters for n, t, _ in [parameter_name(p)] if n}
    values: dict[str, str] = {}
    types: dict[str, str] = {}
    clash: set[str] = set()

    def give(into: dict[str, str], name: str, value: str) -> None:
        if into.get(name, value) != value:
            clash.add(name)
        into[name] = value

    for parameter, argument in zip(callee.arguments, arguments, strict=False):
        # an unnamed parameter (`Int<N>`, `Tag`) is read as if named
        decl = declaration(parameter) or declaration(parameter + " unnamed_")
        got = type_of(argument) if decl else None
        if got is None:
            continue
        for name, value, is_type in _pairs(decl[0][1], got, names):
            give(types if is_type else values, name, value)
    return Deduced(
        {n: v for n, v in values.items() if n not in clash},
        {n: v for n, v in types.items() if n not in clash},
    )


def _pairs(
    parameter: Declared, argument: Declared, names: dict[str, bool]
) -> list[tuple[str, str, bool]]:
    """(template parameter, the argument's text for it, whether a type) one function
    parameter deduces from one argument."""
    if parameter.dims:  # an array by reference: extents in order, and its element type
        if not parameter.reference or len(parameter.dims) != len(argument.dims):
            return []
        out = [(d, a, False) for d, a in zip(parameter.dims, argument.dims, strict=True)]
        out = [p for p in out if names.get(p[0]) is False]
        if names.get(parameter.type) and parameter.pointers == argument.pointers:
            out.append((parameter.type, argument.type, True))
        return out
    if argument.dims or parameter.pointers != argument.pointers:
        return []  # an array decays to a pointer: not read
    if names.get(parameter.type):  # `Cfg cfg`, `const F& f`, `T* p`
        return [] if parameter.reference == 2 else [(parameter.type, argument.type, True)]
    return _template_pairs(parameter.type, argument.type, names)


def _template_pairs(
    parameter: str, argument: str, names: dict[str, bool]
) -> list[tuple[str, str, bool]]:
    """`Frag<M, N>` against `Frag<3, 4>` -> [('M', '3'), ('N', '4')]: one template's two
    instantiations, by its last name (a namespace written on one side only)."""
    p_base, _, p_rest = parameter.partition("<")
    a_base, _, a_rest = argument.partition("<")
    last = re.compile(r"\s*(?:\w+\s*::\s*)*")
    if not p_rest or not a_rest or last.sub("", p_base).strip() != last.sub("", a_base).strip():
        return []
    given = split_top(p_rest.rsplit(">", 1)[0], angles=True)
    have = split_top(a_rest.rsplit(">", 1)[0], angles=True)
    if len(given) != len(have):
        return []
    return [(g, h, names[g]) for g, h in zip(given, have, strict=True) if g in names]


__all__ = [
    "Declared",
    "Deduced",
    "argument_type",
    "declaration",
    "declared",
    "deduce",
    "enclosing_function",
]
