"""What decides a CuTe DSL compile, for its cache key: the user's source files, what the host
function closes over, a kernel object's attributes, and the arguments, each described by a name
or value that holds from one run to the next (None where nothing does: not cached)."""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

from sassview.memo import memoized


def qualified(function: Any) -> str:
    return f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', '')}"


def state_of(fn: Any) -> Any:
    """A kernel object's attributes (its tile sizes, dtypes, the arch it read when built): they
    decide the compiled code as much as the arguments do. {} for a function; None when one is
    known only by its address (no key holds from one run to the next)."""
    owner = getattr(fn, "__self__", fn)  # a bound method's object, or the callable object
    if inspect.isfunction(owner) or inspect.ismodule(owner) or not hasattr(owner, "__dict__"):
        return {}
    attributes: dict[str, Any] = {}
    for k, v in vars(owner).items():
        if k.startswith("__"):
            continue
        if inspect.isfunction(inspect.unwrap(v) if callable(v) else v):
            attributes[k] = qualified(inspect.unwrap(v))  # a score_mod: its code is in a file
        elif " at 0x" in repr(v):
            return None
        else:
            attributes[k] = describe(v, {})
    return {"class": qualified(type(owner)), "attributes": attributes}


def function_of(fn: Any) -> Any:
    """The Python function behind a @cute.jit function, bound method or callable object."""
    target = inspect.unwrap(fn)
    if not hasattr(target, "__code__") and callable(target):
        target = inspect.unwrap(type(target).__call__)
    return getattr(target, "__func__", target)


@memoized(2)
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots.add(str(Path(__file__).resolve().parents[1]))  # sassview itself
    roots.add(sys.prefix)
    return tuple(str(Path(r).resolve()) + os.sep for r in roots)


def is_user_file(path: str) -> bool:
    if not path or path.startswith("<"):
        return False
    return not str(Path(path).resolve()).startswith(_library_roots())


def user_files(fn: Any) -> dict[str, bytes]:
    """The files whose text decides the compile: the host function's and those of the user code it
    can call by a global name (functions, @cute.kernel/@cute.jit objects, user modules' functions).

    The whole file counts, not just the function: the line table records absolute line numbers.
    Code reached only through deeper imports is not followed.
    """
    root = function_of(fn)
    paths = {root.__code__.co_filename}
    closed = _closed_values(root)
    for value in [*getattr(root, "__globals__", {}).values(), *closed]:
        if isinstance(value, ModuleType):  # a user's module of kernels, not a library
            user_module = is_user_file(str(getattr(value, "__file__", None) or ""))
            candidates: Any = vars(value).values() if user_module else ()
        else:
            candidates = (value,)
        for c in list(candidates):
            try:
                code = getattr(inspect.unwrap(c), "__code__", None) if callable(c) else None
            except Exception:  # an object whose attributes cannot be read is no user code
                continue
            if code is not None and is_user_file(code.co_filename):
                paths.add(code.co_filename)
    out: dict[str, bytes] = {}
    for p in sorted(paths):
        with contextlib.suppress(OSError):
            out[p] = Path(p).read_bytes()
    return out


def _closed_values(function: Any) -> list[Any]:
    """The values in a function's closure (the cells already filled)."""
    out = []
    for cell in getattr(function, "__closure__", None) or ():
        with contextlib.suppress(ValueError):  # a cell not yet filled
            out.append(cell.cell_contents)
    return out


def closure_of(fn: Any, depth: int = 0) -> Any:
    """What the host function closes over, as far as it decides the compile. A factory's hosts
    (`def make(kern): @cute.jit def host(...): kern(...).launch(...)`) differ from each other
    only here: their code, name and file are one. A function or kernel is named by module and
    qualified name, with its own closure (its code is in the key through its file,
    `_user_files`); a value as `_describe` describes arguments. None when something has no
    name that holds from one run to the next (an object known only by its address): the
    compile is then not cached."""
    target = function_of(fn)
    code = getattr(target, "__code__", None)
    if code is None or depth > 8:
        return None if depth > 8 else {}
    out: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, target.__closure__ or (), strict=False):
        try:
            value = cell.cell_contents
        except ValueError:  # not yet filled
            out[name] = "<empty>"
            continue
        inner = inspect.unwrap(value) if callable(value) else None
        if inspect.isfunction(inner):
            nested = closure_of(inner, depth + 1)
            if nested is None:
                return None
            # Not its line: the DSL rewrites a kernel's code when it compiles it.
            out[name] = {"function": f"{inner.__module__}.{inner.__qualname__}", "closure": nested}
            continue
        described = describe(value, {})
        if isinstance(described, str) and " at 0x" in repr(value):
            return None
        out[name] = described
    return out


def describe(value: Any, symbols: dict[int, int]) -> Any:
    """A JSON-able description of an argument that decides the compiled code.

    Fake and real tensors by dtype, shape, stride, memory space, alignment; a SymInt by width,
    divisibility and identity (the same SymInt object twice is one runtime parameter, two equal
    ones are two), numbered in order of appearance.
    """
    from cutlass.cute.typing import SymInt

    if isinstance(value, SymInt):
        number = symbols.setdefault(id(value), len(symbols))
        return f"sym#{number}:i{value.width}:div{value.divisibility}:{value.symbol}"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [describe(v, symbols) for v in value]
    if isinstance(value, dict):
        return {str(k): describe(v, symbols) for k, v in sorted(value.items())}
    if hasattr(value, "element_type") and hasattr(value, "shape"):
        return {
            "type": type(value).__name__,
            "dtype": str(value.element_type),
            "shape": describe(tuple(value.shape), symbols),
            "stride": describe(tuple(getattr(value, "stride", ())), symbols),
            "memspace": str(getattr(value, "memspace", "")),
            "align": repr(getattr(value, "_assumed_align", None)),
            "stride32": repr(getattr(value, "_use_32bit_stride", None)),
        }
    text = repr(value)
    return type(value).__qualname__ if " at 0x" in text else text
