"""Triton: `sv.triton(kernel, signature=..., ...)` for a @triton.jit (or @triton.autotune)
kernel, compiled by `frontends/triton.py`. Its kernels are found in a kernel.py by their type,
and the declaration to add is guessed from their parameters' names."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
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
    from sassview.frontends.triton import apply_heuristics, compile_triton, option_names

    s = dict(decl.settings)
    constexprs = dict(s["constexprs"])
    parameters = set(getattr(decl.target, "arg_names", ()))
    ptxas = _stored_ptxas(variant.get("toolchain"))
    example = dict(s.get("args") or {})  # sv.triton(args=...): the launch's own values
    for key, value in shared_keys(decl.target, {**constexprs, **example}).items():
        _set_launch(s, key, value)  # a kernel parameter named as a launch option: both
    for key, value in variant.items():
        if key == "toolchain" and key not in parameters:  # a CUDA release's ptxas, not a knob
            continue
        if key in parameters:  # a launch's keyword sets the parameter, and the option of
            (example if key in example else constexprs)[key] = value  # its name too
            if key in _LAUNCH or key in option_names():
                _set_launch(s, key, value)
        elif key in _LAUNCH:
            s[key] = value
        elif key not in option_names():  # no such parameter: Triton's binder will say so
            constexprs[key] = value
        else:  # a compile option: maxnreg (an autotune config's), enable_fp_fusion, ...
            s["options"] = {**s["options"], key: value}
    launch = {k: s[k] for k in _LAUNCH}
    constexprs.update(
        apply_heuristics(
            decl.name, s["heuristics"], {**launch, **s["options"], **example, **constexprs}
        )
    )
    signature, divisibility = s["signature"], s["divisibility"]
    if s.get("args") is not None:
        from sassview.frontends.triton import target_cc
        from sassview.frontends.triton_args import specialize

        derived = specialize(decl.target, {**example, **constexprs}, target_cc(arch))
        signature, constexprs, divisibility = (
            derived.signature,
            derived.constexprs,
            derived.divisibility,
        )
    artifacts = compile_triton(
        decl.target, signature=signature, constexprs=constexprs,
        divisibility=divisibility, arch=arch, num_warps=s["num_warps"],
        num_stages=s["num_stages"], num_ctas=s["num_ctas"], options=s["options"], ptxas=ptxas,
    )  # fmt: skip
    tuned = tuple(f"autotune: {note}" for note in s.get("autotune_notes", ()))
    if s.get("autotune_key"):
        tuned = (autotune_key_text(s["autotune_key"], s.get("args")), *tuned)
    passed = launch_values_text(example, signature)
    tuned = (*tuned, passed) if passed else tuned
    return replace(artifacts, options=artifacts.options + tuned) if tuned else artifacts


def _stored_ptxas(release: Any) -> tuple[str, str, str] | None:
    """(toolchain key, ptxas path, how a header names it) of a stored release
    (`-p toolchain=12.9`); None for the one Triton bundles (`default`, or no toolchain)."""
    if release is None or str(release) == "default":
        return None
    from sassview.errors import ToolchainError
    from sassview.toolchain import store

    found = store.find(str(release))
    ptxas = found.executable("ptxas")
    if ptxas is None:
        raise ToolchainError(
            f"toolchain {found.release} has no ptxas for Triton to run",
            f"add it again with its nvcc wheel: sassview toolchain add {found.release} --force",
        )
    found.check_files([ptxas], hashes=True)
    shown = f"{found.version_of('nvidia-cuda-nvcc') or found.release} (toolchain {found.release})"
    return found.key, str(ptxas), shown


_LAUNCH = ("num_warps", "num_stages", "num_ctas")


def launch_values_text(example: Mapping[str, Any], signature: Mapping[str, str]) -> str:
    """`launch_values=stride_x=8`: the runtime ints a declaration by example says the launch
    passes (the analyses must not offer `stride_x=1` to a launch that passes 8); ""."""
    shown = [
        f"{k}={v}"
        for k, v in example.items()
        if k in signature and isinstance(v, int) and not isinstance(v, bool) and v != 1
    ]
    return "launch_values=" + ",".join(shown) if shown else ""


def shared_keys(fn: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """The values of kernel parameters that are also launch options (`num_stages:
    tl.constexpr` in Triton's softmax tutorial). A launch's keyword `num_stages=4` sets both:
    Triton's binder gives it to the parameter and `parse_options` reads the same keyword."""
    from sassview.frontends.triton import option_names

    names = set(getattr(fn, "arg_names", ()))
    options = set(_LAUNCH) | option_names()
    return {k: v for k, v in values.items() if k in names and k in options}


def _set_launch(s: dict[str, Any], key: str, value: Any) -> None:
    if key in _LAUNCH:
        s[key] = value
    else:
        s["options"] = {**s["options"], key: value}


def autotune_key_text(key: Sequence[str], args: Mapping[str, Any] | None) -> str:
    """`autotune_key=M=4096,N=4096`: the autotuner's key, with the values a declaration by
    example gives it (a launch picks its config by these)."""
    shown = (f"{k}={args[k]}" if args and k in args else k for k in key)
    return "autotune_key=" + ",".join(shown)


_TRITON_KERNELS = ("JITFunction", "Autotuner", "Heuristics")  # @jit, @autotune, @heuristics


def is_kernel(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return module.startswith("triton") and type(obj).__name__ in _TRITON_KERNELS


def jit_of(obj: Any) -> Any:
    from sassview.frontends.triton import unwrap

    return unwrap(obj)[0]


def _helpers(names: Mapping[str, Any]) -> set[int]:
    """The @jit functions of the file that another @jit function calls by name: device
    functions, compiled into their callers, never launched, so never suggested."""
    jits = {n: jit_of(o) for n, o in names.items() if is_kernel(o)}
    if not jits:
        return set()
    calls = re.compile(r"\b(" + "|".join(map(re.escape, jits)) + r")\s*\(")
    called = {
        id(jits[callee])
        for name, fn in jits.items()
        for callee in calls.findall(getattr(fn, "src", ""))
        if callee != name
    }
    return called | {id(fn) for fn in jits.values() if _returns_a_value(fn)}


def _returns_a_value(jit: Any) -> bool:
    """Whether a @jit function returns something: a kernel cannot, so it is a helper."""
    import ast

    try:
        tree = ast.parse(getattr(jit, "src", ""))
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(tree))


def suggest(name: str, obj: Any) -> str:
    """The sv.triton line to add. A pointer's element type is taken from the module's own
    launch where it states it (frontends/triton_launch.py), else left `*?` and asked for:
    nothing in a @jit function says what a launch passes, and a guessed fp32 for an fp16
    launch compiles another kernel (TF32 dots, other spills). Other types are read from each
    parameter's annotation or name (ints i32, scales fp32), and said to be guesses.
    Constexprs with a default, or set by every autotune config, need no value."""
    import inspect

    from sassview.frontends.triton import unwrap
    from sassview.frontends.triton_launch import launch_of

    jit, configs = unwrap(obj)
    params = inspect.signature(jit.fn).parameters
    names = list(jit.arg_names)
    constexprs = {names[i] for i in jit.constexprs}
    configured = set.intersection(*(set(c) for c in configs)) if configs else set()
    launch = launch_of(jit, name)
    types = {p: guess_type(p, params[p].annotation) for p in names if p not in constexprs}
    stated = {p: t for p in types if launch and (t := launch.pointer_type(p))}
    types.update(stated)
    sig = ", ".join(f'"{p}": "{t}"' for p, t in types.items())
    wanted = [
        p
        for p in names
        if p in constexprs and p not in configured and params[p].default is inspect.Parameter.empty
    ]
    written = {p: a.literal for p in wanted if launch and (a := launch.args.get(p)) and a.literal}
    consts = ", ".join(f'"{p}": {written.get(p) or _guess_constexpr(p)}' for p in wanted)
    computed = [f"{p}={launch.args[p].expression}" for p in wanted if launch and p not in written
                and p in launch.args]  # fmt: skip
    return (
        f"sv.triton({name}, signature={{{sig}}}"
        + (f", constexprs={{{consts}}}" if consts else "")
        + ', arch="sm_90a")  ('
        + "; ".join(_suggestion_notes(types, stated, launch, names))
        + (
            f"; constexprs computed at the launch ({', '.join(computed)}): give the values it"
            " computes"
            if computed
            else ""
        )
        + "; or give what a launch passes, args=dict(x_ptr=sv.tensor('fp16', shape=(M, K)),"
        " n=4096, ...), and Triton's own rules derive the rest)"
    )


def _suggestion_notes(
    types: Mapping[str, str], stated: Mapping[str, str], launch: Any, names: Sequence[str]
) -> list[str]:
    """What the suggestion read, what it guessed and what it asks for, in that order."""
    notes = []
    where = f"{Path(launch.file).name}:{launch.line}" if launch is not None else ""
    if stated:
        notes.append(f"{', '.join(stated)}: element types as the launch at {where} states them")
    unknown = [p for p, t in types.items() if "?" in t and t.startswith("*")]
    if unknown:
        passed = [launch.args[p].expression for p in unknown if p in launch.args] if launch else []
        said = f" (the launch at {where} passes {', '.join(passed)})" if passed else ""
        notes.append(
            f"element type of {', '.join(unknown)} not knowable here{said}: give each, e.g. '*fp16'"
        )
    guessed = [p for p, t in types.items() if p not in stated and "?" not in t]
    if guessed:
        notes.append("other types guessed from the names: check each")
    strides = [p for p in names if p in types and "stride" in p.lower()]
    unit = [
        f"{p}={a.stride_of[0]}.stride({a.stride_of[1]})"
        for p in strides
        if launch is not None and (a := launch.args.get(p)) is not None and a.stride_of
        and a.stride_of[1] in ("1", "-1")
    ]  # fmt: skip
    if unit:
        notes.append(
            f"the launch passes {', '.join(unit)}: 1 for a contiguous tensor, which a Triton"
            " launch makes constexpr 1: give those in constexprs"
        )
    elif strides:
        notes.append(
            f"a stride launched as 1 ({strides[0]}=1 for a contiguous dimension) is constexpr 1"
            " at a Triton launch: give it in constexprs"
        )
    return notes


# Matched on the lower-cased name, in this order; M, N, K, H, Z alone are sizes (as in the
# Triton tutorials), x, y, out and *_ptr pointers.
_GUESSES = (
    (re.compile(r"\w*_ptrs?|ptrs?|[xy]|out|output|inp|input|dst|src"), "*?"),
    (
        re.compile(
            r"[nmkhz]|numel|size|len|count|n_\w+|num_\w+|stride\w*|\w+_stride\w*|seq_?len\w*"
            r"|\w+_(?:size|numel|len|elements|count|dim|rows|cols|offset)|offset\w*"
        ),
        "i32",
    ),
    (re.compile(r"eps|epsilon|alpha|beta|scale|\w+_scale|temperature|momentum"), "fp32"),
)
_TRITON_TYPE = re.compile(r"\*?(?:[iu]\d+|fp\d+\w*|bf16)|tensordesc<.+>")  # not "torch.Tensor"
_ANNOTATIONS = {int: "i32", "int": "i32", float: "fp32", "float": "fp32", bool: "i1", "bool": "i1"}


def guess_type(name: str, annotation: Any = None) -> str:
    """A Triton type for a parameter, from its annotation (int, float, a Triton type string
    such as "*fp16") or else its name: pointer names a pointer of unknown element type ("*?":
    a name says nothing of the dtype), sizes, counts and strides i32, scale factors fp32;
    "?" where neither tells."""
    if isinstance(annotation, (type, str)) and annotation in _ANNOTATIONS:
        return _ANNOTATIONS[annotation]
    if isinstance(annotation, str) and _TRITON_TYPE.fullmatch(annotation):
        return annotation
    for pattern, ty in _GUESSES:
        if pattern.fullmatch(name.lower()):
            return ty
    return "?"


def _guess_constexpr(name: str) -> str:
    """Block sizes get 128; flags (IS_CAUSAL, HAS_BIAS, EVEN_K, USE_...) False."""
    return "False" if re.match(r"(IS|HAS|USE|EVEN|ENABLE|DO)_", name) else "128"


def spill_knob(decl: Declaration, variant: Mapping[str, Any]) -> Knob | None:
    """One pipeline stage fewer: each stage holds its tiles in registers or shared memory."""
    stages = int(variant.get("num_stages", decl.settings.get("num_stages", 3)))
    if stages > 1:
        return Knob(f"num_stages={stages - 1}", variant={"num_stages": stages - 1})
    return None


def width_knob(decl: Declaration, variant: Mapping[str, Any] | None = None) -> Knob | None:
    """Pointer and integer parameters promised divisible by 16 (tt.divisibility), what
    Triton's launcher infers from real arguments and what lets it vectorize."""
    sig = decl.settings.get("signature", {})
    params = [name for name, kind in sig.items() if kind.startswith("*") or kind in ("i32", "i64")]
    have = set(decl.settings.get("divisibility", ()))
    if params and not set(params) <= have:
        return Knob(f"divisibility={params}", settings={"divisibility": tuple(params)})
    return None


def finding_knob(kind: str, data: Mapping[str, Any], decl: Declaration) -> Knob | None:
    """A contiguous dimension's stride passed at run time (analyses/triton_strides.py): the
    stride launched as 1, which Triton specializes to a constexpr 1."""
    if kind != "runtime-stride" or data.get("declared_multiple") or data.get("declared_value"):
        return None  # declared a multiple of 16, or another value: 1 is no launch of it
    from sassview.frontends.triton_args import unit_stride_settings

    name = str(data.get("argument"))
    return Knob(f"{name}=1", settings=unit_stride_settings(decl.settings, name))


# Triton has no vector types or `__restrict__`: its own ways to the same end.
VOCABULARY = Vocabulary(
    narrow=(
        "Triton widens loads and stores to 128 bits where it can prove 16-byte alignment and "
        "contiguity: pointer and size arguments divisible by 16 (Triton specializes them at "
        "launch; in a kernel.py, `divisibility=`), or `tl.multiple_of` / `tl.max_contiguous` on "
        "the offsets"
    ),
    merge=(
        "Triton makes these one vector access when it can prove the base 16-byte aligned: "
        "pointer and size arguments divisible by 16 (`divisibility=` in a kernel.py), or "
        "`tl.multiple_of` on the offsets"
    ),
    coalesce=(
        "make the contiguous dimension the fastest-varying offsets of the block (the last axis "
        "of the `tl.arange` offsets, `order=` of a block pointer), or load the tile along its "
        "contiguous dimension and `tl.trans` it"
    ),
    bank_conflict=(
        "Triton chooses shared layouts itself: a conflict here comes from a layout conversion "
        "(`tl.trans`, a reduction axis); try another `num_warps` or reshape so the conversion "
        "is not needed"
    ),
    spill=(
        "fewer values live per thread: smaller tiles (BLOCK_* constexprs), one pipeline stage "
        "fewer (num_stages: each holds its tiles), or more num_warps to share the tile"
    ),
    unroll="tl.range(..., loop_unroll_factor=N)",
    stages="num_stages",
)

SPEC = FrontendSpec(
    kind="triton",
    title="Triton",
    declarations=("triton",),
    helpers=("tensor", "tensor_descriptor"),  # example arguments for args=
    declare_module="sassview.declare",
    compile=compile_job,
    package="triton",
    extra="triton",
    modules=("triton",),
    version=lambda: distribution_version("triton"),
    vocabulary=VOCABULARY,
    tile=True,
    ir_unrolls=True,
    detection=Detection(is_kernel, suggest, target=jit_of, helpers=_helpers),
    spill_knob=spill_knob,
    finding_knob=finding_knob,
    width_knob=width_knob,
)
