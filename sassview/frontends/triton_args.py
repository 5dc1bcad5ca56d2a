"""Declaring a Triton kernel by the arguments a launch would pass, not by its signature.

`sv.triton(kernel, args=dict(x=sv.tensor("fp16", shape=(M, K)), stride_xk=1, M=4096, BLOCK=128))`
gives what a launch gives; the signature, the `tt.divisibility=16` attributes and the constexprs
(ints equal to 1, None, `tl.constexpr` parameters) come out exactly as Triton's JIT derives them,
because they are derived by Triton's own binder (`create_function_from_signature`, the function a
launch calls) on these values, for the target's backend. Nothing here re-implements the rules,
so `do_not_specialize`, annotations (`x: "*fp16"`, `n: "i32"`) and Triton's next change are
followed as a launch follows them.

A `TensorSpec` stands in for a tensor: it has what the binder and `TensorDescriptor` read (a
dtype with a name, an item size and floatness; `data_ptr()`, `shape`, `stride()`). Its
`data_ptr()` is an address aligned to `align` bytes and no more, so `align=8` is a pointer that
is not promised 16-byte aligned. Torch tensors (CPU or meta: a meta tensor's address is 0, so
aligned) and Triton's `TensorDescriptor` are passed through as they are.

How it can be wrong: a real launch's pointer alignment and int values decide; an example is
only as true as the values the user wrote.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sassview.errors import InputError

# Triton's element type names and their sizes in bytes (torch spellings accepted as aliases).
_ITEM_SIZES = {
    "u1": 1, "i8": 1, "u8": 1, "fp8e4nv": 1, "fp8e5": 1, "fp8e4b15": 1, "fp8e4b8": 1,
    "fp8e5b16": 1, "i16": 2, "u16": 2, "fp16": 2, "bf16": 2, "i32": 4, "u32": 4, "fp32": 4,
    "i64": 8, "u64": 8, "fp64": 8,
}  # fmt: skip
_ALIASES = {
    "bool": "u1", "int8": "i8", "uint8": "u8", "int16": "i16", "int32": "i32", "int64": "i64",
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32", "float": "fp32",
    "float64": "fp64", "double": "fp64", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
}  # fmt: skip
_ADDRESS = 1 << 32  # where example tensors pretend to live; the alignment is added to it


@dataclass(frozen=True, slots=True)
class ElementType:
    """What Triton reads of a tensor's dtype: `str()` (canonicalized by name), `itemsize`,
    `is_floating_point` (TensorDescriptor's checks)."""

    name: str

    @property
    def itemsize(self) -> int:
        return _ITEM_SIZES[self.name]

    @property
    def is_floating_point(self) -> bool:
        return self.name.startswith(("fp", "bf"))

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class TensorSpec:
    """An example tensor: element type, shape, strides (row-major by default) and the alignment
    of its address in bytes."""

    dtype: ElementType
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    align: int = 16

    def data_ptr(self) -> int:
        return _ADDRESS + self.align  # a multiple of `align`, not of 2 * align

    def stride(self, dim: int | None = None) -> Any:
        return self.strides if dim is None else self.strides[dim]

    def element_size(self) -> int:  # torch's name, which prune functions call
        return self.dtype.itemsize

    def numel(self) -> int:
        return math.prod(self.shape)

    def __str__(self) -> str:  # what labels and `check` show: fp16[4096, 512]
        dims = ", ".join(map(str, self.shape))
        extra = "" if self.align >= 16 else f" align={self.align}"
        if self.strides != _row_major(self.shape):
            extra += f" strides={list(self.strides)}"
        return f"{self.dtype}[{dims}]{extra}"


def tensor(
    dtype: str,
    shape: Sequence[int] = (1,),
    *,
    strides: Sequence[int] | None = None,
    align: int = 16,
) -> TensorSpec:
    """An example tensor for `sv.triton(..., args=...)`: `sv.tensor("fp16", shape=(M, K))`.
    `align` is its address' alignment in bytes (16: Triton's divisibility promise holds)."""
    name = _ALIASES.get(str(dtype).rsplit(".", 1)[-1], str(dtype).rsplit(".", 1)[-1])
    if name not in _ITEM_SIZES:
        raise InputError(
            f"sv.tensor: {dtype!r} is not an element type",
            "use one of " + ", ".join(_ITEM_SIZES),
        )
    dims = tuple(int(d) for d in shape)
    if not dims or any(d < 1 for d in dims):
        raise InputError(f"sv.tensor: shape {tuple(shape)} is not a shape", "give sizes >= 1")
    steps = tuple(int(s) for s in strides) if strides is not None else _row_major(dims)
    if len(steps) != len(dims):
        raise InputError(
            f"sv.tensor: {len(steps)} strides for {len(dims)} dimensions", "give one per dimension"
        )
    if align < 1 or align & (align - 1):
        raise InputError(f"sv.tensor: align={align} is not a power of two", "e.g. align=16")
    return TensorSpec(ElementType(name), dims, steps, align)


def tensor_descriptor(
    base: Any,
    block_shape: Sequence[int],
    *,
    shape: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    padding: str = "zero",
) -> Any:
    """Triton's host-side `TensorDescriptor` over an example tensor (or a torch tensor), the way
    a launch builds one with `TensorDescriptor.from_tensor`: the kernel's parameter becomes
    `tensordesc<fp16[64, 64]>`. Triton's own checks run (16-byte strides, contiguous last dim)."""
    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:
        raise InputError(
            "sv.tensor_descriptor needs Triton's TensorDescriptor", "pip install triton"
        ) from None
    dims = list(shape if shape is not None else base.shape)
    steps = list(strides if strides is not None else base.stride())
    try:
        return TensorDescriptor(base, dims, steps, list(block_shape), padding)
    except (AssertionError, ValueError) as exc:
        raise InputError(
            f"Triton refuses this tensor descriptor: {exc or 'a check failed'}",
            "the base must be 16-byte aligned, every stride but the last a multiple of 16"
            " bytes, the last 1",
        ) from None


@dataclass(frozen=True, slots=True)
class Specialization:
    """What a launch on these arguments compiles: the signature, constexpr values (declared
    `tl.constexpr` ones, ints equal to 1, None) and the parameters given `tt.divisibility=16`."""

    signature: dict[str, str]
    constexprs: dict[str, Any]
    divisibility: tuple[str, ...]


def specialize(fn: Any, values: Mapping[str, Any], cc: int) -> Specialization:
    """Run Triton's launch-time binder on `values` for the backend of compute capability `cc`
    (`fn` is the @triton.jit function)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    _check_names(fn, values)
    backend = make_backend(GPUTarget("cuda", cc, 32))
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    try:
        bound, specialization, _ = binder(**values)
    except TypeError as exc:  # an argument Triton cannot specialize ("failed to specialize")
        raise InputError(
            f"{fn.__name__}: Triton cannot take these arguments: {exc}",
            "pass sv.tensor(...), ints, floats, bools, None or sv.tensor_descriptor(...)",
        ) from None
    signature: dict[str, str] = {}
    constexprs: dict[str, Any] = {}
    divisibility: list[str] = []
    for name, (ty, key) in zip(bound, specialization, strict=True):
        if isinstance(ty, tuple):
            raise InputError(
                f"{fn.__name__}: argument {name!r} is a tuple; tuples by example are not"
                " supported yet",
                "declare this kernel with signature= (and constexprs=) instead",
            )
        if ty == "constexpr":
            constexprs[name] = bound[name]
            continue
        signature[name] = ty
        if isinstance(key, str) and ["tt.divisibility", 16] in backend.parse_attr(key):
            divisibility.append(name)
    return Specialization(signature, constexprs, tuple(divisibility))


def _check_names(fn: Any, values: Mapping[str, Any]) -> None:
    """Unknown and missing arguments by name, before Triton's binder says it its own way."""
    names = list(fn.arg_names)
    unknown = [k for k in values if k not in names]
    if unknown:
        raise InputError(
            f"{fn.__name__} has no parameter {unknown[0]!r}", "its parameters: " + ", ".join(names)
        )
    missing = [p.name for p in fn.params if p.name not in values and not p.has_default]
    if missing:
        raise InputError(
            f"{fn.__name__}: args gives no value for " + ", ".join(missing),
            "give every parameter a launch passes (constexprs from autotune configs and"
            " @triton.heuristics are added per variant)",
        )


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))


def unit_stride_settings(settings: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A Triton declaration's settings with the parameter `name` passed as 1, as a launch with
    a contiguous tensor passes it: in `args=` its value 1, else out of the signature and
    divisibility and into the constexprs (what Triton makes of an int equal to 1)."""
    if settings.get("args") is not None:
        return {"args": {**settings["args"], name: 1}}
    return {
        "signature": {k: v for k, v in settings.get("signature", {}).items() if k != name},
        "constexprs": {**settings.get("constexprs", {}), name: 1},
        "divisibility": tuple(d for d in settings.get("divisibility", ()) if d != name),
    }
