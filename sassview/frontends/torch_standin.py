"""What the stand-in for torch holds (frontends/no_torch.py installs it): the part of torch that
production kernel libraries touch while they are imported, answered as a machine with no device
answers it.

Libraries probe devices at import (`torch.cuda.is_available()`, `device_count()`,
`hasattr(torch, "mlu")` to pick a vendor), wrap their launchers in decorators
(`torch.library.custom_op` and its `register_fake`, `torch.compile`, `torch.jit.script`,
`torch.amp.custom_fwd`), build dtype tables (`{torch.float16: tl.float16}`, `torch.finfo(...)`),
subclass `torch.nn.Module`, `torch.autograd.Function` and `torch.Tensor`, and compare
`torch.__version__`. Each of those gets a real answer here: no device of any vendor (so no
`torch.mlu`, `torch.xpu`, `torch.npu`, `torch.hpu` attribute: `hasattr` is False, and a library
never decides it runs on another vendor's device), decorators that return what they decorate,
dtypes with their sizes and limits. Everything else is a placeholder class (`_Placeholder`):
usable in annotations, `isinstance` and as a base class, but a call raises `TorchMissing`
naming the line, since a call (`torch.randn`, `torch.empty`, `torch.cuda.current_device()`)
computes or needs a device, which compiling does not have.

How it can be wrong: a library that branches on a version or a probe gets the no-device,
recent-torch branch (`__version__` below). A placeholder's attribute is always there, so
`hasattr(torch.library, "x")` is True for any x but the vendor names.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

# A recent release's number: libraries gate newer APIs (torch.library.custom_op, 2.4) on it.
VERSION = "2.9.0+sassview.stand.in"

# Device back-ends of other vendors that libraries probe by attribute: absent, as from a CUDA
# build of torch on a machine with no device (their own torch_<vendor> package adds them).
VENDORS = frozenset({"mlu", "xpu", "npu", "hpu", "musa", "dipu", "gcu", "sdaa", "ipu", "mtia"})


class TorchMissing(ModuleNotFoundError):
    """A call into the stand-in: the code needs the real torch (`where` is file:line)."""

    def __init__(self, what: str, where: str) -> None:
        super().__init__(f"{what} is called at {where}, but torch is not installed", name="torch")
        self.what, self.where = what, where


class VendorAbsent(AttributeError):
    """`torch.<vendor>` read outside `hasattr`: the stand-in has no device of any vendor."""

    def __init__(self, name: str, where: str) -> None:
        super().__init__(f"module 'torch' has no attribute {name!r}")
        self.what, self.where = f"torch.{name}", where


def _frameworks() -> tuple[str, ...]:
    return ("sassview", "importlib", "triton", "cutlass", "cuda", "functools")


def caller() -> str:
    """file:line of the code that called into the stand-in: the innermost frame that is not
    sassview's, Python's import machinery, or a kernel framework's (a library's line, not
    the kernel file's `import` of that library)."""
    frame = sys._getframe(1)
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        top = module.split(".")[0]
        if not frame.f_code.co_filename.startswith("<frozen") and top not in _frameworks():
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return "?"


