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
    sv.cutile(vadd, [array_f32, array_f32, array_f32, 256], arch="sm_100a")

Each frontend's declarations are named in its spec (frontends/registry.py).

`variants` is a grid: every combination of its values is one variant, compiled for every
architecture. `sassview kernel.py` imports the file the way pytest imports a test module and
compiles each (declaration, arch, variant).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from sassview.errors import InputError
from sassview.frontends.arch import DEFAULT_ARCH
from sassview.frontends.declaration import Declaration, collecting, register_declaration
from sassview.frontends.triton_args import tensor, tensor_descriptor

if TYPE_CHECKING:
    import sys

    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

    from sassview.frontends.build_options import BuildKeywords

__all__ = [
    "Declaration",
    "collecting",
    "cuda",
    "cuda_file",
    "cute",
    "tensor",
    "tensor_descriptor",
    "triton",
]


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


def cuda(
    source: str,
    *,
    arch: str | Sequence[str] = DEFAULT_ARCH,
    name: str | None = None,
    defines: Mapping[str, Any] | Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    options: Sequence[str] = (),
    variants: Mapping[str, Sequence[Any]] | None = None,
    compiler: str = "auto",
) -> Declaration:
    """CUDA C++ held in a Python string. `variants` keys are macros (`TILE`) or options
    (`-maxrregcount`, `--use_fast_math` with values [False, True]); `compiler`: "auto" (NVRTC,
    or nvcc for host code and host headers), "nvrtc" or "nvcc", as `sv.cuda_file` takes it."""
    if not isinstance(source, str) or "__global__" not in source:
        raise InputError(
            "sassview.cuda() needs CUDA C++ source text with a __global__ kernel",
            "for a .cu file use sassview.cuda_file('kernel.cu', ...)",
        )
    from sassview.frontends.build_options import BuildOptions

    try:  # the keywords read as every way in reads them: the same errors, said here
        BuildOptions.of(options=options, compiler=compiler)
    except InputError as exc:
        raise InputError(f"sv.cuda(): {exc.message}", exc.hint) from None
    # "compiler" only where asked: the settings of every other declaration stay as they were
    chosen = {} if compiler == "auto" else {"compiler": compiler}
    return register_declaration(
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
                    **chosen,
                }
            ),
            _variants(variants),
            line=_caller_line(),
        )
    )


def cuda_file(
    path: str | Path,
    *,
    arch: str | Sequence[str] = DEFAULT_ARCH,
    variants: Mapping[str, Sequence[Any]] | None = None,
    **build: Unpack[BuildKeywords],
) -> Declaration:
    """A .cu or .cuh file, relative to the kernel file, built as `sassview check` builds it.

    The build's keywords are BuildOptions' (frontends/build_options.py), paths relative to the
    kernel file: `defines` (a list or a mapping), `include_dirs`, `options`; `compiler`:
    "auto" (NVRTC, or nvcc when the file has host code or host headers), "nvrtc" or "nvcc";
    `instantiate`: template kernels to compile, `["tile<128, float>"]`; `include_before`:
    files included ahead of it (what a header expects its includer to define);
    `host_compiler`: the C++ compiler nvcc drives (the CLI's --host-compiler);
    `compile_commands`: True takes the flags of the compile_commands.json found above the file,
    a directory (relative to the kernel file) the one in it (the CLI's -p), False none;
    `included_by`: a file that #includes this header, its lines before that go first;
    `toolchain`: a CUDA release added with `sassview toolchain add`.
    """
    from sassview.frontends.build_options import BuildOptions, declaration_settings

    try:
        declared = BuildOptions.of(**build)
    except InputError as exc:
        raise InputError(f"sv.cuda_file({path!r}): {exc.message}", exc.hint) from None
    return register_declaration(
        Declaration(
            "cuda",
            Path(path).name,
            str(path),
            _archs(arch),
            MappingProxyType(declaration_settings(declared)),
            _variants(variants),
            line=_caller_line(),
        )
    )


