"""The CuTe DSL's architecture while a kernel is built and compiled, and per-arch factories.

Objects of the DSL read the target when they are built, not when they are compiled: an MMA or
copy op (`warpgroup.MmaF16BF16Op`, `cpasync.CopyBulkTensorTileG2SOp`) checks it in its
constructor, and kernel classes read it in `__init__` (`BaseDSL._get_dsl().get_arch_enum()`)
to pick a code path or to refuse. Outside `cute.compile` that read is `envar.arch`: the value
of CUTE_DSL_ARCH when `cutlass` was imported or, with no GPU, sm_100a. So an object built when
a kernel file is imported is built for one architecture whatever the declaration says.

`sv.cute(factory, arch=[...])` declares a function `factory(arch, **variant) -> (host, *args)`
instead: sassview calls it once per (arch, variant) with the DSL's architecture set, then
compiles what it returns. Measured on nvidia-cutlass-dsl 4.8.1: the architecture is not
cached at import (`envar.arch` is a property read on each use; no cache of the DSL is keyed
by it), and a compile after setting it in this process gives the same PTX and cubin, byte for
byte, as one in a fresh process started with CUTE_DSL_ARCH set (tests/test_cute_factory.py),
so no child process is needed.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from sassview.errors import InputError

_ENV = "CUTE_DSL_ARCH"


@dataclass(frozen=True)
class CuteFactory:
    """What `sv.cute(factory, ...)` declares: `function(arch, **variant)` builds the host
    function (or kernel object) and its fake arguments for one architecture."""

    function: Callable[..., Any]

    @property
    def name(self) -> str:
        return str(getattr(self.function, "__name__", "factory"))


def is_factory(fn: Any, args: tuple[Any, ...]) -> bool:
    """A plain Python function given no arguments: neither a @cute.jit function (which the
    DSL marks) nor a kernel object; its one parameter is the architecture."""
    if args or not inspect.isfunction(fn) or getattr(fn, "_decorator_kind", None) is not None:
        return False
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return bool(params) and params[0].kind in positional


@contextlib.contextmanager
def dsl_arch(arch: str) -> Iterator[None]:
    """The DSL's architecture (and CUTE_DSL_ARCH, which some helpers read directly) is `arch`
    inside the block, and what it was after it."""
    from cutlass.cutlass_dsl import CuTeDSL

    envar = CuTeDSL._get_dsl().envar
    before_env = os.environ.get(_ENV)
    before = envar._arch  # not `arch`: that would probe the driver for a GPU
    os.environ[_ENV] = arch
    envar.arch = arch
    try:
        yield
    finally:
        envar._arch = before  # None: detected again on the next read, as before
        if before_env is None:
            os.environ.pop(_ENV, None)
        else:
            os.environ[_ENV] = before_env


def build(
    factory: CuteFactory, arch: str, variant: Mapping[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """`factory(arch, **variant)` called with the DSL set to `arch`: (host, args, kwargs).

    The factory may return `(host, *args)`, or `(host, args, kwargs)` with a tuple and a dict.
    """
    with dsl_arch(arch):
        made = factory.function(arch, **variant)
    if not isinstance(made, (tuple, list)) or not made or not callable(made[0]):
        raise InputError(
            f"the CuTe factory {factory.name}({arch!r}) returned {type(made).__name__}, "
            "not (host_function, *fake_arguments)",
            f"end {factory.name} with `return host, fake_a, fake_b`",
        )
    host, *rest = made
    if len(rest) == 2 and isinstance(rest[0], tuple) and isinstance(rest[1], dict):
        return host, rest[0], dict(rest[1])
    return host, tuple(rest), {}