class _Placeholder(type):
    """The class of every stand-in name torch has and this module does not answer: its
    attributes are more placeholders (assignable: `torch.backends.cuda.matmul.allow_tf32 =
    True`), subscripting gives itself (`torch.Tensor[...]`), a call raises."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return placeholder(f"{cls.__qualname__}.{name}")

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TorchMissing(f"{cls.__qualname__}()", caller())

    def __getitem__(cls, item: Any) -> Any:
        return cls


_MADE: dict[str, _Placeholder] = {}  # state, not a memo: one class per name, so `is` holds


def placeholder(name: str) -> _Placeholder:
    if name not in _MADE:
        _MADE[name] = _Placeholder(name, (), {"__qualname__": name, "__module__": "torch"})
    return _MADE[name]


# -- dtypes -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Limits:
    bits: int
    max: float
    min: float
    eps: float = 0.0
    tiny: float = 0.0

    @property
    def smallest_normal(self) -> float:
        return self.tiny

    @property
    def resolution(self) -> float:
        return self.eps


class dtype:  # noqa: N801 -- torch's name
    """A torch dtype: `torch.float16` (its str), `itemsize`, `is_floating_point`, `is_signed`."""

    __slots__ = ("name", "itemsize", "is_floating_point", "is_signed", "_limits")

    def __init__(self, name: str, itemsize: int, floating: bool, signed: bool, limits: _Limits):
        self.name, self.itemsize, self.is_floating_point = name, itemsize, floating
        self.is_signed, self._limits = signed, limits

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("complex")

    def to_real(self) -> dtype:
        return self

    def __repr__(self) -> str:
        return f"torch.{self.name}"


_F64 = sys.float_info
_DTYPES = {
    "float16": (2, True, True, _Limits(16, 65504.0, -65504.0, 2.0**-10, 2.0**-14)),
    "bfloat16": (2, True, True, _Limits(16, 3.3895313892515355e38, -3.3895313892515355e38,
                                         2.0**-7, 1.1754943508222875e-38)),
    "float32": (4, True, True, _Limits(32, 3.4028234663852886e38, -3.4028234663852886e38,
                                        2.0**-23, 2.0**-126)),
    "float64": (8, True, True, _Limits(64, _F64.max, -_F64.max, _F64.epsilon, _F64.min)),
    "float8_e4m3fn": (1, True, True, _Limits(8, 448.0, -448.0, 0.125, 2.0**-6)),
    "float8_e5m2": (1, True, True, _Limits(8, 57344.0, -57344.0, 0.25, 2.0**-14)),
    "float8_e4m3fnuz": (1, True, True, _Limits(8, 240.0, -240.0, 0.125, 2.0**-7)),
    "float8_e5m2fnuz": (1, True, True, _Limits(8, 57344.0, -57344.0, 0.125, 2.0**-15)),
    "int8": (1, False, True, _Limits(8, 127, -128)),
    "uint8": (1, False, False, _Limits(8, 255, 0)),
    "int16": (2, False, True, _Limits(16, 32767, -32768)),
    "uint16": (2, False, False, _Limits(16, 65535, 0)),
    "int32": (4, False, True, _Limits(32, 2**31 - 1, -(2**31))),
    "uint32": (4, False, False, _Limits(32, 2**32 - 1, 0)),
    "int64": (8, False, True, _Limits(64, 2**63 - 1, -(2**63))),
    "uint64": (8, False, False, _Limits(64, 2**64 - 1, 0)),
    "bool": (1, False, False, _Limits(8, 1, 0)),
    "complex64": (8, False, True, _Limits(32, 0.0, 0.0)),
    "complex128": (16, False, True, _Limits(64, 0.0, 0.0)),
}  # fmt: skip
DTYPES = {name: dtype(name, *spec) for name, spec in _DTYPES.items()}
_ALIASES = {
    "half": "float16", "float": "float32", "double": "float64", "short": "int16",
    "int": "int32", "long": "int64", "cfloat": "complex64", "cdouble": "complex128",
}  # fmt: skip


def _info(kind: str, floating: bool) -> Callable[..., _Limits]:
    def info(of: Any = None) -> _Limits:
        of = DTYPES["float32"] if of is None and floating else of
        if not isinstance(of, dtype) or of.is_floating_point != floating:
            wanted = "a floating point" if floating else "an integer"
            raise TypeError(f"torch.{kind}() requires {wanted} input type")
        return of._limits

    info.__name__ = kind
    return info


class Size(tuple[int, ...]):
    """torch.Size: a tuple of ints."""


class device:  # noqa: N801 -- torch's name
    """torch.device("cuda:0"): a value, made at import by many libraries; needs no device."""

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002
        kind = str(getattr(type, "type", type))
        if ":" in kind:
            kind, number = kind.split(":", 1)
            index = int(number)
        self.type, self.index = kind, index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        return f"device(type={self.type!r}" + (
            f", index={self.index})" if self.index is not None else ")"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


# -- decorators and modes ---------------------------------------------------------------------


def passthrough(*args: Any, **kwargs: Any) -> Any:
    """A decorator used bare (`@torch.compile`) or with arguments (`@torch.compile(mode=...)`,
    `@torch.library.register_fake("lib::op")`): returns the function it decorates."""
    functions = [a for a in args if callable(a) and not isinstance(a, (str, dtype))]
    if functions and not kwargs or len(args) == 1 and callable(args[0]):
        return functions[0] if functions else args[0]
    return _identity


def _identity(fn: Any) -> Any:
    return fn


class CustomOp:
    """What `torch.library.custom_op` makes of a function: callable as the function, with the
    registration methods libraries call on it at import (`register_fake` as a decorator)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fn)
        self._fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def register_fake(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return fn

    def register_kernel(self, *args: Any, **kwargs: Any) -> Any:
        return passthrough(*args, **kwargs)

    def register_autograd(self, *args: Any, **kwargs: Any) -> None:
        return None

    def register_torch_dispatch(self, *args: Any, **kwargs: Any) -> Any:
        return passthrough(*args, **kwargs)

    def register_vmap(self, *args: Any, **kwargs: Any) -> Any:
        return passthrough(*args, **kwargs)


def custom_op(name: Any, fn: Any = None, /, **kwargs: Any) -> Any:
    """`torch.library.custom_op("lib::op", mutates_args=())` as a decorator, or with `fn`."""
    if callable(name):  # custom_op(fn): torch names it itself
        return CustomOp(name)
    return CustomOp(fn) if fn is not None else CustomOp


class Library:
    """`torch.library.Library("lib", "DEF")`: definitions and impls registered at import."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def define(self, *args: Any, **kwargs: Any) -> str:
        return str(args[0]) if args else ""

    def impl(self, *args: Any, **kwargs: Any) -> Any:
        return passthrough(*args[2:], **kwargs) if len(args) > 2 else _identity

    def _register_fake(self, *args: Any, **kwargs: Any) -> Any:
        return _identity


class Mode:
    """`torch.no_grad`, `torch.autocast`, ...: a context manager and a decorator, bare or not."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], (str, dtype)):
            return args[0]  # @torch.no_grad without parentheses
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> Mode:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, fn: Any) -> Any:
        return fn