def triton(
    fn: Any,
    *,
    signature: Mapping[str, str] | None = None,
    args: Mapping[str, Any] | None = None,
    constexprs: Mapping[str, Any] | None = None,
    divisibility: Sequence[str] = (),
    arch: str | Sequence[str] = DEFAULT_ARCH,
    num_warps: int | None = None,
    num_stages: int | None = None,
    num_ctas: int | None = None,
    options: Mapping[str, Any] | None = None,
    variants: Mapping[str, Sequence[Any]] | None = None,
) -> Declaration:
    """A @triton.jit kernel (or a Gluon @gluon.jit one), or a @triton.autotune one: each of
    its configs is a variant; @triton.heuristics values are computed per variant where they
    need no runtime argument. `variants` keys are options (num_warps, num_stages, maxnreg,
    ...) or constexpr names (BLOCK). A launch option that is also a kernel parameter
    (`num_stages: tl.constexpr`) is set for both, as a launch's one keyword sets both
    (defaults: num_warps 4, num_stages 3, num_ctas 1).

    Either `signature` (types; `divisibility` names the 16-divisible ones) or `args`: what a
    launch passes, `args=dict(x=sv.tensor("fp16", shape=(M, K)), stride_xk=1, M=4096)`, from
    which the signature, divisibility and constexprs (ints equal to 1 included) are derived as
    Triton's JIT derives them (see sassview.frontends.triton_args)."""
    from sassview.frontends import registry
    from sassview.frontends.triton import autotune_of, heuristics_of, unwrap

    _one_of_signature_or_args(signature, args, divisibility)
    jit_fn = unwrap(fn)[0]
    launch = {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": num_ctas}
    _one_value_per_keyword(jit_fn, launch, options or {}, {**(constexprs or {}), **(args or {})})
    dialect = registry.detect(jit_fn)  # Triton's, or Gluon's for a @gluon.jit kernel
    tune = autotune_of(fn, None if args is None else {**(constexprs or {}), **args})
    return register_declaration(
        Declaration(
            dialect.kind if dialect is not None else "triton",
            str(getattr(jit_fn, "__name__", "kernel")),
            jit_fn,
            _archs(arch),
            MappingProxyType(
                {
                    "signature": dict(signature or {}),
                    "args": None if args is None else MappingProxyType(dict(args)),
                    "constexprs": dict(constexprs or {}),
                    "divisibility": tuple(divisibility),
                    "num_warps": 4 if num_warps is None else num_warps,
                    "num_stages": 3 if num_stages is None else num_stages,
                    "num_ctas": 1 if num_ctas is None else num_ctas,
                    "options": dict(options or {}),
                    "heuristics": heuristics_of(fn),
                    "autotune_key": tune.key,
                    "autotune_notes": tune.notes,
                }
            ),
            _variants(variants),
            line=_caller_line(),
            configs=tuple(MappingProxyType(c) for c in tune.configs),
        )
    )


gluon = triton  # a Gluon @gluon.jit kernel: sv.triton takes it too; the name reads better


def _one_value_per_keyword(
    fn: Any, launch: Mapping[str, Any], options: Mapping[str, Any], values: Mapping[str, Any]
) -> None:
    """A kernel parameter named as a launch option is one keyword at a launch
    (`kernel[grid](..., num_stages=4)` sets both): two different values are no launch."""
    from sassview.frontends.specs.triton import shared_keys

    given = {**{k: v for k, v in launch.items() if v is not None}, **options}
    for key, value in shared_keys(fn, values).items():
        if key in given and given[key] != value:
            raise InputError(
                f"sv.triton({getattr(fn, '__name__', 'kernel')}): {key} is both a launch option"
                f" ({key}={given[key]!r}) and a kernel parameter ({key}={value!r} in"
                " constexprs or args)",
                f"a launch's one keyword {key}= sets both: give it once (the parameter's value"
                " is used for the option too)",
            )


def _one_of_signature_or_args(
    signature: Mapping[str, str] | None, args: Mapping[str, Any] | None, divisibility: Sequence[str]
) -> None:
    if signature is None and args is None:
        raise InputError(
            "sv.triton() needs signature= or args=",
            "args=dict(x=sv.tensor('fp16', shape=(M, K)), M=4096, ...) gives what a launch passes",
        )
    if signature is not None and args is not None:
        raise InputError(
            "sv.triton() takes signature= or args=, not both",
            "args= derives the signature from the values",
        )
    if args is not None and divisibility:
        raise InputError(
            "sv.triton(args=...) derives divisibility from the values: drop divisibility=",
            "an address or int that is not a multiple of 16: sv.tensor(..., align=8), M=4097",
        )


def cute(
    fn: Callable[..., Any],
    *args: Any,
    arch: str | Sequence[str] = "sm_100a",
    options: str = "",
    variants: Mapping[str, Sequence[Any]] | None = None,
) -> Declaration:
    """A CuTe DSL @cute.jit host function (or kernel object), with the (fake) arguments to
    compile it for; `variants` values are its keyword arguments.

    Or a factory, `sv.cute(make, arch=["sm_90a", "sm_100a"])`: a plain function given no
    arguments, called as `make(arch, **variant)` once per architecture and variant with the
    DSL's architecture already set, returning `(host, *fake_args)`. Objects that read the arch
    when they are built (a kernel class checking for sm_90 in `__init__`) need one.
    """
    from sassview.frontends.cute_arch import CuteFactory, is_factory

    target: Any = CuteFactory(fn) if is_factory(fn, args) else fn
    return register_declaration(
        Declaration(
            "cute",
            str(getattr(fn, "__name__", None) or type(fn).__name__),  # a kernel object: its class
            target,
            _archs(arch),
            MappingProxyType({"options": options}),
            _variants(variants),
            args=tuple(args),
            line=_caller_line(),
        )
    )


def cutile(
    kernel: Any,
    parameters: Sequence[Any] | Mapping[str, Any],
    *,
    arch: str | Sequence[str] = "sm_100a",
    hints: Mapping[str, Any] | None = None,
    calling_convention: Any = None,
    variants: Mapping[str, Sequence[Any]] | None = None,
) -> Declaration:
    """A cuTile Python @ct.kernel, with its signature as cuTile's export API takes it: one
    ArrayConstraint / ScalarConstraint / constant per parameter, in order or by name.
    `hints`: ct.kernel's (occupancy, num_ctas, opt_level, num_worker_warps). `variants` keys
    are those hints or parameter names (a constant's values: {"TILE": [128, 256]})."""
    import inspect

    fn = getattr(kernel, "_pyfunc", kernel)
    names = list(inspect.signature(fn).parameters) if callable(fn) else []
    if isinstance(parameters, Mapping):
        missing = [n for n in names if n not in parameters]
        if missing or len(parameters) != len(names):
            raise InputError(
                f"sv.cutile({getattr(fn, '__name__', kernel)}): parameters name"
                f" {', '.join(parameters)}, the kernel takes {', '.join(names)}",
                "give one constraint or constant per kernel parameter",
            )
        parameters = [parameters[n] for n in names]
    return register_declaration(
        Declaration(
            "cutile",
            str(getattr(fn, "__name__", "kernel")),
            kernel,
            _archs(arch),
            MappingProxyType(
                {
                    "parameters": tuple(parameters),
                    "names": tuple(names),
                    "hints": dict(hints or {}),
                    "calling_convention": calling_convention,
                }
            ),
            _variants(variants),
            line=_caller_line(),
        )
    )


def _defines(defines: Mapping[str, Any] | Sequence[str]) -> tuple[str, ...]:
    from sassview.frontends.build_options import define_list

    return define_list(defines)


def _first_kernel_name(source: str) -> str:
    import re

    m = re.search(r"__global__\s+(?:[\w:<>,\s*&]+?\s+)?(\w+)\s*\(", source)
    return m.group(1) if m else "kernel"
