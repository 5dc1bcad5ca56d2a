"""How a `kernel.py` says which kernels sassview should compile, and how.

A kernel file is ordinary Python. Next to its kernels it calls one of these functions per
kernel; each call records a Declaration (nothing is compiled at import time):

    import sassview as sv

    @triton.jit
    def add(x, y, out, n, BLOCK: tl.constexpr): ...

    sv.triton(add, signature={"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32"},
              constexprs={"BLOCK": 1024}, divisibility=["x", "y", "out", "n"],
              arch=["sm_80", "sm_90a"], variants={"num_warps": [4, 8]})

    SAXPY = r'''
    __global__ void saxpy(float a, const float* x, float* y, int n) { ... }
    '''
    sv.cuda(SAXPY, arch="sm_90a", variants={"-maxrregcount": [32, 64]})
    sv.cuda_file("gemm.cu", arch="sm_90a", defines={"TILE": 128})
    sv.cuda_file("gemm.cuh", instantiate=["gemm<128, 128, float>"])

    sv.cute(host_fn, fake_a, fake_b, arch="sm_100a")

`variants` is a grid: every combination of its values is one variant, compiled for every
architecture. `sassview kernel.py` imports the file the way pytest imports a test module and
compiles each (declaration, arch, variant).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sassview.errors import InputError

_active: list[list[Declaration]] = []  # the registries of the kernel files being imported


@dataclass(frozen=True)
class Declaration:
    kind: str  # cuda | triton | cute
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


def _archs(arch: str | Sequence[str]) -> tuple[str, ...]:
    items = [arch] if isinstance(arch, str) else list(arch)
    names = tuple(a.strip() for item in items for a in item.split(",") if a.strip())
    if not names:
        raise InputError("a declaration names no architecture", "pass arch='sm_90a' or a list")
    return names


def _variants(variants: Mapping[str, Sequence[Any]] | None) -> Mapping[str, tuple[Any, ...]]:
    out = {}
    for key, values in (variants or {}).items():
        vals = tuple(values) if isinstance(values, (list, tuple, range)) else (values,)
        if not vals:
            raise InputError(f"variant {key!r} has no values", "give it a list such as [4, 8]")
        out[key] = vals
    return MappingProxyType(out)


def _caller_line() -> int:
    import sys

    frame = sys._getframe(2)  # the kernel file's line that called sv.cuda / sv.triton / ...
    return frame.f_lineno


def _register(decl: Declaration) -> Declaration:
    if _active:
        _active[-1].append(decl)
    return decl


def cuda(
    source: str,
    *,
    arch: str | Sequence[str] = "sm_90a",
    name: str | None = None,
    defines: Mapping[str, Any] | Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    options: Sequence[str] = (),
    variants: Mapping[str, Sequence[Any]] | None = None,
) -> Declaration:
    """CUDA C++ held in a Python string. `variants` keys are macros (`TILE`) or options
    (`-maxrregcount`, `--use_fast_math` with values [False, True])."""
    if not isinstance(source, str) or "__global__" not in source:
        raise InputError(
            "sassview.cuda() needs CUDA C++ source text with a __global__ kernel",
            "for a .cu file use sassview.cuda_file('kernel.cu', ...)",
        )
    return _register(
        Declaration(
            "cuda",
            name or _first_kernel_name(source),
            source,
            _archs(arch),
            MappingProxyType(
                {
                    "defines": _defines(defines),
                    "include_dirs": tuple(map(str, include_dirs)),
                    "options": tuple(options),
                    "file": False,
                }
            ),
            _variants(variants),
            line=_caller_line(),
        )
    )


def cuda_file(
    path: str | Path,
    *,
    arch: str | Sequence[str] = "sm_90a",
    defines: Mapping[str, Any] | Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    options: Sequence[str] = (),
    variants: Mapping[str, Sequence[Any]] | None = None,
    compiler: str = "auto",
    instantiate: Sequence[str] = (),
    include_before: Sequence[str | Path] = (),
    host_compiler: str | None = None,
    compile_commands: bool | str | Path = True,
    included_by: str | Path | None = None,
) -> Declaration:
    """A .cu or .cuh file, relative to the kernel file, built as `sassview check` builds it.

    `compiler`: "auto" (NVRTC, or nvcc when the file has host code or host headers), "nvrtc"
    or "nvcc". `instantiate`: template kernels to compile, `["tile<128, float>"]`.
    `include_before`: files included ahead of it (what a header expects its includer to define).
    `host_compiler`: the C++ compiler nvcc drives (the CLI's --host-compiler).
    `compile_commands`: True takes the flags of the compile_commands.json found above the file,
    a directory (relative to the kernel file) the one in it (the CLI's -p), False none.
    `included_by`: a file that #includes this header; its lines before that go first.
    """
    from sassview.frontends.cuda import COMPILERS

    if compiler not in COMPILERS:
        raise InputError(
            f"sv.cuda_file(compiler={compiler!r}) is not a compiler",
            f"use one of {', '.join(COMPILERS)}",
        )
    return _register(
        Declaration(
            "cuda",
            Path(path).name,
            str(path),
            _archs(arch),
            MappingProxyType(
                {
                    "defines": _defines(defines),
                    "include_dirs": tuple(map(str, include_dirs)),
                    "options": tuple(options),
                    "file": True,
                    "compiler": compiler,
                    "instantiate": tuple(instantiate),
                    "include_before": tuple(map(str, include_before)),
                    "host_compiler": host_compiler,
                    "included_by": str(included_by) if included_by else None,
                    "compile_commands": (
                        compile_commands
                        if isinstance(compile_commands, bool)
                        else str(compile_commands)
                    ),
                }
            ),
            _variants(variants),
            line=_caller_line(),
        )
    )


def triton(
    fn: Any,
    *,
    signature: Mapping[str, str],
    constexprs: Mapping[str, Any] | None = None,
    divisibility: Sequence[str] = (),
    arch: str | Sequence[str] = "sm_90a",
    num_warps: int = 4,
    num_stages: int = 3,
    num_ctas: int = 1,
    options: Mapping[str, Any] | None = None,
    variants: Mapping[str, Sequence[Any]] | None = None,
) -> Declaration:
    """A @triton.jit kernel, or a @triton.autotune one: each of its configs is a variant;
    @triton.heuristics values are computed per variant where they need no runtime argument.
    `variants` keys are options (num_warps, num_stages, maxnreg, ...) or constexpr names
    (BLOCK)."""
    from sassview.frontends.triton import heuristics_of, unwrap

    jit_fn, configs = unwrap(fn)
    return _register(
        Declaration(
            "triton",
            str(getattr(jit_fn, "__name__", "kernel")),
            jit_fn,
            _archs(arch),
            MappingProxyType(
                {
                    "signature": dict(signature),
                    "constexprs": dict(constexprs or {}),
                    "divisibility": tuple(divisibility),
                    "num_warps": num_warps,
                    "num_stages": num_stages,
                    "num_ctas": num_ctas,
                    "options": dict(options or {}),
                    "heuristics": heuristics_of(fn),
                }
            ),
            _variants(variants),
            line=_caller_line(),
            configs=tuple(MappingProxyType(c) for c in configs),
        )
    )


def cute(
    fn: Callable[..., Any],
    *args: Any,
    arch: str | Sequence[str] = "sm_100a",
    options: str = "",
    variants: Mapping[str, Sequence[Any]] | None = None,
) -> Declaration:
    """A CuTe DSL @cute.jit host function, with the (fake) arguments to compile it for."""
    return _register(
        Declaration(
            "cute",
            getattr(fn, "__name__", "cute_kernel"),
            fn,
            _archs(arch),
            MappingProxyType({"options": options}),
            _variants(variants),
            args=tuple(args),
            line=_caller_line(),
        )
    )


def _defines(defines: Mapping[str, Any] | Sequence[str]) -> tuple[str, ...]:
    if isinstance(defines, Mapping):
        return tuple(k if v is None else f"{k}={v}" for k, v in defines.items())
    return tuple(defines)


def _first_kernel_name(source: str) -> str:
    import re

    m = re.search(r"__global__\s+(?:[\w:<>,\s*&]+?\s+)?(\w+)\s*\(", source)
    return m.group(1) if m else "kernel"


@contextlib.contextmanager
def collecting() -> Iterator[list[Declaration]]:
    """Collect the declarations made while a kernel file is imported."""
    found: list[Declaration] = []
    _active.append(found)
    try:
        yield found
    finally:
        _active.pop()
