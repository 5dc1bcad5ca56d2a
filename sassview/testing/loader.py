"""Compile once, ask many times: the cache behind the pytest fixture, and choosing the kernel.

A session keeps every Program it loaded, keyed by (file, arch, build options), and every
kernel's Inspection with the texts rendered from it, so a suite of fifty assertions over one
kernel compiles it once and renders its listing once. Across sessions, sassview's own disk
cache (SASSVIEW_CACHE_DIR) makes the one compile cheap. Everything goes through the public API
(`sassview.load`, `sassview.analyze`).

A kernel.py whose frontend (triton, cutlass, ...: frontends/registry.py) is not installed
raises MissingFrontend, which the plugin turns into a skip with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sassview.api import BuildOptions, package_for
from sassview.errors import InputError
from sassview.inspection import Inspection
from sassview.ir import Kernel, Program


class MissingFrontend(Exception):
    """The kernel needs a frontend package that is not installed; str() is the skip reason."""


@dataclass(frozen=True, slots=True)
class Target:
    """What to compile: one file for one architecture with one set of options."""

    path: Path
    arch: str
    build: BuildOptions = BuildOptions()  # CUDA C++: as `sassview check` takes it


def missing_frontend(exc: BaseException) -> str | None:
    """The frontend module an error comes from lacking (an ImportError of a package a frontend
    imports: triton, cutlass, ..., raised directly or kept as the context of sassview's
    InputError), else None."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ImportError):
            found = package_for(seen.name or "")
            if found is not None:
                return found[1]
        seen = seen.__cause__ or seen.__context__
    return None


class KernelCache:
    """Programs and Inspections of one test session. Not thread-safe; pytest is not either."""

    def __init__(self) -> None:
        self.programs: dict[Target, list[Program]] = {}
        self.kernels: dict[tuple[Any, ...], tuple[Inspection, dict[str, Any]]] = {}
        self.compiles = 0
        # per target, what decides its hints' standings (steer/standing.py.file_decider)
        self.deciders: dict[Target, Callable[[list[Inspection]], list[Inspection]]] = {}

    def load(self, target: Target) -> list[Program]:
        found = self.programs.get(target)
        if found is None:
            import sassview

            try:
                # built as check builds it: its compile_commands.json laid in by the API
                found = sassview.load(target.path, arch=target.arch, build=target.build)
            except (ImportError, InputError) as exc:
                module = missing_frontend(exc)
                needed = package_for(module or "")
                if module is None or needed is None:
                    raise
                raise MissingFrontend(
                    f"{target.path.name} needs {module}, which is not installed "
                    f"(pip install {needed[0].package})"
                ) from exc
            self.programs[target] = found
            self.compiles += 1
        return found

    def _decided(self, target: Target, found: list[Inspection]) -> list[Inspection]:
        """Each hint's standing, as `check` says it without --try (steer/standing.py): a
        failure's hint reads as check's does, a knob it names said untried."""
        decide = self.deciders.get(target)
        if decide is None:
            from sassview.steer.standing import file_decider

            decide = self.deciders[target] = file_decider(
                target.path, target.build, [target.arch], run_trials=False
            )
        return decide(found)

    def get(
        self, target: Target, kernel: str | None = None, variant: Mapping[str, Any] | None = None
    ) -> tuple[Inspection, dict[str, Any]]:
        """The one kernel `kernel` (and `variant`) names in the target, inspected; its memo is
        a dict the KernelUnderTest keeps rendered texts in, shared by every test that asks."""
        key = (target, kernel, tuple(sorted((variant or {}).items())))
        hit = self.kernels.get(key)
        if hit is None:
            program, k = choose(self.load(target), kernel, variant, target.path)
            import sassview

            (inspection,) = self._decided(target, sassview.analyze(program, k.name))
            hit = self.kernels[key] = (inspection, {})
        return hit


def _named(k: Kernel, name: str) -> bool:
    return k.matches(name)


def choose(
    programs: Sequence[Program], kernel: str | None, variant: Mapping[str, Any] | None, path: Path
) -> tuple[Program, Kernel]:
    """The single (program, kernel) the test means, or an InputError saying what there is."""
    if variant:
        programs = [
            p for p in programs if all(p.artifacts.variant.get(k) == v for k, v in variant.items())
        ]
    pairs = [
        (p, k)
        for p in programs
        for k in p.kernels
        if (kernel is None and k.is_entry) or (kernel is not None and _named(k, kernel))
    ]
    if len(pairs) == 1:
        return pairs[0]
    every = sorted(
        {
            f"{k.display_name.split('(')[0]}"
            + (f" [{p.artifacts.label}]" if p.artifacts.variant else "")
            for p in programs
            for k in p.kernels
        }
    )
    there = ", ".join(every) or "(none)"
    if not pairs:
        what = f"no kernel named {kernel!r}" if kernel else "no kernel"
        if variant:
            what += f" with variant {dict(variant)}"
        raise InputError(f"{path.name}: {what}", f"kernels there: {there}")
    raise InputError(
        f"{path.name}: {len(pairs)} kernels match; say which",
        f"pass kernel=... (and variant={{...}} for kernel.py variants); there: {there}",
    )
