"""The source files of a kernel's loops: every file its line table names, read alike.

The main file's text is the one compiled (a kernel.py's CUDA C++ kept line-aligned); any other
file (a header) is read from disk, where the line table says or beside the source given, and
scanned by `sassview.parse.source_loops` with the integer constants of every file (a header's
loops use its includer's `#define`s and the other way round).

A template kernel's integral parameters hold inside its definition's body
(`sassview.parse.cxx_templates`): `for (k = 0; k < TILE; ++k)` in `sgemm<16>` has 16 iterations.
A device function template's hold in its body at one inline context (`loop_at`): the arguments
written at its call site (`mac_tile<BK, BM, BN>(...)`), evaluated with the constants that hold
there (the kernel's own template arguments, its constexpr locals, the macros, a caller's
arguments in turn where the call is itself in a function template inlined further out), and
those the call's arguments deduce (`outer_acc(acc, ...)` with `float acc[8][4]` there:
`sassview.parse.cxx_deduce`), and over these the arguments of the instantiation the PTX names
as inlined at that call (`sassview.parse.ptx_inlined`: `_Z6sum_sqILi6EE...`). A parameter no
call site gives a number (an argument whose declaration is not read, a run-time expression) is
no constant in the body, whatever a file-wide name of the same name is. A template body's
constexpr locals are read again with its arguments (`constexpr int HALF = ROWS / 2;`).

The files a compile includes ahead of the source (`--include-before`, `--included-by`'s
context) give their constants too: `#define WARPSIZE 32` in the includer of a header; so do
the headers it read that hold none of the kernel's code (a config struct's `.cuh`: the
compile's recorded inputs, or the quoted `#include`s found beside the source).

Macros are the preprocessor's, in definition order (`sassview.parse.cxx_macros`: a `-D` a
`#define` replaces is not used), constants are scoped as C++ scopes them
(`sassview.parse.cxx_constants`: a block's constexpr locals, `Cfg::BK` through a kernel's type
parameter). A Triton kernel's constexprs (its `constexprs=` option) bind in its own function.

Macros are walked in translation-unit order: from the file compiled (the includer too, where
the kernel's code is all in a header it includes), into each header the line table names at
its first `#include` (`cxx_macros.Includes`), so the includer's `#define`s ahead of the
include hold in the header, and its later ones not.

How it can be wrong: a header no quoted or `-I` include reaches is read ahead of the file
compiled, with its final values; a header edited since the compile is read as it is now; one neither
where the line table says nor beside the source has no loops.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from sassview.analyses.base import AnalysisContext
from sassview.analyses.memory import line_keys
from sassview.ir import Artifacts
from sassview.memo import memoized
from sassview.parse.cxx_constants import FileConstants, bind_struct, file_constants
from sassview.parse.cxx_deduce import argument_type, deduce, enclosing_function
from sassview.parse.cxx_macros import (
    ExpressionMacros,
    Includes,
    Macros,
    expand_expression_macros,
    expression_macros,
    include_dirs,
)
from sassview.parse.cxx_templates import (
    Call,
    FunctionTemplate,
    TemplateScope,
    call_at,
    calls_on,
    enclosing_template,
    integer_argument,
    mangled_arguments,
    mangled_identifier,
    parameter_name,
    split_top,
    template_scope,
)
from sassview.parse.ptx_inlined import symbols_at
from sassview.parse.python_loops import bound_python, python_source_loops
from sassview.parse.source_loops import (
    SourceLoop,
    blanked,
    bound,
    constant_expression,
    source_loops,
)

Sites = tuple[tuple[str, int], ...]  # call sites (file, line), innermost first (`tree.Sites`)
# What holds on a line in one inline context: integer names (None: not a constant there) and
# type parameters -> the type they stand for
_Context = tuple[dict[str, int | None], dict[str, str]]


class SourceFiles:
    """The loop statements of each file the kernel's line table names, read alike.

    The main file's text is the one compiled; any other is read from disk: at the path the
    line table names, or failing that at the same place relative to the source given (a
    listing recorded in another checkout, a cubin built on another machine)."""

    def __init__(self, ctx: AnalysisContext, names: set[str]) -> None:
        art = ctx.program.artifacts
        self.main = _main_file(ctx, names)
        self.names = frozenset(names)
        self._main_text = art.stages.get("cuda_source") or art.source_text or ""
        # CUDA C++ held in a kernel.py is C++ (its line table names the .py through #line)
        self._cxx = art.kind == "cuda"
        # A kernel defined in a header has no code in the main file: its directory is then
        # unknown, and a header is looked for by name beside the source.
        here = Path(self.main).parent if self.main else Path("/")
        self._rebase = (here, Path(art.source_path).parent) if art.source_path else None
        self._files: dict[str, tuple[list[SourceLoop], list[int], dict[int, int]]] = {}
        self._kernel = ctx.kernel.display_name  # a template's arguments bind in its body
        self._scopes: dict[str, TemplateScope | None] = {}  # the kernel's, by file
        self._loops_at: dict[tuple[str, int, Sites], SourceLoop] = {}  # `loop_at`'s
        self._locals: dict[tuple[object, ...], FileConstants] = {}  # `_body_locals`'
        # A Triton kernel's constexprs as compiled bind in its own function's loops
        self._kernel_name = ctx.kernel.name
        self._constexprs = constexpr_values(art.options) if art.kind == "triton" else {}
        # Macros in definition order: the -D options, then the files ahead of the source, the
        # headers and the source, each `#define` in force from its line on (`at`). Constants
        # are shared: a header's loops use the includer's, and the includer's loops the
        # header's (`#define TILE 8`, a config struct in a .cuh).
        pre = [(str(p), _read(p)) for p in pre_included(art.options)]  # first, no code
        cxx = [n for n in sorted(set(names) - {self.main}) if self._cxx or not n.endswith(".py")]
        if self._cxx:  # the headers that went in with no code here (a config struct's .cuh)
            pre += [(str(p), _read(p)) for p in included(art, self._main_text, cxx)]
        # An expression macro's uses read as the preprocessor replaces them (`CEIL_DIV(BM, WM)`)
        self._texts: dict[str, str] = {}
        self._expand: ExpressionMacros = {}
        if self._cxx:
            raw = [t for _, t in pre] + [self._raw(n) for n in cxx] + [self._main_text]
            self._expand = expression_macros(raw)
            pre = [(n, expand_expression_macros(t, self._expand)) for n, t in pre]
        walked = (*pre, *((n, self.text(n)) for n in cxx))
        self._units = dict(walked)  # where a deduced argument's declaration may be
        self._blanked: dict[str, str] = {}
        self._merged: dict[tuple[str, int, tuple[str, int]], bool] = {}  # `merged`'s
        self._given: dict[tuple[FunctionTemplate, Sites], _Context] = {}  # `_arguments`'
        # The kernel's PTX, where NVVM names each function it inlined (`_compiled`)
        self._ptx = art.ptx or ""
        function = ctx.kernel.ptx
        lines = [i.line for i in function.instructions] if function else []
        self._ptx_lines = (min(lines), max(lines)) if lines and self._cxx else None
        self.macros, self._constants, self._macros = read_constants(
            tuple(art.options), art.arch, walked, self._unit(art)
        )

    def _unit(self, art: Artifacts) -> tuple[str, str] | None:
        """(name, text) of the file the translation unit starts at, its macros walked last,
        into its `#include`s as they come: the main file, or, where the kernel has no code in
        it (a kernel defined in the header it includes), the source compiled."""
        text = expand_expression_macros(self._main_text, self._expand)
        if self.main and (self._cxx or not self.main.endswith(".py")):
            return self.main, text
        if self._cxx and art.source_path and self._main_text:
            return art.source_path, text
        return None

    def text(self, file: str) -> str:
        """The file's text, each use of an expression macro replaced (`_expand`)."""
        found = self._texts.get(file)
        if found is None:
            found = self._texts[file] = expand_expression_macros(self._raw(file), self._expand)
        return found

    def _raw(self, file: str) -> str:
        if file == self.main:
            return self._main_text
        for path in candidates(file, self._rebase):
            try:
                return path.read_text(errors="replace")
            except OSError:
                continue
        return ""

    def _scan(self, file: str) -> tuple[list[SourceLoop], list[int], dict[int, int]]:
        found = self._files.get(file)
        if found is None:
            text = self.text(file)
            python = file.endswith(".py") and not self._cxx
            loops = scan(text, self._macros, python=python) if text else []
            if loops and not python:
                loops = self._instantiated(text, loops, file)
            elif loops and self._constexprs:
                loops = python_constexprs(text, loops, self._kernel_name, self._constexprs)
            innermost = [-1] * (max((s.span[1] for s in loops), default=0) + 2)
            statements: dict[int, int] = {}
            for i, s in enumerate(loops):  # outer loops first: inner ones overwrite them
                innermost[s.span[0] : s.span[1] + 1] = [i] * (s.span[1] - s.span[0] + 1)
                statements.update(dict.fromkeys(s.statement, i))
            found = self._files[file] = (loops, innermost, statements)
        return found

    def _instantiated(self, text: str, loops: list[SourceLoop], file: str) -> list[SourceLoop]:
        """Each loop read with the constants that hold at its line (`at`)."""
        out = []
        self._kernel_scope(file, 0)  # the kernel's definition in this file, found once
        scope = self._scopes[file]
        for s in loops:
            extra = self.at(file, s.line)
            binding = self._kernel_scope(file, s.line)[0]
            extra.update(binding)
            if binding and scope is not None and (s.header or s.request_name):
                extra.update(self._body_locals(file, scope.lines, s.line, extra))
            out.append(bound(s, _with(self._macros, extra)) if extra else s)
        return out

    def _body_locals(
        self, file: str, lines: tuple[int, int], line: int, names: dict[str, int | None]
    ) -> dict[str, int]:
        """The constexpr locals around `line` in a template's body (`lines`), read with its
        arguments `names`: `constexpr int H = BM / 2;` is 8 in `f<16>`, no constant in the
        file-wide reading. The body alone is read (its lines kept), once per binding."""
        env = _with(self._macros, names)
        key = (file, lines, tuple(sorted(env.items())))
        found = self._locals.get(key)
        if found is None:
            text = blanked(self.text(file)).split("\n")
            body = "\n" * (lines[0] - 1) + "\n".join(text[lines[0] - 1 : lines[1]])
            found = self._locals[key] = file_constants(body, env)
        return found.at(line)

    def _kernel_scope(self, file: str, line: int) -> _Context:
        """The kernel template's arguments, where `line` of `file` is in its body."""
        if file not in self._scopes:
            scope = template_scope(blanked(self.text(file)), self._kernel)
            self._scopes[file] = scope
        scope = self._scopes[file]
        if scope is None or not scope.lines[0] <= line <= scope.lines[1]:
            return {}, {}
        return self._bindings(scope), dict(scope.types)

    def loop_at(self, file: str, index: int, sites: Sites) -> SourceLoop:
        """Loop `index` of `file` inlined at `sites`: inside a device function template, read
        again with the arguments its call site gave that instantiation."""
        found = self._loops_at.get((file, index, sites))  # asked once per instruction counted
        if found is None:
            found = s = self.loops(file)[index]
            if (s.header or s.request_name) and self._callee(file, s.line) is not None:
                found = bound(s, _with(self._macros, self._context(file, s.line, sites)[0]))
            self._loops_at[(file, index, sites)] = found
        return found

    def merged(self, file: str, index: int, sites: Sites) -> bool:
        """Whether loop `index` of `file` inlined at `sites` is the code of two calls on one
        line (`sum_sq(r) + sum_sq(q)`): the line table has no columns, and one inline context
        holds both calls' copies (the PTX's `.loc` names both by the same line and column)."""
        if not sites:
            return False
        found = self._merged.get((file, index, sites[0]))
        if found is None:
            text = blanked(self.text(file))
            end = text.find("\n", _offset(text, self.loops(file)[index].line))
            name = enclosing_function(text, end if end >= 0 else len(text))  # the loop line's end
            there, call = sites[0]
            found = name is not None and len(calls_on(blanked(self.text(there)), call, name)) > 1
            self._merged[(file, index, sites[0])] = found
        return found

    def _callee(self, file: str, line: int) -> FunctionTemplate | None:
        """The function template (not the kernel's) whose body holds `line`."""
        callee = enclosing_template(blanked(self.text(file)), line)
        if callee is None:
            return None
        self._kernel_scope(file, line)  # the kernel's definition in this file, found once
        scope = self._scopes[file]
        if scope is not None and scope.lines == callee.lines:
            return None  # the kernel's own body: its arguments are its name's
        return callee

    def _context(self, file: str, line: int, sites: Sites) -> _Context:
        """The names and type parameters that hold at `line` of `file` inlined at `sites`."""
        names: dict[str, int | None] = self.at(file, line)
        kernel_names, types = self._kernel_scope(file, line)
        names.update(kernel_names)
        scope = self._scopes.get(file)
        if kernel_names and scope is not None:
            names.update(self._body_locals(file, scope.lines, line, names))
        callee = self._callee(file, line)
        if callee is not None:
            given, given_types = self._arguments(file, callee, sites)
            names.update(given)
            types.update(given_types)
            for name, argument in given_types.items():
                for consts in self._constants.values():
                    names.update(bind_struct(name, argument, consts, self._macros))
            names.update(self._body_locals(file, callee.lines, line, names))
        return names, types

    def _arguments(self, file: str, callee: FunctionTemplate, sites: Sites) -> _Context:
        """The template arguments of `callee` at its call site `sites[0]` (the one it was
        inlined at), evaluated with what holds there: those written, then those the call's
        arguments deduce (`sassview.parse.cxx_deduce`), then the defaults of those no
        function parameter names; a parameter left open is None. Once per call site."""
        found = self._given.get((callee, sites))
        if found is None:
            found = self._read_arguments(callee, sites)
            compiled = self._compiled(file, callee, sites)
            found = self._given[(callee, sites)] = (
                {**found[0], **compiled[0]},
                {**found[1], **compiled[1]},
            )
        return dict(found[0]), dict(found[1])

    def _compiled(self, file: str, callee: FunctionTemplate, sites: Sites) -> _Context:
        """The template arguments of the instantiation NVVM inlined at `sites[0]`, by the
        symbol its PTX names it by (`sassview.parse.ptx_inlined`: `_Z6sum_sqILi6EE...` is
        `sum_sq<6>`), where one symbol of `callee` is there and its arguments read."""
        if not sites or not self._ptx_lines:
            return {}, {}
        found = symbols_at(self._ptx, self._ptx_lines, file, callee.lines, sites[0])
        symbol = next(iter(found)) if len(found) == 1 else ""
        arguments = mangled_arguments(symbol) if symbol else None
        if mangled_identifier(symbol) != callee.name or arguments is None:
            return {}, {}
        names: dict[str, int | None] = {}
        types: dict[str, str] = {}
        for parameter, argument in zip(callee.parameters, arguments, strict=False):
            name, is_type, _ = parameter_name(parameter)
            if name is None:
                break
            if is_type:
                types[name] = argument
            else:
                names[name] = integer_argument(argument)
        return names, types

    def _read_arguments(self, callee: FunctionTemplate, sites: Sites) -> _Context:
        call, text = None, ""
        caller: _Context = ({}, {})
        if sites:
            (file, line), outer = sites[0], sites[1:]
            text = blanked(self.text(file))
            call = call_at(text, line, callee.name)
            caller = self._context(file, line, outer) if call is not None else caller
        env = _with(self._macros, caller[0])
        written = call.template or () if call is not None else ()
        deduced: tuple[dict[str, int | None], dict[str, str]] = ({}, {})
        if call is not None:  # a declaration may be a header's: an alias, a file-scope array
            others = self._elsewhere(sites[0][0])
            deduced = _deduced(callee, call, text, env, caller[1], others)
        names: dict[str, int | None] = {}
        types: dict[str, str] = {}
        for n, parameter in enumerate(callee.parameters):
            name, is_type, default = parameter_name(parameter)
            if name is None:
                break  # a pack: what follows is not read
            if n < len(written):  # an argument is the caller's expression
                if is_type:
                    types[name] = caller[1].get(written[n], written[n])
                else:
                    names[name] = constant_expression(written[n], env)
            elif name in deduced[0] or name in deduced[1]:
                names.update({name: deduced[0][name]} if name in deduced[0] else {})
                types.update({name: deduced[1][name]} if name in deduced[1] else {})
            elif call is not None and default and not _named_by(name, callee.arguments):
                # a default may name earlier parameters; one a function parameter names may
                # have been deduced where this reading deduced nothing
                if is_type:
                    types[name] = default
                else:
                    names[name] = constant_expression(default, _with(env, names))
            elif not is_type:
                names[name] = None
        return names, types

    def _elsewhere(self, file: str) -> tuple[str, ...]:
        """The blanked text of every file of the unit but `file` (the main one too)."""
        names = [n for n in (*self._units, self.main or "") if n and n != file]
        for n in names:
            if n not in self._blanked:
                self._blanked[n] = blanked(self._units.get(n) or self.text(n))
        return tuple(self._blanked[n] for n in names)

    def at(self, file: str, line: int) -> dict[str, int | None]:
        """The names whose value at `line` of `file` is not the file-wide one: a macro before
        its redefinition (None: not defined, or not known, there), a block's constexpr local,
        a struct's member inside it."""
        found: dict[str, int | None] = dict(self.macros.at(file, line))
        consts = self._constants.get(file)
        if consts is not None:
            found.update(consts.at(line))
        return found

    def _bindings(self, scope: TemplateScope) -> dict[str, int | None]:
        """A template instantiation's arguments: its integral parameters, and the members of
        a config struct a type parameter names (`Cfg::BK` in `cfg_sgemm<GemmCfg>`)."""
        out: dict[str, int | None] = dict(scope.bindings)
        for name, argument in scope.types.items():
            for consts in self._constants.values():
                out.update(bind_struct(name, argument, consts, self._macros))
        return out

    def loops(self, file: str) -> list[SourceLoop]:
        return self._scan(file)[0]

    def innermost(self, file: str, line: int) -> int | None:
        inner = self._scan(file)[1]
        return inner[line] if 0 <= line < len(inner) and inner[line] >= 0 else None

    def statement(self, file: str, line: int) -> int | None:
        return self._scan(file)[2].get(line)


