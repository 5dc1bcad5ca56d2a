"""Kernel files that import torch, on a machine without torch.

Compiling needs no torch: Triton binds example arguments (`sv.tensor`), the CuTe DSL has fake
tensors (`cute.runtime.make_fake_compact_tensor`), cuTile takes array specs. Yet kernel code,
and the kernel libraries it imports, touch torch at import: for annotations
(`def run(x: torch.Tensor)`), device probes, `torch.library.custom_op` wrappers, dtype tables.
That import is all that stops it.

So when a kernel file fails to import only because torch is missing, it is run once more with
a stand-in for torch (frontends/torch_standin.py: no device, pass-through decorators, dtypes;
every other name a placeholder class whose call raises). If that run succeeds, torch was only
named or probed, and the kernels compile without it. If the code computes with torch
(`torch.randn(...)` at import), the error names the file and line of that call (a library's,
not the kernel file's `import`) and the way out in the words of the file's frontend. The
stand-in is visible only while the file runs: nothing imported later (the DSL's `from_dlpack`,
a user's lazy `import torch`) mistakes it for torch. Where torch is installed it is used as it
is, and this module is never reached.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.machinery
import logging
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from sassview.errors import InputError
from sassview.frontends.torch_standin import (
    TorchMissing,
    VendorAbsent,
    contents,
    module_attribute,
)

log = logging.getLogger("sassview")

# The way out, in the words of the frontend the file uses (the first it imports, by the
# registry's kind): what its declarations take instead of torch tensors.
WAYS_OUT = {
    "cute": (
        "compiling needs no torch: import it for types only under `if TYPE_CHECKING:` (from "
        "typing), declare the kernels with the DSL's fake tensors "
        "(`cute.runtime.make_fake_compact_tensor(cutlass.Float16, (M, N), assumed_align=16)`) "
        "instead of torch tensors, or pip install torch"
    ),
    "triton": (
        "compiling needs no torch: declare the kernel by what a launch passes, "
        "`sv.triton(kernel, args=dict(x_ptr=sv.tensor('fp16', shape=(M, N)), n=N, ...))`, and "
        'keep code that makes tensors in functions or under `if __name__ == "__main__":` '
        "(sassview's stand-in for torch answers device probes, dtypes and decorators, and "
        "makes no tensors); or pip install torch"
    ),
    "cutile": (
        "compiling needs no torch: declare the kernel with cuTile's array specs, "
        "`sv.cutile(kernel, [ct.ArrayConstraint(...), ...])`, and keep code that makes tensors "
        'in functions or under `if __name__ == "__main__":`; or pip install torch'
    ),
}
WAYS_OUT["gluon"] = WAYS_OUT["triton"].replace("sv.triton(", "sv.gluon(")
WAY_OUT = WAYS_OUT["cute"]  # the CuTe DSL's, kept under its old name
_GENERIC = (
    "compiling needs no torch: keep the code that makes tensors in functions or under "
    '`if __name__ == "__main__":` (sassview\'s stand-in for torch answers device probes, '
    "dtypes and decorators, and makes no tensors); or pip install torch"
)
# Which frontend a file is written for, by its imports (Gluon before Triton: it is both).
_IMPORTS = (
    ("gluon", re.compile(r"^\s*(?:from|import)\s+triton\.experimental\.gluon", re.M)),
    ("triton", re.compile(r"^\s*(?:from|import)\s+triton\b", re.M)),
    ("cute", re.compile(r"^\s*(?:from|import)\s+cutlass\b", re.M)),
    (
        "cutile",
        re.compile(r"^\s*(?:from|import)\s+cuda\.tile\b|^\s*from\s+cuda\s+import\s+tile\b", re.M),
    ),
)


class TorchNeeded(InputError):
    """The kernel file (or a module it imports) calls torch, and torch is not installed."""


def torch_missing(exc: BaseException) -> bool:
    """Whether `exc` is the import of torch (or one of its modules) failing: torch is absent."""
    name = getattr(exc, "name", None) or ""
    return isinstance(exc, ModuleNotFoundError) and name.split(".")[0] == "torch"


def run_without_torch(run: Callable[[], None], path: Path) -> None:
    """`run()` (which executes the kernel file) once more with the stand-in for torch.

    Raises an InputError naming the file and line that calls torch."""
    try:
        with _stand_in_installed():
            run()
    except (TorchMissing, VendorAbsent) as exc:
        where = _shown(exc.where, path)
        absent = (
            ": the stand-in has no device of any vendor" if isinstance(exc, VendorAbsent) else ""
        )
        raise TorchNeeded(
            f"{where.rpartition(':')[0]} calls torch ({exc.what} at {where}), which is not"
            f" installed{absent}",
            way_out(path, exc),
        ) from None
    except ModuleNotFoundError as exc:
        if not torch_missing(exc):
            raise
        raise TorchNeeded(f"{path.name}: {exc}", way_out(path, exc)) from None
    log.info("%s imports torch for types only; imported without it (torch is not installed)", path)


def _shown(where: str, path: Path) -> str:
    """file:line relative to the kernel file's directory (a library beside it), else to the
    working directory, else as it is."""
    file, _, line = where.rpartition(":")
    for base in (path.parent, Path.cwd()):
        try:
            return f"{Path(file).resolve().relative_to(base.resolve())}:{line}"
        except ValueError:
            continue
    return where


def way_out(path: Path, exc: BaseException) -> str:
    """The hint in the words of the frontend of the kernel file, or else of the first module
    on the way to the call (a library's) that imports a kernel language."""
    files = [str(path)] + [f.filename for f in traceback.extract_tb(exc.__traceback__)]
    for file in dict.fromkeys(files):
        kind = _frontend_of(file)
        if kind:
            return WAYS_OUT[kind]
    return _GENERIC


def _frontend_of(file: str) -> str | None:
    if not file.endswith(".py") or not os.path.isfile(file):
        return None
    try:
        text = Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return next((kind for kind, imports in _IMPORTS if imports.search(text)), None)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `torch` and every `torch.x` as a stand-in module (frontends/torch_standin.py)."""

    def find_spec(self, fullname: str, target: Any = None, *args: Any) -> Any:
        if fullname.split(".")[0] != "torch":
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = ModuleType(spec.name, "a stand-in for torch (sassview: torch is not installed)")
        vars(module).update(contents(spec.name))
        module.__getattr__ = functools.partial(module_attribute, module)  # type: ignore[method-assign]
        module.__path__ = []
        return module

    def exec_module(self, module: ModuleType) -> None:
        pass


@contextlib.contextmanager
def _stand_in_installed() -> Iterator[None]:
    """The stand-in while the block runs; after it, no module that imported it (a library's
    `cutlass.torch`, imported by the kernel file) is left for a later import to find."""
    finder = _Finder()
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