def _const(value: Any) -> Callable[..., Any]:
    def answer(*args: Any, **kwargs: Any) -> Any:
        return value

    return answer


_NO = _const(False)
_NOTHING = _const(None)


def _tensor_class(name: str) -> type:
    """torch.Tensor, nn.Module, autograd.Function, ...: placeholder classes (subclassable; a
    subclass's instance cannot be made, since making one computes)."""
    return placeholder(name)


def contents(module: str) -> dict[str, Any]:
    """The answered names of stand-in module `module` ("torch", "torch.cuda", ...)."""
    table = _TABLES.get(module)
    return dict(table()) if table is not None else {}


def _torch() -> dict[str, Any]:
    found: dict[str, Any] = {**DTYPES, **{a: DTYPES[t] for a, t in _ALIASES.items()}}
    found.update(
        __version__=VERSION, dtype=dtype, finfo=_info("finfo", True), iinfo=_info("iinfo", False),
        Size=Size, device=device, Tensor=_tensor_class("torch.Tensor"), compile=passthrough,
        no_grad=Mode, enable_grad=Mode, inference_mode=Mode, autocast=Mode,
        set_grad_enabled=Mode, manual_seed=_NOTHING, set_float32_matmul_precision=_NOTHING,
        set_default_dtype=_NOTHING, get_default_dtype=_const(DTYPES["float32"]),
        is_grad_enabled=_NO, is_tensor=lambda obj: isinstance(obj, found["Tensor"]),
        is_floating_point=lambda obj: bool(getattr(getattr(obj, "dtype", None),
                                                   "is_floating_point", False)),
        get_float32_matmul_precision=_const("highest"), _assert=_NOTHING,
    )  # fmt: skip
    return found


_TABLES: dict[str, Callable[[], dict[str, Any]]] = {
    "torch": _torch,
    "torch.version": lambda: {"__version__": VERSION, "cuda": None, "hip": None,
                              "git_version": "", "debug": False},
    "torch.cuda": lambda: {"is_available": _NO, "device_count": _const(0),
                           "is_bf16_supported": _NO, "is_initialized": _NO},
    "torch.cuda.amp": lambda: {"custom_fwd": passthrough, "custom_bwd": passthrough,
                               "autocast": Mode},
    "torch.amp": lambda: {"custom_fwd": passthrough, "custom_bwd": passthrough,
                          "autocast": Mode},
    "torch.backends.mps": lambda: {"is_available": _NO, "is_built": _NO},
    "torch.backends.cuda": lambda: {"is_built": _NO},
    "torch.backends.cudnn": lambda: {"is_available": _NO},
    "torch.library": lambda: {"custom_op": custom_op, "triton_op": custom_op,
                              "register_fake": passthrough, "impl_abstract": passthrough,
                              "register_kernel": passthrough, "impl": passthrough,
                              "register_autograd": _NOTHING, "define": _NOTHING,
                              "wrap_triton": _identity, "Library": Library},
    "torch.jit": lambda: {"script": passthrough, "ignore": passthrough, "unused": passthrough,
                          "export": passthrough, "is_scripting": _NO, "is_tracing": _NO,
                          "annotate": lambda kind, value: value},
    "torch.nn": lambda: {"Module": _tensor_class("torch.nn.Module"),
                         "Parameter": _tensor_class("torch.nn.Parameter")},
    "torch.autograd": lambda: {"Function": _tensor_class("torch.autograd.Function")},
    "torch.autograd.function": lambda: {"Function": _tensor_class("torch.autograd.Function"),
                                        "once_differentiable": passthrough},
    "torch._dynamo": lambda: {"disable": passthrough, "allow_in_graph": passthrough,
                              "is_compiling": _NO, "assume_constant_result": passthrough},
    "torch.compiler": lambda: {"disable": passthrough, "allow_in_graph": passthrough,
                               "is_compiling": _NO, "is_dynamo_compiling": _NO,
                               "assume_constant_result": passthrough},
    "torch.distributed": lambda: {"is_available": _NO, "is_initialized": _NO},
    "torch.fx": lambda: {"wrap": passthrough},
}  # fmt: skip


# Stand-in modules that answer names (and those above them: torch.backends): `torch.cuda` is
# a module even where only `import torch` ran, as in torch.
SUBMODULES = frozenset(
    ".".join(name.split(".")[: i + 1]) for name in _TABLES for i in range(name.count(".") + 1)
)


def module_attribute(module: ModuleType, name: str) -> Any:
    """A name the stand-in module does not hold: a submodule (imported, as torch's own
    `__init__` imports them), a placeholder, or none for a vendor's device back-end (so
    `hasattr(torch, "mlu")` is False)."""
    if name.startswith("__"):
        raise AttributeError(name)
    if module.__name__ == "torch" and name in VENDORS:
        raise VendorAbsent(name, caller())
    full = f"{module.__name__}.{name}"
    if full in SUBMODULES:
        return importlib.import_module(full)
    return placeholder(full)