def _deduced(
    callee: FunctionTemplate,
    call: Call,
    text: str,
    env: dict[str, int],
    types: dict[str, str],
    elsewhere: Sequence[str] = (),
) -> tuple[dict[str, int | None], dict[str, str]]:
    """What the arguments of `call` deduce of `callee`'s parameters, evaluated with the
    caller's constants `env` and type parameters `types` (`Frag<M, 4>` -> `Frag<3, 4>`);
    `elsewhere`: the unit's other files, for a declaration not in the caller's."""
    found = deduce(
        callee,
        list(call.arguments),
        lambda a: argument_type(text, call.position, a, elsewhere),
    )
    values: dict[str, int | None] = {
        n: constant_expression(v, env) for n, v in found.values.items()
    }
    return values, {n: _type_here(t, env, types) for n, t in found.types.items()}


def _type_here(text: str, env: dict[str, int], types: dict[str, str]) -> str:
    """A type as written in the caller, with its type parameters and constant template
    arguments put in: `Cfg` -> `GemmCfg`, `Frag<M, 4>` -> `Frag<3, 4>` where M is 3."""
    text = types.get(text, text)
    base, _, rest = text.partition("<")
    if not rest:
        return text
    out = []
    for arg in split_top(rest.rsplit(">", 1)[0], angles=True):
        value = constant_expression(arg, env)
        out.append(str(value) if value is not None else types.get(arg, arg))
    return f"{base.strip()}<{', '.join(out)}>"


