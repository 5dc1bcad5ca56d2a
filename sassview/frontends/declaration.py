"""A kernel file's declarations as data: what each `sv.cuda / sv.triton / ...` call records
(`Declaration`), the collection of them while the file is imported (`collecting`), and the
imported file with them (`KernelFile`, made by frontends/discover.py).

The frontends read declarations and the declaration functions (sassview/declare.py) make them,
over the frontends: so the record lives here, below both.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

_active: list[list[Declaration]] = []  # the registries of the kernel files being imported


@dataclass(frozen=True)
class Declaration:
    kind: str  # the frontend's: cuda | triton | gluon | cute | cutile (frontends/registry.py)
    name: str  # what the user sees: the function or kernel name
    target: Any  # the @triton.jit / @cute.jit function, or CUDA source text / path
    archs: tuple[str, ...]
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    variants: Mapping[str, tuple[Any, ...]] = field(default_factory=lambda: MappingProxyType({}))
    args: tuple[Any, ...] = ()  # CuTe DSL: the (fake) arguments to compile with
    line: int = 0  # where in the kernel file it was declared
    # Triton: one variant per @triton.autotune config (a list, where `variants` is a grid)
    configs: tuple[Mapping[str, Any], ...] = ()

    def variant_grid(self) -> list[dict[str, Any]]:
        """Every config times every combination of the variant values; [{}] when there are
        none. A grid value replaces the same key of a config; repeats are dropped."""
        keys = list(self.variants)
        grid = [dict(zip(keys, c, strict=True)) for c in itertools.product(*self.variants.values())]
        out: list[dict[str, Any]] = []
        for config in self.configs or ({},):
            for combo in grid:
                variant = {**config, **combo}
                if variant not in out:
                    out.append(variant)
        return out


def register_declaration(decl: Declaration) -> Declaration:
    """Record a declaration in the kernel file being imported (every frontend's sv.<name>
    ends here); outside an import it is only returned."""
    if _active:
        _active[-1].append(decl)
    return decl


@contextlib.contextmanager
def collecting() -> Iterator[list[Declaration]]:
    """Collect the declarations made while a kernel file is imported."""
    found: list[Declaration] = []
    _active.append(found)
    try:
        yield found
    finally:
        _active.pop()


@dataclass(frozen=True)
class Undeclared:
    name: str
    kind: str  # the frontend's kind (registry)
    line: int
    hint: str  # the declaration to add


@dataclass(frozen=True)
class KernelFile:
    path: Path
    text: str
    declarations: tuple[Declaration, ...]
    undeclared: tuple[Undeclared, ...]

    def notes(self) -> list[tuple[int, str]]:
        """(line, words) about the declarations: what a Triton autotuner picks its config by,
        and what of its pruning could not be applied here."""
        out = []
        for decl in self.declarations:
            key = decl.settings.get("autotune_key") if decl.kind == "triton" else None
            if key:
                out.append((decl.line, f"{decl.name}: autotune key {', '.join(key)}"))
            for note in decl.settings.get("autotune_notes", ()) if decl.kind == "triton" else ():
                out.append((decl.line, f"{decl.name}: {note}"))
        return out
