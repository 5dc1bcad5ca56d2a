"""Short, readable names for CuTe DSL kernels: `ew_kernel<f32, 16x128>`, not the symbol.

The DSL names a kernel `kernel_cutlass_<function>_<str(arg) of every argument, punctuation
dropped>_<n>`, cut at 180 characters: `kernel_cutlass_ew_kernel_tensorptrf32gmemalign16o16128
div41div64128_tensorptrf32...`. The text cannot be read back (`o16128` was `(16,128)`), so the
names are made while the DSL mangles, from the same function name and arguments
(`record_names`), and kept beside the cubin:

    <function>                     the Python function; `Class.method` for a kernel method
    <dtypes, tile, mma, k=v>       the element types of its global-memory tensors, in order;
                                   the first static tile of those tensors (the leading mode of a
                                   `zipped_divide`d tensor, or a static shape); a tiled MMA's
                                   atom shape; integer and boolean arguments (compile-time
                                   constants) by name

Two kernels of one program that would read alike get `#2`, `#3` in order. The symbol itself
stays the kernel's `name` (the JSON's `name`, the header's `symbol` line).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

_GMEM_DTYPE = re.compile(r"ptr<(\w+), gmem")
_MMA_SHAPE = re.compile(r"Shape MNK:\s*\(([\d,\s]+)\)")
_MAX_CONSTANTS = 3


def short_name(function: str, params: list[str], args: tuple[Any, ...]) -> str:
    """`function<specialization>` from one call the DSL mangles."""
    if params and params[0] == "self" and args:
        function = f"{type(args[0]).__name__}.{function}"
        params, args = params[1:], args[1:]
    dtypes: list[str] = []
    tile = mma = ""
    constants: list[str] = []
    for param, arg in zip(params, args, strict=False):
        text = str(arg)
        dtype = _GMEM_DTYPE.search(text)
        if dtype:
            dtypes += [dtype.group(1)] if dtype.group(1) not in dtypes else []
            tile = tile or _static_tile(text)
        elif shape := _MMA_SHAPE.search(text):
            mma = mma or "mma " + "x".join(s.strip() for s in shape.group(1).split(","))
        elif isinstance(arg, (bool, int)) and len(constants) < _MAX_CONSTANTS:
            constants.append(f"{param}={arg}")
    parts = [", ".join(dtypes)] if dtypes else []
    parts += [p for p in (tile, mma) if p] + constants
    return f"{function}<{', '.join(parts)}>" if parts else function


def _static_tile(tensor: str) -> str:
    """`16x128` from `tensor<ptr<...> o ((16,128),(?,?)):(...)>`, `4096` from `... o 4096:1>`;
    "" when the leading mode is not known at compile time."""
    layout = tensor.split(" o ", 1)[-1]
    shape = layout.split(":", 1)[0]
    if shape.startswith("(("):  # a tiled tensor: the tile is its first mode
        first = shape[2 : shape.find(")")]
    elif shape.startswith("("):
        first = shape[1:].split(",", 1)[0].rstrip(")")
    else:
        first = shape
    numbers = [n.strip() for n in first.split(",")]
    return "x".join(numbers) if all(n.isdigit() for n in numbers) else ""


@contextlib.contextmanager
def record_names(dsl: Any, out: dict[str, str]) -> Iterator[None]:
    """While the DSL compiles, every name it mangles -> its short name, into `out`."""
    import inspect

    mangle = getattr(dsl, "mangle_name", None)
    if mangle is None:  # another DSL version: the symbols stay as they are
        yield
        return

    def recording(function_name: str, args: tuple[Any, ...], signature: Any) -> str:
        mangled = str(mangle(function_name, args, signature))
        with contextlib.suppress(Exception):  # a name is a nicety, never a failed compile
            params = list(getattr(signature, "parameters", {}) or {})
            if not isinstance(signature, inspect.Signature):
                params = []
            out[mangled] = short_name(function_name, params, tuple(args))
        return mangled

    dsl.mangle_name = recording
    try:
        yield
    finally:
        with contextlib.suppress(AttributeError):
            del dsl.mangle_name  # the class's method again


def names_json(recorded: dict[str, str], symbols: list[str]) -> str:
    """{symbol: short name} for the kernels (PTX .entry names) whose mangled name was
    recorded; repeats numbered `#2`, `#3`."""
    out: dict[str, str] = {}
    for symbol in symbols:
        found = [m for m in recorded if m and m in symbol]
        if found:
            out[symbol] = recorded[max(found, key=len)]
    seen: dict[str, int] = {}
    for symbol, name in out.items():
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            out[symbol] = f"{name}#{seen[name]}"
    return json.dumps(out, sort_keys=True)
