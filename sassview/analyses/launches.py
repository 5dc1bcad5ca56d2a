"""The block a kernel is launched with, read from the host code of its own source file.

Whole programs launch their kernels in the same file (`sgemm<<<grid, dim3(16, 16)>>>(...)`),
and a 2-D block whose x is under 32 changes which threads share a warp: a 16x16 block's warp 0
is two rows of 16, not 32 consecutive threadIdx.x. So when neither `--block` nor `.reqntid`
says, the memory analyses take the block from the launches of the kernel they find here.

Read, never guessed: the block argument of `name<<<grid, block, ...>>>` must evaluate to
integers from literals, `dim3(...)`/`dim3{...}`, a `dim3 name(...)` variable, and `#define` /
`const` / `constexpr` integer constants of the file, each defined once; template arguments of
the launch, where they evaluate, must equal the instantiation's. Every launch of the kernel
must agree on the shape; when one cannot be evaluated, or two disagree, there is no shape
(with the reason), and the analyses keep their default. Launches through cudaLaunchKernel or
in other files are not seen.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from sassview.analyses.base import AnalysisContext
from sassview.graph.lane_values import BlockShape
from sassview.memo import memoized
from sassview.parse.cxx_macros import Macros
from sassview.parse.cxx_templates import integer_argument, split_top, template_arguments
from sassview.parse.source_loops import constant_expression

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_LAUNCH = re.compile(
    r"(?P<name>[A-Za-z_][\w:]*)\s*(?P<targs><[^;{}()]*?>)?\s*<<<(?P<config>.*?)>>>", re.DOTALL
)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]+)$", re.MULTILINE)
_CONSTANT = re.compile(
    r"\b(?:static\s+)?(?:constexpr|const)\s+(?:unsigned\s+|signed\s+)?"
    r"(?:int|long|short|size_t|unsigned|auto|std::size_t|int32_t|uint32_t)?\s*"
    r"(\w+)\s*=\s*([^;]+);"
)
# `dim3 block(16, 16);`, `dim3 const block_dim{32U, 32U, 1U};`, `const dim3 b = dim3(8, 8);`
_DIM3_VARIABLE = re.compile(
    r"\bdim3\s+(?:const\s+|constexpr\s+)?(\w+)\s*(?:=\s*dim3\s*)?[({]([^;]*?)[)}]\s*;"
)
# An integer literal's suffix (32U, 256u, 16UL), which the constant evaluator does not read.
_SUFFIX = re.compile(r"\b(\d+)(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)\b")


@dataclass(frozen=True, slots=True)
class LaunchShape:
    """What the launches of one kernel say: `dims` when they agree on one shape, else None
    and `reason`; `line` is the first launch's."""

    dims: tuple[int, int, int] | None
    line: int | None
    reason: str


class _Launch(NamedTuple):
    name: str  # the kernel's identifier, without namespaces or template arguments
    targs: str | None  # `<TILE, ROWS>` as written, if any
    dims: tuple[int, int, int] | None  # the block, None when it is not read as constants
    line: int


@memoized(8)
def _file_launches(
    source: str, options: tuple[str, ...] = ()
) -> tuple[tuple[_Launch, ...], Mapping[str, int]]:
    """Every `name<<<...>>>` of a source and the constants its arguments may use: read once a
    file (the warp model and occupancy ask for each kernel of it). Macros are the
    preprocessor's final values, the `-D` options first (`sassview.parse.cxx_macros`): a
    `#define BLOCK 256` after `-DBLOCK=128` is 256, under `#ifndef BLOCK` 128."""
    text = _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)
    constants = _constants(text)
    _preprocessed(constants, text, source, options)
    launches = []
    for launch in _LAUNCH.finditer(text):
        args = split_top(launch.group("config"))
        dims = _block_dims(args[1], text, constants) if len(args) >= 2 else None
        name = launch.group("name").split("::")[-1]
        line = text.count("\n", 0, launch.start()) + 1
        launches.append(_Launch(name, launch.group("targs"), dims, line))
    return tuple(launches), MappingProxyType(constants)


def _preprocessed(
    constants: dict[str, int], text: str, source: str, options: tuple[str, ...]
) -> None:
    """`constants` with each macro as the preprocessor leaves it at the end of the file: an
    integer, an expression of the others (`(BLOCK * 2)`, read again), or none (undefined,
    or under a condition not decided: not known)."""
    walk = Macros(options)
    walk.walk("", source)
    expressions = {}
    for name in {m.group(1) for m in _DEFINE.finditer(text)} | set(walk.defined):
        value = walk.defined.get(name)
        if type(value) is int:
            constants[name] = value
        elif isinstance(value, str):
            expressions[name] = value
        else:
            constants.pop(name, None)
    for _ in range(4):  # macros defined from macros, a few levels deep
        for name, expr in expressions.items():
            if (value := constant_expression(expr, constants)) is not None:
                constants[name] = value


