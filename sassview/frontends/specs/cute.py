"""The CuTe DSL (nvidia-cutlass-dsl): `sv.cute(host_fn, *fake_args, arch=...)` for a @cute.jit
host function, compiled by `frontends/cute.py`."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from sassview.frontends.registry import Detection, FrontendSpec, Vocabulary, distribution_version

if TYPE_CHECKING:
    from sassview.frontends.declaration import Declaration, KernelFile
    from sassview.ir import Artifacts


def compile_job(kf: KernelFile, decl: Declaration, arch: str, variant: dict[str, Any]) -> Artifacts:
    from sassview.frontends.cute import compile_cute

    return compile_cute(
        decl.target, *decl.args, arch=arch, options=decl.settings["options"], **variant
    )


def is_kernel(obj: Any) -> bool:
    if (type(obj).__module__ or "").startswith("cutlass") and hasattr(obj, "__wrapped__"):
        return True
    # nvidia-cutlass-dsl 4.8: a @cute.jit host function is a plain function, marked
    return inspect.isfunction(obj) and getattr(obj, "_decorator_kind", None) == "jit"


def _declaration(name: str, obj: Any) -> str:
    return f'sv.cute({name}, <fake arguments>, arch="sm_100a")'


UNVERIFIED = "(a source change: `sassview try` cannot apply it)"
NARROW_HINT = (
    "give each thread 4 or more contiguous elements (its value layout) and copy them with a "
    "128-bit copy atom (`cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), dtype, "
    "num_bits_per_copy=128)`) on 16-byte aligned tensors; a tile epilogue whose threads "
    "write in strides can go through shared memory instead (stmatrix, then a TMA store) "
    f"{UNVERIFIED}"
)
MERGE_HINT = (
    "a 128-bit copy atom (`num_bits_per_copy=128`) on a tensor the DSL knows to be 16-byte "
    f"aligned (`assumed_align=16`) moves these in one access {UNVERIFIED}"
)

VOCABULARY = Vocabulary(
    narrow=NARROW_HINT,
    merge=MERGE_HINT,
    coalesce=(
        "give the copy a thread-value layout whose consecutive threads walk the tensor's "
        "stride-1 mode (the TV layout of the tiled copy), or stage through shared memory"
    ),
    bank_conflict=(
        "compose the shared-memory layout with a swizzle (`cute.make_composed_layout(cute."
        "make_swizzle(b, m, s), 0, layout)`) or pad its leading dimension"
    ),
    unroll="cutlass.range(..., unroll=N)",
)

SPEC = FrontendSpec(
    kind="cute",
    title="CuTe DSL",
    declarations=("cute",),
    declare_module="sassview.declare",
    compile=compile_job,
    package="nvidia-cutlass-dsl[cu13]",
    extra="cute",
    modules=("cutlass",),
    version=lambda: distribution_version("nvidia-cutlass-dsl"),
    vocabulary=VOCABULARY,
    tile=True,
    range_unroll=True,
    detection=Detection(is_kernel, _declaration),
    width_notes="sassview.analyses.cute_width_hints",  # per-element predicates: the real cause
)
