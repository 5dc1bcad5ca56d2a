"""Sweep: one row per (kernel, arch, variant), the numbers a kernel author compares, and each
row's difference from a baseline.

The grid comes from the command line (`-p num_warps=4,8 -p num_stages=2,3`): for a kernel.py it
replaces or extends each declaration's own `variants`; for a .cu file the keys are macros
(`-p TILE=64,128`) or compiler options (`-p -maxrregcount=32,64`, `-p --use_fast_math=0,1`).
Rows are read from Inspections only, so the sweep shows exactly what `check` would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sassview.api import (
    DEFAULT_ARCH,
    BuildOptions,
    Declaration,
    Job,
    KernelFile,
    check_ptxas_can_name,
    declaration_settings,
    input_file,
)
from sassview.errors import InputError
from sassview.inspection import Inspection
from sassview.report.facts import row_values as row_values  # moved; sweep still names it

# The numbers a sweep compares; lower is better for each (the table marks the best).
NUMERIC = ("registers", "spill_bytes", "shared_bytes", "instructions")
# Above this many variants a sweep asks first (or, with no terminal, refuses): each is a
# compile and a disassembly, ~1-2 s of one core; 200 is minutes on a laptop, 40,000 is a day.
DEFAULT_MAX_VARIANTS = 200


# Keys whose values stay text: a CUDA release is "12.10", not the number 12.1.
TEXT_KEYS = ("toolchain",)


def parse_value(text: str, key: str = "") -> Any:
    """ "8" -> 8, "0.5" -> 0.5, "true"/"false" -> bool, anything else (and the value of a key
    in TEXT_KEYS) stays text."""
    if key in TEXT_KEYS:
        return text.strip()
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text.strip()


def parse_params(items: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """`["num_warps=4,8", "-maxrregcount=32"]` -> {"num_warps": (4, 8), "-maxrregcount": (32,)}."""
    grid: dict[str, tuple[Any, ...]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise InputError(
                f"-p {item!r} is not KEY=VALUE[,VALUE...]",
                "e.g. -p num_warps=4,8 or -p -maxrregcount=32,64",
            )
        name = key.strip()
        grid[name] = tuple(parse_value(v, name) for v in values.split(",") if v.strip())
    return grid


def with_grid(kernel_file: KernelFile, grid: Mapping[str, tuple[Any, ...]]) -> KernelFile:
    """The kernel file with the command line's grid laid over every declaration's variants."""
    if not grid:
        return kernel_file
    decls = tuple(
        dataclasses.replace(d, variants=MappingProxyType({**d.variants, **grid}))
        for d in kernel_file.declarations
    )
    return dataclasses.replace(kernel_file, declarations=decls)


def cuda_file_as_kernel_file(
    path: Path, archs: Sequence[str], build: BuildOptions | None = None
) -> KernelFile:
    """A .cu file swept like a kernel.py that declares it, built as `build` says."""
    decl = Declaration(
        "cuda",
        path.name,
        str(path.resolve()),
        tuple(archs),
        MappingProxyType(declaration_settings(build or BuildOptions())),
    )
    return KernelFile(path.resolve().parent / "<sweep>", "", (decl,), ())


def open_kernel_file(
    path: Path,
    archs: Sequence[str] | None,
    command: str,
    build: BuildOptions | None = None,
) -> KernelFile:
    """What `sweep`, `try` and `diff` work on: a kernel.py as declared, or a .cu as if a
    kernel.py declared it (for `archs`, default sm_90a) with the command line's `build`."""
    from sassview.api import import_kernel_file

    if path.suffix not in (".py", ".cu", ".cuh"):
        raise InputError(f"{path}: {command} reads a kernel.py or a .cu file", "point it at one")
    input_file(path, wanted="a kernel.py or a .cu file")
    if path.suffix == ".py":
        return import_kernel_file(path)
    check_ptxas_can_name(path.resolve())
    return cuda_file_as_kernel_file(path, list(archs or [DEFAULT_ARCH]), build)


@dataclass(frozen=True)
class Row:
    label: str  # the declaration and its variant
    arch: str
    kernel: str  # display name
    variant: Mapping[str, Any]
    values: Mapping[str, Any]  # NUMERIC plus the text columns
    delta: Mapping[str, int | None]  # NUMERIC minus the baseline's; None for the baseline


def _matches(variant: Mapping[str, Any], baseline: Mapping[str, Any]) -> bool:
    return all(str(variant.get(k)) == str(v) for k, v in baseline.items())


def _group(insp: Inspection) -> tuple[str, str, str]:
    """Rows compared with one baseline: same declaration, kernel and architecture."""
    declaration = insp.program.artifacts.label.split(" [", 1)[0]
    return declaration, insp.kernel.name, insp.arch


def build_rows(
    inspections: Sequence[Inspection], baseline: Mapping[str, Any] | None = None
) -> list[Row]:
    """Rows in job order; each row's delta is against the baseline of its (kernel, arch): the
    first variant matching `baseline`, or the first variant."""
    values = [row_values(i) for i in inspections]
    base: dict[tuple[str, str, str], dict[str, Any]] = {}
    for insp, vals in zip(inspections, values, strict=True):
        key = _group(insp)
        variant = insp.program.artifacts.variant
        if key not in base or (
            baseline and _matches(variant, baseline) and not base[key]["_matched"]
        ):
            base[key] = {
                **vals,
                "_matched": bool(baseline and _matches(variant, baseline)),
                "_id": id(insp),
            }
    rows = []
    for insp, vals in zip(inspections, values, strict=True):
        b = base[_group(insp)]
        is_base = b["_id"] == id(insp)
        delta = {k: None if is_base else vals[k] - b[k] for k in NUMERIC}
        art = insp.program.artifacts
        rows.append(
            Row(
                art.label or insp.kernel.display_name,
                insp.arch,
                insp.kernel.display_name,
                MappingProxyType(dict(art.variant)),
                MappingProxyType(vals),
                MappingProxyType(delta),
            )
        )
    return rows


def too_many_variants(
    count: int, limit: int, given: bool, what: str = "the sweep"
) -> InputError | None:
    """Why `count` variants are refused under `limit` (`given`: from --max-variants), or None.
    The message names the flag that lets them through; `what` names whose variants they are."""
    if count <= limit:
        return None
    narrow = (
        "(fewer -p values or --arch)"
        if what == "the sweep"
        else "(fewer variants or architectures in its declarations, or --arch)"
    )
    if given:
        return InputError(
            f"{what} has {count} variants, more than --max-variants {limit}",
            f"pass --max-variants {count}, or narrow the grid {narrow}",
        )
    return InputError(
        f"{what} has {count} variants (more than {limit}, each a compile)",
        f"pass --max-variants {count} to compile them all, or narrow the grid {narrow}",
    )


def plan_jobs(kernel_file: KernelFile, archs: Sequence[str] | None) -> list[Job]:
    from sassview.api import plan

    return plan(kernel_file, archs)