def launch_shape(
    source: str, display_name: str, options: tuple[str, ...] = ()
) -> LaunchShape | None:
    """The block the kernel of that (demangled) name is launched with in `source`; None when
    no launch of it is there."""
    launches, constants = _file_launches(source, tuple(options))
    base, wanted = template_arguments(display_name)
    shapes: dict[tuple[int, int, int], int] = {}
    for launch in launches:
        if launch.name != base or not _same_instantiation(launch.targs, wanted, constants):
            continue
        if launch.dims is None:
            line = launch.line
            return LaunchShape(None, line, f"the launch at line {line} has a run-time block")
        shapes.setdefault(launch.dims, launch.line)
    if not shapes:
        return None
    if len(shapes) > 1:
        seen = ", ".join(f"{'x'.join(map(str, d))} (line {n})" for d, n in shapes.items())
        return LaunchShape(None, min(shapes.values()), f"launched with {seen}")
    ((dims, line),) = shapes.items()
    return LaunchShape(dims, line, "")


def _same_instantiation(
    targs: str | None, wanted: list[str] | None, constants: Mapping[str, int]
) -> bool:
    """Whether a launch's template arguments can name this instantiation: an argument that
    evaluates must equal the kernel's, a built-in type must be the kernel's; any other name
    (a host template's own parameter, `T`) may be any instantiation."""
    if targs is None or wanted is None:
        return True
    given = split_top(targs[1:-1], angles=True)
    if len(given) != len(wanted):
        return False
    for g, w in zip(given, wanted, strict=True):
        value, expected = constant_expression(g, constants), integer_argument(w)
        if value is not None:
            if value != expected:
                return False
        elif _BUILTIN_TYPE.fullmatch(g.strip()) and g.replace(" ", "") != w.replace(" ", ""):
            return False
    return True


_BUILTIN_TYPE = re.compile(
    r"(?:unsigned |signed )?(?:float|double|int|char|short|long|bool|half|__half|"
    r"__nv_bfloat16|__nv_fp8_e4m3|__nv_fp8_e5m2|int8_t|uint8_t|int32_t|uint32_t|int64_t)\s*\**"
)


def _block_dims(
    argument: str, text: str, constants: Mapping[str, int]
) -> tuple[int, int, int] | None:
    argument = argument.strip()
    call = re.fullmatch(r"dim3\s*[({](.*)[)}]", argument, re.DOTALL)
    if call is not None:
        return _dims(split_top(call.group(1)), constants)
    if re.fullmatch(r"\w+", argument):
        defined = {m.group(2) for m in _DIM3_VARIABLE.finditer(text) if m.group(1) == argument}
        if len(defined) == 1:
            return _dims(split_top(defined.pop()), constants)
        if defined:
            return None  # one name, several shapes: which one reaches this launch is unknown
    return _dims([argument], constants)


def _dims(parts: list[str], constants: Mapping[str, int]) -> tuple[int, int, int] | None:
    values = [constant_expression(_SUFFIX.sub(r"\1", p), constants) for p in parts]
    if not 1 <= len(values) <= 3 or any(v is None or v <= 0 for v in values):
        return None
    x, y, z = [*values, 1, 1][:3]
    assert x is not None and y is not None and z is not None
    return x, y, z


def _constants(text: str) -> dict[str, int]:
    """The file's integer constants that are defined once (a name defined twice, in two
    scopes or under #if, is left out: which one a launch sees is not known here)."""
    found: dict[str, set[str]] = {}
    for m in (*_DEFINE.finditer(text), *_CONSTANT.finditer(text)):
        found.setdefault(m.group(1), set()).add(m.group(2).strip())
    values: dict[str, int] = {}
    for _ in range(4):  # constants defined from constants, a few levels deep
        for name, exprs in found.items():
            if len(exprs) == 1 and name not in values:
                value = constant_expression(next(iter(exprs)), values)
                if value is not None:
                    values[name] = value
    return values


def launched_block(ctx: AnalysisContext) -> BlockShape | None:
    """The block of the kernel's launches in its source (`<<<grid, dim3(16, 16)>>>`); where
    they cannot be read or disagree, the default warp with the reason."""
    artifacts = ctx.program.artifacts
    if not artifacts.source_text or "<<<" not in artifacts.source_text:
        return None
    found = launch_shape(artifacts.source_text, ctx.kernel.display_name, artifacts.options)
    if found is None:
        return None
    if found.dims is None:
        return BlockShape(source=found.reason)
    name = Path(artifacts.source_path).name if artifacts.source_path else "the source"
    return BlockShape(*found.dims, source=f"the launch at {name}:{found.line}")


__all__ = ["LaunchShape", "launch_shape", "launched_block"]