def _offset(text: str, line: int) -> int:
    """Where 1-based `line` of `text` starts."""
    at = 0
    for _ in range(line - 1):
        at = text.find("\n", at) + 1
        if at == 0:
            return len(text)
    return at


def _named_by(name: str, arguments: Sequence[str]) -> bool:
    """Whether a function parameter's declaration names template parameter `name`."""
    word = re.compile(r"\b" + re.escape(name) + r"\b")
    return any(word.search(a) for a in arguments)


_CONSTEXPR_VALUE = re.compile(r"(\w+)=(-?\d+|True|False)(?=,|$)")


def constexpr_values(options: Sequence[str]) -> dict[str, int]:
    """The integer constexprs of a Triton compile (its `constexprs=BLOCK=64,STAGES=3`
    option, frontends/triton.py); booleans as 0 and 1."""
    for opt in options:
        if opt.startswith("constexprs="):
            found = _CONSTEXPR_VALUE.findall(opt.partition("=")[2])
            return {n: int(v == "True") if v in ("True", "False") else int(v) for n, v in found}
    return {}


def python_constexprs(
    text: str, loops: list[SourceLoop], kernel: str, names: dict[str, int]
) -> list[SourceLoop]:
    """The loops of the kernel's own function read with its constexprs (a `@jit` helper's
    parameters of the same names may take other values: its loops are left as they are)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return loops
    spans = [
        (f.lineno, f.end_lineno or f.lineno)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and f.name == kernel
    ]
    if len(spans) != 1:
        return loops
    first, last = spans[0]
    return [bound_python(s, names) if first <= s.line <= last else s for s in loops]


def pre_included(options: Sequence[str]) -> list[Path]:
    """The files a compile includes ahead of the source (nvcc's `-include PATH`, NVRTC's
    `--pre-include=PATH`: --include-before, and --included-by's context of the includer):
    their `#define`s hold in the source, though the line table never names them."""
    found: list[Path] = []
    for i, opt in enumerate(options):
        if opt.startswith("--pre-include="):
            found.append(Path(opt.partition("=")[2]))
        elif opt == "-include" and i + 1 < len(options):
            found.append(Path(options[i + 1]))
    return found


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def included(art: Artifacts, text: str, named: Iterable[str]) -> list[Path]:
    """The local headers a CUDA C++ compile read that the line table does not name (no code of
    the kernel is theirs: a config struct's, a macro's header): the compile's recorded inputs
    but the main file, else the main text's quoted `#include`s beside the source (a recorded
    build has no inputs), and theirs in turn; by file name, those the line table names aside."""
    have = {Path(n).name for n in named}
    if art.source_path:
        have.add(Path(art.source_path).name)
    found = [Path(p) for p in art.inputs[1:]]
    if not found and art.source_path:
        todo, here = [(text, Path(art.source_path).parent)], set()
        while todo and len(found) < 32:
            body, where = todo.pop()
            for name in _INCLUDE.findall(body):
                path = where / name
                if path in here or not path.is_file():
                    continue
                here.add(path)
                found.append(path)
                todo.append((_read(path), path.parent))
    return [p for p in found if p.name not in have]


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:  # the cache's context file swept since the compile: no constants
        return ""


@memoized(8)
def read_constants(
    options: tuple[str, ...],
    arch: str,
    files: tuple[tuple[str, str], ...],
    unit: tuple[str, str] | None = None,
) -> tuple[Macros, dict[str, FileConstants], dict[str, int]]:
    """(the macros walked after the options, the constants of each file, the constants every
    loop sees): `unit` (name, text) last, each of `files` (name, text) at its first `#include`
    there, those no include reaches in order ahead of it. Once a program, not once a kernel
    (a generated source of thousands of kernels is read once)."""
    macros = Macros(options, arch)
    includes = Includes(dict(files), include_dirs(options))
    reached = includes.reached(*unit) if unit is not None else set()
    for name, text in files:
        if name not in reached:
            macros.walk(name, text)
    if unit is not None:
        includes.entered.add(unit[0])
        macros.walk(*unit, includes)
    every = (*files, unit) if unit is not None else files
    consts = {n: file_constants(blanked(t), {}) for n, t in every}
    return macros, consts, _shared(macros.integers(), consts.values())


def _shared(macros: dict[str, int], files: Iterable[FileConstants]) -> dict[str, int]:
    """The constants every file's loops see: the macros, and each file's file-wide ones (a
    name two files give two values is left out)."""
    out = dict(macros)
    clash: set[str] = set()
    for consts in files:
        for name, value in consts.names.items():
            if name in macros:
                continue
            if out.get(name, value) != value:
                clash.add(name)
            out[name] = value
    return {n: v for n, v in out.items() if n not in clash}


def _with(names: dict[str, int], extra: dict[str, int | None]) -> dict[str, int]:
    out = dict(names)
    for name, value in extra.items():
        if value is None:
            out.pop(name, None)
        else:
            out[name] = value
    return out


def scan(text: str, macros: dict[str, int], *, python: bool) -> list[SourceLoop]:
    """The loop statements of one file: Python's by `ast` (Triton, the CuTe DSL), the rest as
    C++ (`sassview.parse.source_loops`)."""
    if python:
        return list(python_source_loops(text))
    return source_loops(text, macros)


def candidates(file: str, rebase: tuple[Path, Path] | None) -> list[Path]:
    """Where to read a file the line table names: there, then, with `rebase` = (the main
    file's directory as the line table names it, the directory of the source given), at the
    same place relative to the source given."""
    path = Path(file)
    out = [path]
    if rebase is not None:
        here, there = rebase
        out.append(there / os.path.relpath(path, here) if path.is_absolute() else there / path)
        out.append(there / path.name)
    return out


def _main_file(ctx: AnalysisContext, names: set[str]) -> str | None:
    """The compiled file as the line table names it (`names`: every file of every inline
    chain): the source path, else the file of that name (recorded elsewhere); None when the
    kernel has no code in it (a kernel defined in a header). A source given as text alone is
    the file with the most instructions."""
    path = ctx.program.artifacts.source_path
    if path and path in names:
        return path
    if path:
        return next((f for f in sorted(names) if Path(f).name == Path(path).name), None)
    files = ctx.shared(line_keys).files  # instructions per file of their outermost frames
    return files.most_common(1)[0][0] if files else None
