"""Kernel files that import torch, on a machine without torch.

Compiling needs no torch: the CuTe DSL imports without it (only `cutlass.torch` and
`cutlass.utils.gemm.tensor_utils` need it) and its fake tensors
(`cute.runtime.make_fake_compact_tensor`) stand for real ones. Yet kernel code often imports
torch at module level for its annotations alone (`def run(x: torch.Tensor)`), and that import
is all that stops it.

So when a kernel file fails to import only because torch is missing, it is run once more with
a stand-in for torch: a module whose every attribute is a placeholder class (so annotations,
`Optional[torch.Tensor]` and `isinstance(x, torch.Tensor)` work), and whose every call raises.
If that run succeeds, torch was only named, and the kernels compile without it. If the code
calls torch (`torch.empty(...)` to build its arguments), the error names the line and the way
out. The stand-in is visible only while the file runs: nothing imported later (the DSL's
`from_dlpack`, a user's lazy `import torch`) mistakes it for torch.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from sassview.errors import InputError

log = logging.getLogger("sassview")

WAY_OUT = (
    "compiling needs no torch: import it for types only under `if TYPE_CHECKING:` (from "
    "typing), declare the kernels with the DSL's fake tensors "
    "(`cute.runtime.make_fake_compact_tensor(cutlass.Float16, (M, N), assumed_align=16)`) "
    "instead of torch tensors, or pip install torch"
)


class TorchNeeded(InputError):
    """The kernel file calls torch, and torch is not installed."""


class TorchMissing(ModuleNotFoundError):
    """A call into the torch stand-in: the code needs the real torch."""

    def __init__(self, what: str, where: str) -> None:
        super().__init__(f"{what} is called at {where}, but torch is not installed", name="torch")
        self.what, self.where = what, where


def torch_missing(exc: BaseException) -> bool:
    """Whether `exc` is the import of torch (or one of its modules) failing: torch is absent."""
    name = getattr(exc, "name", None) or ""
    return isinstance(exc, ModuleNotFoundError) and name.split(".")[0] == "torch"


def run_without_torch(run: Callable[[], None], path: Path) -> None:
    """`run()` (which executes the kernel file) once more with the stand-in for torch.

    Raises an InputError naming the line when the file calls torch."""
    try:
        with _stand_in_installed(path):
            run()
    except TorchMissing as exc:
        raise TorchNeeded(
            f"{path.name} calls torch ({exc.what} at {exc.where}), which is not installed",
            WAY_OUT,
        ) from None
    except ModuleNotFoundError as exc:
        if not torch_missing(exc):
            raise
        raise TorchNeeded(f"{path.name}: {exc}", WAY_OUT) from None
    log.info("%s imports torch for types only; imported without it (torch is not installed)", path)


def _caller(path: Path) -> str:
    """file:line of the innermost frame in the kernel file (else the innermost outside here)."""
    frame = sys._getframe(2)
    first = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    while frame is not None:
        if Path(frame.f_code.co_filename) == path:
            return f"{path.name}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return first


class _Placeholder(type):
    """The class of every stand-in attribute: attributes are more placeholders, a call fails."""

    _path: Path

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _placeholder(f"{cls.__qualname__}.{name}", cls._path)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TorchMissing(f"{cls.__qualname__}()", _caller(cls._path))

    def __getitem__(cls, item: Any) -> Any:  # torch.Tensor[...] in an annotation
        return cls


_MADE: dict[str, _Placeholder] = {}  # state, not a memo


def _placeholder(name: str, path: Path) -> _Placeholder:
    if name not in _MADE:
        made = _Placeholder(name, (), {"__qualname__": name, "__module__": "torch"})
        made._path = path
        _MADE[name] = made
    return _MADE[name]


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `torch` and every `torch.x` as a stand-in module."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def find_spec(self, fullname: str, target: Any = None, *args: Any) -> Any:
        if fullname.split(".")[0] != "torch":
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = ModuleType(spec.name, "a stand-in for torch (sassview: torch is not installed)")
        path = self.path

        def attribute(name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return _placeholder(f"{spec.name}.{name}", path)

        module.__getattr__ = attribute  # type: ignore[method-assign]
        module.__path__ = []
        return module

    def exec_module(self, module: ModuleType) -> None:
        pass


@contextlib.contextmanager
def _stand_in_installed(path: Path) -> Iterator[None]:
    """The stand-in while the block runs; after it, no module that imported it (a library's
    `cutlass.torch`, imported by the kernel file) is left for a later import to find."""
    finder = _Finder(path)
    before = {n: m for n, m in sys.modules.items() if n.split(".")[0] == "torch"}
    for name in before:
        del sys.modules[name]
    present = set(sys.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        stand_ins = [m for n, m in sys.modules.items() if n.split(".")[0] == "torch"]
        for name in [n for n in sys.modules if n.split(".")[0] == "torch"]:
            del sys.modules[name]
        for name in [n for n in sys.modules if n not in present]:
            module = sys.modules[name]
            if not name.startswith("sassview_kernels_") and _holds(module, stand_ins):
                del sys.modules[name]
        sys.modules.update(before)


def _holds(module: ModuleType, stand_ins: list[ModuleType]) -> bool:
    names = getattr(module, "__dict__", {})
    return any(v is m for v in list(names.values()) for m in stand_ins)
