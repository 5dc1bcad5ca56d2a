"""cuTile Python (`cuda-tile`, `tileiras`): `sv.cutile(kernel, parameters, arch=...)` for a
@ct.kernel, compiled by `frontends/cutile.py`. A tile language: each `ct.load` / `ct.store`
moves a whole tile, each `ct.mma` is many tensor-core instructions."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sassview.frontends.registry import (
    Detection,
    FrontendSpec,
    Knob,
    Vocabulary,
    distribution_version,
)

if TYPE_CHECKING:
    from sassview.frontends.declaration import Declaration, KernelFile
    from sassview.ir import Artifacts


def compile_job(kf: KernelFile, decl: Declaration, arch: str, variant: dict[str, Any]) -> Artifacts:
    """A variant's key is a kernel hint or names a parameter, whose value it replaces."""
    from sassview.errors import InputError
    from sassview.frontends.cutile import HINTS, compile_cutile

    s = decl.settings
    parameters = list(s["parameters"])
    hints = dict(s["hints"])
    for key, value in variant.items():
        if key in HINTS:
            hints[key] = value
        elif key in s["names"]:
            parameters[s["names"].index(key)] = value
        else:
            raise InputError(
                f"sv.cutile({decl.name}): variant {key!r} is neither a parameter nor a hint",
                f"parameters: {', '.join(s['names'])}; hints: {', '.join(HINTS)}",
            )
    return compile_cutile(
        decl.target, parameters, arch=arch, hints=hints,
        calling_convention=s["calling_convention"],
    )  # fmt: skip


def is_kernel(obj: Any) -> bool:
    kind = type(obj)
    return (kind.__module__ or "").startswith("cuda.tile") and kind.__name__ == "kernel"


def _declaration(name: str, obj: Any) -> str:
    """The sv.cutile line to add: a constraint per parameter for the user to fill in."""
    params = list(inspect.signature(obj._pyfunc).parameters.values())
    each = ", ".join(
        f'"{p.name}": ' + ("<value>" if "Constant" in str(p.annotation) else "<ArrayConstraint>")
        for p in params
    )
    return f'sv.cutile({name}, {{{each}}}, arch="sm_100a")'


def spill_knob(decl: Declaration, variant: Mapping[str, Any]) -> Knob | None:
    """A lower `occupancy` hint: fewer CTAs per SM leave each thread more registers."""
    now = variant.get("occupancy", decl.settings.get("hints", {}).get("occupancy"))
    if now is None:
        return Knob("occupancy=1", variant={"occupancy": 1})
    if int(now) > 1:
        return Knob(f"occupancy={int(now) - 1}", variant={"occupancy": int(now) - 1})
    return None


def width_knob(decl: Declaration, variant: Mapping[str, Any]) -> Knob | None:
    """Every array parameter promised to fit the kernel's tiles, what the narrow-access hint
    asks of its ArrayConstraint: `shape_divisible_by=` and `stride_divisible_by=` (but the last
    dimension) the largest power-of-two constant the signature sets (the tile sizes, TILE=1024
    or TM=128: a multiple of each), `base_addr_divisible_by=16`, the last stride constant 1.
    Which constant sizes which dimension is not read from the kernel, so the promise covers
    every tile; what tileiras makes of it is what the trial finds. None where every array
    already promises as much."""
    s = decl.settings
    names = s["names"]
    params = [variant.get(n, p) for n, p in zip(names, s["parameters"], strict=True)]
    sizes = [v for v in params if isinstance(v, int) and not isinstance(v, bool) and v > 1]
    tile = max((v for v in sizes if v & (v - 1) == 0), default=16)
    arrays = {n: p for n, p in zip(names, params, strict=True) if _is_array(p)}
    promised = {n: _fitted(p, tile) for n, p in arrays.items()}
    changed = {n: p for n, p in promised.items() if p != arrays[n]}
    if not changed:
        return None
    what = f"shape_divisible_by={tile}, base_addr_divisible_by=16, strides by {tile} (last: 1)"
    return Knob(f"{', '.join(changed)}: {what}", variant=changed)


def _is_array(value: Any) -> bool:
    kind = type(value)
    return kind.__name__ == "ArrayConstraint" and (kind.__module__ or "").startswith("cuda.tile")


def _fitted(constraint: Any, tile: int) -> Any:
    """`constraint` promising tiles of `tile` elements fit every dimension (module doc)."""
    import dataclasses

    ndim = constraint.ndim
    constant = tuple(constraint.stride_constant or (None,) * ndim)[: ndim - 1] + (1,)
    return dataclasses.replace(
        constraint,
        shape_divisible_by=(tile,) * ndim,
        stride_divisible_by=(tile,) * (ndim - 1) + (1,),
        stride_constant=constant,
        base_addr_divisible_by=max(16, constraint.base_addr_divisible_by),
    )


VOCABULARY = Vocabulary(
    narrow=(
        "tileiras checks each element of a `ct.load` / `ct.store` tile against the array's "
        "shape and strides, one narrow access each, unless the signature promises the tile "
        "fits: in the array's ArrayConstraint, `shape_divisible_by=` (a multiple of the tile) "
        "and `stride_divisible_by=` on every dimension but the stride-1 last one, with "
        "`base_addr_divisible_by=16` and `stride_constant=` (last 1); the shape alone changes "
        "nothing (tried on a row softmax: 16-bit accesses either way; with the row stride too, "
        "bulk copies)"
    ),
    merge=(
        "`shape_divisible_by=` (a multiple of the tile) and `stride_divisible_by=` on the other "
        "dimensions, `base_addr_divisible_by=16` and a stride-1 last dimension in the array's "
        "ArrayConstraint let tileiras make these one access"
    ),
    coalesce=(
        "load the tile along the array's stride-1 dimension (`ct.load(..., order=...)` names "
        "the dimension order) and transpose the tile (`ct.transpose`), not the access"
    ),
    spill=(
        "fewer values live per thread: smaller tiles (the ct.Constant tile shapes), or a lower "
        "`occupancy=` hint in ct.kernel (fewer blocks per SM, more registers each)"
    ),
    bank_conflict=(
        "cuTile lays out shared memory itself: a conflict comes from a tile reshaped or "
        "transposed between a load and its use; try another tile shape"
    ),
)

SPEC = FrontendSpec(
    kind="cutile",
    title="cuTile Python",
    declarations=("cutile",),
    declare_module="sassview.declare",
    compile=compile_job,
    package="cuda-tile nvidia-cuda-tileiras",
    extra="cutile",
    modules=("cuda.tile",),
    version=lambda: (
        distribution_version("cuda-tile") if distribution_version("nvidia-cuda-tileiras") else None
    ),
    vocabulary=VOCABULARY,
    tile=True,
    detection=Detection(
        is_kernel, _declaration, line=lambda obj: obj._pyfunc.__code__.co_firstlineno
    ),
    spill_knob=spill_knob,
    width_knob=width_knob,
)
