"""Triton Gluon (`triton.experimental.gluon`): Triton's lower-level dialect, whose kernels give
their layouts explicitly (`gl.BlockedLayout`, shared layouts). Declared with `sv.triton` like a
Triton kernel, or `sv.gluon`, the same function (the declaration's kind is this frontend's where
the kernel is a @gluon.jit one)
and compiled by the same module (`frontends/triton.py`, from a GluonASTSource): its stages are
GLIR, TTGIR (where the layouts show), LLVM IR."""

from __future__ import annotations

from typing import Any

from sassview.frontends.registry import Detection, FrontendSpec, Vocabulary
from sassview.frontends.specs import triton


def is_kernel(obj: Any) -> bool:
    kind = type(obj)
    return (kind.__module__ or "").startswith("triton") and kind.__name__ == "GluonJITFunction"


def _version() -> str | None:
    """Triton's version where its wheel has Gluon (3.5 on), without importing Triton."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("triton")
    except PackageNotFoundError:
        return None
    files = dist.files or ()
    has = any(str(f).endswith("experimental/gluon/__init__.py") for f in files)
    return dist.version if has else None


# Gluon does what Triton's passes do for it by hand: the fixes are in the layouts it writes.
VOCABULARY = Vocabulary(
    narrow=(
        "give the tensor's layout more contiguous elements per thread along the contiguous "
        "dimension (`gl.BlockedLayout(size_per_thread=[..., 4], order=[1, 0], ...)` for fp32: "
        "16 bytes a thread) and pointer and size arguments divisible by 16 (`divisibility=` in a "
        "kernel.py)"
    ),
    merge=(
        "a layout whose `size_per_thread` covers these elements, on pointers divisible by 16 "
        "(`divisibility=`), lets them be one vector access"
    ),
    coalesce=(
        "make the layout's `order=` start with the tensor's contiguous dimension and give "
        "`threads_per_warp` most of its lanes along it, so a warp walks consecutive addresses"
    ),
    bank_conflict=(
        "give the shared-memory layout a swizzle (`gl.SwizzledSharedLayout(vec, per_phase, "
        "max_phase, order)`, or an NVMMASharedLayout for tensor-core operands), or convert "
        "the register layout before the store so lanes write different banks"
    ),
    unroll="gl.static_range(...)",
)

SPEC = FrontendSpec(
    kind="gluon",
    title="Triton Gluon",
    declarations=("gluon",),  # the same function as sv.triton, which takes a @gluon.jit too
    declare_module="sassview.declare",
    compile=triton.compile_job,
    package="triton",
    extra="triton",
    modules=(),  # an ImportError of triton is the Triton frontend's
    version=_version,
    vocabulary=VOCABULARY,
    tile=True,
    ir_unrolls=True,
    detection=Detection(is_kernel, triton.suggest, target=triton.jit_of),
    width_knob=triton.width_knob,
)
