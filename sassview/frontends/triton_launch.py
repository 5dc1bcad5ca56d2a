"""What a Triton kernel's own module says about its launch: the types of the arguments at
`kernel[grid](...)`, for the declaration sassview suggests (frontends/specs/triton.py).

A @triton.jit function says nothing of what a launch passes: a pointer's element type is the
tensor's. The module that launches it often states it, in the function that launches:
`c = torch.empty((M, N), device=a.device, dtype=torch.float16)` then `kernel[grid](a, b, c,
...)`; or one call level up, where that function is called on tensors made with a dtype
(`a = torch.randn(..., dtype=torch.float16); matmul(a, b)`). This reads the module's source
(ast; nothing runs) for those statements and maps each launch argument to the kernel's
parameter. A tensor whose dtype the module does not state (a library's wrapper, called from
elsewhere) stays unknown; so does one with two dtypes at two call sites (the tutorial matmul's
fp16 and fp8): the suggestion asks for those rather than picking one.

How it can be wrong: a name re-bound between its assignment and the launch (`a = a.to(...)`
in a branch) is read as the first dtype stated for it in the function; a launch through an
alias of the kernel's name is not found. Either leaves the type unknown or as stated in the
source, never invented.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# torch dtype names -> Triton element types (the pointer's type is "*" + it)
_TRITON = {
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32", "float": "fp32",
    "float64": "fp64", "double": "fp64", "int8": "i8", "uint8": "u8", "int16": "i16",
    "int32": "i32", "int": "i32", "int64": "i64", "long": "i64", "bool": "i1",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
}  # fmt: skip
_MAKERS = ("empty", "zeros", "ones", "full", "randn", "rand", "randint", "empty_strided", "arange")
_LIKE = ("empty_like", "zeros_like", "ones_like", "full_like", "randn_like", "rand_like")


@dataclass
class LaunchArg:
    """What the launch passes for one parameter: its Triton pointer type where stated,
    the dtypes seen (more than one: unknown), the expression, a stride's tensor and axis."""

    expression: str
    literal: str | None = None  # the value's repr when the launch writes a constant
    dtypes: set[str] = field(default_factory=set)
    stride_of: tuple[str, str] | None = None  # ("a", "1") for a.stride(1)


@dataclass
class Launch:
    line: int  # of the kernel[grid](...) call, in `file`
    file: str
    args: dict[str, LaunchArg]

    def pointer_type(self, param: str) -> str | None:
        found = self.args.get(param)
        if found is not None and len(found.dtypes) == 1:
            return "*" + next(iter(found.dtypes))
        return None


def launch_of(jit: object, name: str) -> Launch | None:
    """The first `name[grid](...)` call in the module defining `jit`, read; None when the
    source cannot be read or there is no such call."""
    fn = getattr(jit, "fn", None)
    try:
        file = inspect.getsourcefile(fn) if fn is not None else None
        tree = ast.parse(Path(file).read_text(encoding="utf-8")) if file else None
    except (OSError, TypeError, SyntaxError, ValueError):
        return None
    if tree is None or file is None:
        return None
    params = list(getattr(jit, "arg_names", ()))
    names = {name, getattr(jit, "__name__", name)}
    for scope, call in _launches(tree, names):
        args = _bound(call, params)
        dtypes = _dtypes_in(scope)
        outer = _dtypes_from_callers(tree, scope)
        for arg in args.values():
            base = arg.expression
            if base in dtypes:
                arg.dtypes = {dtypes[base]}
            elif base in outer:
                arg.dtypes = set(outer[base])
        return Launch(call.lineno, file, args)
    return None


def _launches(tree: ast.AST, names: set[str]) -> Iterator[tuple[ast.AST, ast.Call]]:
    """(enclosing function or module, call) for each `kernel[grid](...)`."""
    scopes: list[ast.AST] = [tree]
    scopes += [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in reversed(scopes):  # innermost functions first; the module last
        for node in ast.walk(scope):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Subscript)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in names
            ):
                yield scope, node


def _bound(call: ast.Call, params: list[str]) -> dict[str, LaunchArg]:
    out: dict[str, LaunchArg] = {}
    pairs = list(zip(params, call.args, strict=False))
    pairs += [(k.arg, k.value) for k in call.keywords if k.arg in params]
    for param, value in pairs:
        arg = LaunchArg(ast.unparse(value))
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float, bool, str)):
            arg.literal = repr(value.value)
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "stride"
            and isinstance(value.func.value, ast.Name)
            and len(value.args) == 1
        ):
            arg.stride_of = (value.func.value.id, ast.unparse(value.args[0]))
        out[param] = arg
    return out


def _dtype_of(node: ast.AST | None) -> str | None:
    """`torch.float16` (or `tl.float16`, `torch.half`) -> "fp16"."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return _TRITON.get(node.attr)
    return None


def _dtypes_in(scope: ast.AST) -> dict[str, str]:
    """Names assigned, in this scope, a tensor whose dtype the statement states."""
    found: dict[str, str] = {}
    for node in ast.walk(scope):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and target.id not in found:
            dtype = _stated(value, found)
            if dtype is not None:
                found[target.id] = dtype
    return found


def _stated(value: ast.AST, known: dict[str, str]) -> str | None:
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    method = value.func.attr
    keyword = next((k.value for k in value.keywords if k.arg == "dtype"), None)
    if method in _MAKERS or method in _LIKE or method.startswith("new_"):
        if keyword is not None:
            return _dtype_of(keyword)
        base = value.args[0] if method in _LIKE and value.args else value.func.value
        if (method in _LIKE or method.startswith("new_")) and isinstance(base, ast.Name):
            return known.get(base.id)
        return None
    if method == "to" and value.args:
        return _dtype_of(value.args[0]) or (_dtype_of(keyword) if keyword is not None else None)
    return None


def _dtypes_from_callers(tree: ast.AST, scope: ast.AST) -> dict[str, set[str]]:
    """A launching function's parameters, typed by the calls to it in the module whose
    arguments have a stated dtype there (each call site's dtypes; two: unknown)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    params = [a.arg for a in scope.args.args]
    out: dict[str, set[str]] = {}
    callers = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]
    for caller in callers:
        if caller is scope:
            continue
        known = _dtypes_in(caller)
        for node in _own_calls(caller):
            if isinstance(node.func, ast.Name) and node.func.id == scope.name:
                for param, value in zip(params, node.args, strict=False):
                    if isinstance(value, ast.Name) and value.id in known:
                        out.setdefault(param, set()).add(known[value.id])
    return out


def _own_calls(scope: ast.AST) -> Iterator[ast.Call]:
    body = scope.body if isinstance(scope, (ast.Module, ast.FunctionDef)) else []
    for statement in body:
        if isinstance(statement, ast.FunctionDef) and scope is not statement:
            continue  # a nested function is its own caller
        yield from (n for n in ast.walk(statement) if isinstance(n, ast.Call))
