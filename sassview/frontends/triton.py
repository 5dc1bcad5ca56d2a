"""Triton kernels through `triton.compile` with an explicit GPUTarget: every IR stage, PTX, cubin.

No GPU and no driver are needed: the target is always given (without one Triton asks the driver).
Triton runs its own bundled ptxas (12.9 below sm_90, 13.x from sm_90 on); its `-v` report, the
only source of spill byte counts, is printed only when `knobs.nvidia.dump_ptxas_log` is on, so it
is switched on and stdout is captured during the compile (nothing reaches the user's terminal).

Two quirks of Triton 3.9 are handled here, both for the sake of the line tables:
- Triton's LLVM emits one `.loc` per line of an inline PTX block, counting the source line up by
  one per asm line (llvm/llvm-project#177718, undone for generated blocks by #222764), so a
  `tl.load` on line 16 shows up as lines 16..19 and, at a kernel's end, past it. A stage hook
  (`knobs.runtime.add_stages_inspection_hook`) gives every `.loc` inside a `// begin inline asm`
  block the block's first one before ptxas runs, so PTX and cubin agree and point at the call.
- Triton's own cache would skip ptxas (and so the report) on a hit and clutter ~/.triton: each
  compile gets a fresh TRITON_CACHE_DIR under sassview's cache, removed afterwards; sassview's
  own cache sits in front.

Knobs and stdout are process-wide, so compiles are serialized with a lock.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import logging
import os
import re
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from sassview import cache
from sassview.cache.get_or_build import Said, get_or_build, text_of
from sassview.errors import CompileError, InputError, ToolchainError
from sassview.frontends.arch import DEFAULT_ARCH, parse_arch
from sassview.ir import Artifacts
from sassview.toolchain.locate import toolchain_identity, toolchain_versions

log = logging.getLogger("sassview")
_LOCK = threading.Lock()

# Compute capabilities Triton 3.9 compiles for (checked one by one). 101 is left out on purpose:
# LLVM aborts the whole process on it (tcgen05 selection); CUDA 13 calls it 110.
TRITON_CCS = (75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121)
STAGES = ("ttir", "ttgir", "llir", "metadata")  # metadata: Triton's JSON (dynamic smem size)
# A Gluon kernel (triton.experimental.gluon, explicit layouts) compiles through the same path
# from a GluonASTSource; its first stage is GLIR where Triton's is TTIR.
GLUON_STAGES = ("glir", "ttgir", "llir", "metadata")
LOC_FIX = "inline-asm-loc=first"  # recorded in the options and the cache key
_MANAGED_OPTIONS = ("num_warps", "num_stages", "num_ctas", "arch")


def compile_triton(
    fn: Any,
    *,
    signature: Mapping[str, str],
    constexprs: Mapping[str, Any] | None = None,
    divisibility: Sequence[str] = (),
    arch: str = DEFAULT_ARCH,
    num_warps: int = 4,
    num_stages: int = 3,
    num_ctas: int = 1,
    options: Mapping[str, Any] | None = None,
    ptxas: tuple[str, str, str] | None = None,
) -> Artifacts:
    """Compile one `@triton.jit` kernel for one architecture, without a GPU.

    `ptxas`: (a stored toolchain's key, its ptxas, its name for headers) to run instead of
    the one Triton bundles (knobs.nvidia.ptxas below sm_90, ptxas_blackwell from sm_90 on:
    both are set).

    `signature` maps parameter names to Triton types (`*fp32`, `i32`, `fp16`...); parameters given
    in `constexprs` may be left out of it. `divisibility` names the pointer or integer parameters
    promised to be multiples of 16 (what Triton's launcher infers from real arguments, and what
    lets it vectorize). `options` are further Triton compile options (`maxnreg`, `enable_fp_fusion`,
    ...). Cached by the kernel's `cache_key` (its source, its @jit callees', its line), the file,
    the specialization, the options, the arch and the tool versions.
    """
    triton = _import_triton()
    from triton.runtime.jit import JITFunction

    gluon = is_gluon(fn)
    kind, stages = ("gluon", GLUON_STAGES) if gluon else ("triton", STAGES)

    if not isinstance(fn, JITFunction):
        raise InputError(
            f"{getattr(fn, '__name__', fn)!r} is not a @triton.jit function",
            "decorate the kernel with @triton.jit (sv.triton also takes @triton.autotune ones)",
        )
    cc = target_cc(arch)
    sig, constants, attrs = _specialize(fn, signature, constexprs or {}, divisibility)
    opts = _options(num_warps, num_stages, num_ctas, options or {})

    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend

    target = GPUTarget("cuda", cc, 32)
    backend = make_backend(target)
    swap = _ptxas_swapped(ptxas)
    with _quiet_fp_fusion_warning():
        try:
            parsed = backend.parse_options(dict(opts))
        except (AssertionError, ValueError, TypeError) as exc:
            raise InputError(
                f"Triton rejects these options: {exc}", "check num_warps/num_ctas"
            ) from exc
    arch_name = f"sm_{cc}a" if cc >= 90 else f"sm_{cc}"
    path = fn.fn.__code__.co_filename  # as the line tables spell it
    versions = {
        "triton": triton.__version__,
        # Triton's get_ptxas_version is lru-cached per arch: a swapped ptxas keys by its
        # toolchain instead of by what the hash says.
        "ptxas": ptxas[2] if ptxas else _ptxas_version(backend),
        **toolchain_versions(),
        **({"stored": ptxas[0].split(":")[0], "toolchain": ptxas[0]} if ptxas else {}),
    }
    described = _describe(opts, parsed, sig, constants, divisibility)
    key = cache.make_key(
        {
            "frontend": kind,
            "file": path,
            "kernel": fn.__name__,
            "cache_key": fn.cache_key,  # source + line + @jit callees + constexpr globals
            "signature": sig,
            "constants": {str(k): repr(v) for k, v in constants.items()},
            "attrs": {str(k): v for k, v in attrs.items()},
            "options": parsed.hash(),
            "backend": backend.hash(),
            "arch": arch_name,
            "fix": LOC_FIX,
            "tools": versions,
            "tool_files": toolchain_identity(),  # which files, not only their word
        }
    )

    def build() -> Mapping[str, bytes | str]:
        source = _source_class(gluon)(fn=fn, signature=sig, constexprs=constants, attrs=attrs)
        kernel, report = _run(triton, source, target, opts, fn, swap)
        asm = kernel.asm
        return {
            "kernel.ptx": asm["ptx"],
            "kernel.cubin": asm["cubin"],
            "compile.log": report,
            **{f"{s}.txt": asm.get(s, "") for s in stages[:-1]},
            "metadata.txt": json.dumps(kernel.metadata._asdict(), default=str, sort_keys=True),
        }

    files = get_or_build(
        cache.Store("triton"),
        key,
        _files(stages),
        build,
        said=Said(log, "triton", fn.__name__, arch_name),
        meta={"kernel": fn.__name__, "arch": arch_name},
    )
    return Artifacts(
        kind=kind,
        arch=arch_name,
        source_path=path,
        source_text=_read_text(path),
        ptx=text_of(files["kernel.ptx"]),
        cubin=bytes(files["kernel.cubin"]) if isinstance(files["kernel.cubin"], bytes) else b"",
        compile_log=text_of(files["compile.log"]),
        options=described,
        toolchain=MappingProxyType(versions),
        stages=MappingProxyType({s: text_of(files[f"{s}.txt"]) for s in stages}),
    )


def _files(stages: Sequence[str]) -> tuple[str, ...]:
    return ("kernel.ptx", "kernel.cubin", "compile.log", *(f"{s}.txt" for s in stages))


def is_gluon(fn: Any) -> bool:
    """A @gluon.jit kernel (a JITFunction subclass)."""
    return type(fn).__name__ == "GluonJITFunction" and (type(fn).__module__ or "").startswith(
        "triton"
    )


def _source_class(gluon: bool) -> Any:
    if gluon:
        from triton.experimental.gluon import GluonASTSource

        return GluonASTSource
    from triton.compiler import ASTSource

    return ASTSource


def unwrap(fn: Any) -> tuple[Any, tuple[dict[str, Any], ...]]:
    """The @jit function under `@triton.autotune` / `@triton.heuristics` wrappers, and each
    autotune config as a variant: its constexprs, then the launch options it sets (what
    `Config.all_kwargs()` hands the launcher). num_ctas and maxnreg appear only where a config
    sets them to other than Triton's default, so labels stay short (`heuristics_of` finds the
    `@triton.heuristics` values)."""
    configs: tuple[dict[str, Any], ...] = ()
    while not _is_jit(fn) and hasattr(fn, "fn"):
        if not configs and hasattr(fn, "configs"):  # the outermost autotune decides
            configs = tuple(_config_variant(c) for c in fn.configs)
        fn = fn.fn
    return fn, configs


@dataclass(frozen=True)
class Autotune:
    """What a declaration takes from `@triton.autotune`: the configs a launch would choose
    among, its `key` (the arguments whose values pick a config; recorded and shown), and notes
    on what could not be applied without a GPU."""

    configs: tuple[dict[str, Any], ...]
    key: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def autotune_of(fn: Any, named_args: Mapping[str, Any] | None) -> Autotune:
    """The outermost autotuner's configs, pruned as a launch prunes them where no GPU is
    needed: `prune_configs_by={"early_config_prune": f}` is called as the autotuner calls it,
    `f(configs, named_args)`, on the declared example arguments (`args=`); without them it
    cannot be, and every config is kept. `perf_model` / `top_k` rank configs by a predicted
    time, which the models Triton ships compute from a GPU's properties: not applied."""
    tuner = fn
    while not _is_jit(tuner) and not hasattr(tuner, "configs") and hasattr(tuner, "fn"):
        tuner = tuner.fn
    if _is_jit(tuner) or not hasattr(tuner, "configs"):
        return Autotune(())
    name = getattr(unwrap(fn)[0], "__name__", "kernel")
    configs = list(tuner.configs)
    notes: list[str] = []
    prune = getattr(tuner, "early_config_prune", None)
    if prune is not None and named_args is None:
        notes.append("early_config_prune not applied: declare the launch's args= to apply it")
    elif prune is not None:
        configs = _pruned(name, prune, configs, dict(named_args or {}))
        notes.append(f"early_config_prune kept {len(configs)} of {len(tuner.configs)} configs")
    if getattr(tuner, "perf_model", None) is not None:
        notes.append("perf_model/top_k not applied: they rank configs by a GPU's timings")
    key = tuple(str(k) for k in getattr(tuner, "keys", ()) or ())
    return Autotune(tuple(_config_variant(c) for c in configs), key, tuple(notes))


def _pruned(name: str, prune: Any, configs: list[Any], named_args: dict[str, Any]) -> list[Any]:
    try:
        kept = list(prune(configs, named_args))
    except Exception as exc:
        raise InputError(
            f"{name}: prune_configs_by's early_config_prune raised {type(exc).__name__}: {exc}",
            "it runs on the declared args= (sv.tensor stands for a tensor: dtype, shape,"
            " stride(), element_size()); one that asks the GPU cannot run here",
        ) from None
    if not kept:
        raise InputError(
            f"{name}: early_config_prune kept no config for these arguments",
            "a launch with them fails the same way: check the args= values",
        )
    return kept


def heuristics_of(fn: Any) -> tuple[tuple[str, Any], ...]:
    """The `@triton.heuristics` values over a kernel, (name, function) in the order a launch
    computes them (outer decorator first)."""
    out: list[tuple[str, Any]] = []
    while not _is_jit(fn) and hasattr(fn, "fn"):
        if not hasattr(fn, "configs"):  # an Autotuner has no heuristics of its own
            out.extend(getattr(fn, "values", {}).items())
        fn = fn.fn
    return tuple(out)


def apply_heuristics(
    kernel: str, heuristics: Sequence[tuple[str, Any]], known: Mapping[str, Any]
) -> dict[str, Any]:
    """Heuristic values computed as at a launch, on what a declaration knows (constexprs, a
    config's values, num_warps...). A value given in `known` is kept, as the user's choice; a
    heuristic that reads a runtime argument (a size) cannot run here: its value must be given."""
    args = dict(known)
    out: dict[str, Any] = {}
    for name, heuristic in heuristics:
        if name in known:
            continue
        try:
            value = heuristic(args)
        except KeyError as exc:
            raise InputError(
                f"{kernel}: @triton.heuristics value {name!r} reads {exc.args[0]!r}, known only"
                " at a launch",
                f"give the value that launch computes: constexprs={{{name!r}: ...}}, or"
                " declare the launch's values with args=",
            ) from None
        except Exception as exc:
            raise InputError(
                f"{kernel}: @triton.heuristics value {name!r} raised {type(exc).__name__}: {exc}",
                f"give its value: constexprs={{{name!r}: ...}}",
            ) from None
        args[name] = out[name] = value
    return out


def _is_jit(fn: Any) -> bool:
    named = type(fn).__name__ == "JITFunction" and (type(fn).__module__ or "").startswith("triton")
    return named or is_gluon(fn)


def _config_variant(config: Any) -> dict[str, Any]:
    out = {**config.kwargs, "num_warps": config.num_warps, "num_stages": config.num_stages}
    if config.num_ctas not in (None, 1):
        out["num_ctas"] = config.num_ctas
    if config.maxnreg is not None:
        out["maxnreg"] = config.maxnreg
    return out


def option_names() -> frozenset[str]:
    """Triton's compile options for CUDA that a declaration may set (`maxnreg`, ...)."""
    from triton.backends.nvidia.compiler import CUDAOptions

    return frozenset(CUDAOptions.__dataclass_fields__) - {"backend_name", "warp_size", "arch"}


def _import_triton() -> Any:
    try:
        import triton
    except ImportError:
        raise ToolchainError("Triton is not installed", "pip install triton") from None
    return triton


def target_cc(arch: str) -> int:
    """sm_90a -> 90. Triton emits the `a` variant from sm_90 on: sm_90 and sm_90a agree."""
    works = ", ".join(f"sm_{c}a" if c >= 90 else f"sm_{c}" for c in TRITON_CCS)
    try:
        number = parse_arch(arch, check_supported=False).number
    except InputError:
        raise InputError(f"{arch!r} is not an architecture name", f"use one of {works}") from None
    if number not in TRITON_CCS:
        raise InputError(f"Triton cannot target {arch}", f"architectures that work: {works}")
    return number


def _specialize(
    fn: Any,
    signature: Mapping[str, str],
    constexprs: Mapping[str, Any],
    divisibility: Sequence[str],
) -> tuple[dict[str, str], dict[tuple[int, ...], Any], dict[tuple[int, ...], list[list[Any]]]]:
    """Check the user's specialization against the kernel's parameters; build what ASTSource takes.

    Triton itself fails late and cryptically on these mistakes ('NoneType' has no attribute
    'dtype'), so every parameter is accounted for here, by name.
    """
    names: list[str] = list(fn.arg_names)
    declared_constexpr = {names[i] for i in fn.constexprs}
    for given in (*signature, *(k for k in constexprs if isinstance(k, str)), *divisibility):
        if given not in names:
            raise InputError(
                f"{fn.__name__} has no parameter {given!r}", "its parameters: " + ", ".join(names)
            )
    constants: dict[tuple[int, ...], Any] = {}
    for k, v in constexprs.items():
        constants[(names.index(k),) if isinstance(k, str) else tuple(k)] = v
    defaults = inspect.signature(fn.fn).parameters
    for i in fn.constexprs:  # a constexpr with a default needs no value, as at a launch
        default = defaults[names[i]].default
        if (i,) not in constants and default is not inspect.Parameter.empty:
            constants[(i,)] = default
    const_names = {names[k[0]] for k in constants if len(k) == 1}
    sig: dict[str, str] = {}
    for name in names:
        ty = signature.get(name)
        if name in const_names:
            if ty not in (None, "constexpr"):
                raise InputError(
                    f"{name} has a constexpr value and the type {ty!r}", "give it one or the other"
                )
            sig[name] = "constexpr"
        elif name in declared_constexpr or ty == "constexpr":
            raise InputError(
                f"{fn.__name__}: constexpr parameter {name!r} has no value",
                f"pass constexprs={{{name!r}: ...}}",
            )
        elif ty is None:
            raise InputError(
                f"{fn.__name__}: parameter {name!r} is missing from the signature",
                f"give its type, e.g. signature={{..., {name!r}: '*fp32'}} or 'i32'",
            )
        else:
            _check_type(name, ty)
            sig[name] = ty
    attrs: dict[tuple[int, ...], list[list[Any]]] = {}
    for name in divisibility:
        if sig[name] == "constexpr":
            raise InputError(f"{name} is a constexpr: divisibility does not apply", "drop it")
        attrs[(names.index(name),)] = [["tt.divisibility", 16]]
    return sig, constants, attrs


def _check_type(name: str, ty: str) -> None:
    if "?" in ty:  # left so by a suggested declaration: the launch did not say
        raise InputError(
            f"parameter {name!r}: its type {ty!r} was left for you to give (the kernel's module"
            " does not state what its launch passes)",
            f"give the type a launch passes, e.g. {name!r}: '*fp16' (a pointer to fp16), or"
            " declare by example: args=dict(..., " + name + "=sv.tensor('fp16', shape=(M, K)))",
        )
    try:
        from triton.compiler.code_generator import str_to_ty
    except ImportError:  # another Triton layout: let triton.compile judge
        return
    try:
        str_to_ty(ty, None)
    except Exception:
        raise InputError(
            f"parameter {name!r}: {ty!r} is not a Triton type",
            "use e.g. *fp32, *fp16, *bf16, *i8, i32, i64, fp32",
        ) from None


def _options(
    num_warps: int, num_stages: int, num_ctas: int, options: Mapping[str, Any]
) -> dict[str, Any]:
    known = option_names()
    for k in options:
        if k in _MANAGED_OPTIONS:
            raise InputError(f"pass {k} as its own argument, not in options", f"{k}=...")
        if k not in known:
            raise InputError(
                f"{k!r} is not a Triton compile option", "known: " + ", ".join(sorted(known))
            )
    return {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": num_ctas, **options}


def _describe(
    opts: Mapping[str, Any],
    parsed: Any,
    sig: Mapping[str, str],
    constants: Mapping[tuple[int, ...], Any],
    divisibility: Sequence[str],
) -> tuple[str, ...]:
    out = [f"{k}={v}" for k, v in sorted(opts.items())]
    if "enable_fp_fusion" not in opts:
        out.append(f"enable_fp_fusion={parsed.enable_fp_fusion}")
    out.append("signature=" + ",".join(f"{n}:{t}" for n, t in sig.items()))
    names = list(sig)
    if constants:
        shown = (f"{names[k[0]] if len(k) == 1 else k}={v!r}" for k, v in sorted(constants.items()))
        out.append("constexprs=" + ",".join(shown))
    if divisibility:
        out.append("divisibility=" + ",".join(divisibility))
    out.append(LOC_FIX)
    return tuple(out)


def _ptxas_version(backend: Any) -> str:
    match = re.search(r"release (\d+\.\d+), V([\d.]+)", backend.hash())
    return match.group(2) if match else backend.hash()


@contextlib.contextmanager
def _quiet_fp_fusion_warning() -> Iterator[None]:
    """Triton 3.9 warns on every options parse that its fp-fusion default will change in 3.10.

    The resolved value is recorded in Artifacts.options instead.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION is unset")
        yield


def _ptxas_swapped(ptxas: tuple[str, str, str] | None) -> Any:
    """A context that points both of Triton's ptxas knobs at `ptxas` (or changes nothing)."""
    if ptxas is None:
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def swapped() -> Iterator[None]:
        from triton import knobs

        with knobs.nvidia.scope():
            knobs.nvidia.ptxas = ptxas[1]
            knobs.nvidia.ptxas_blackwell = ptxas[1]
            yield

    return swapped()


def _run(
    triton: Any, source: Any, target: Any, opts: dict[str, Any], fn: Any, swap: Any = None
) -> tuple[Any, str]:
    """Compile with line info on, ptxas' report captured and Triton's cache in a temporary place."""
    from triton import knobs
    from triton.compiler.errors import CompilationError

    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_LOCK)
        scratch = stack.enter_context(tempfile.TemporaryDirectory(dir=cache.scratch_dir("triton")))
        for group in (knobs.cache, knobs.compilation, knobs.nvidia, knobs.runtime):
            stack.enter_context(group.scope())
        if swap is not None:
            stack.enter_context(swap)
        knobs.cache.dir = scratch
        knobs.compilation.always_compile = True
        knobs.compilation.disable_line_info = False
        knobs.nvidia.dump_ptxas_log = True
        knobs.runtime.add_stages_inspection_hook = _loc_hook(
            knobs.runtime.add_stages_inspection_hook
        )
        stack.enter_context(_quiet_fp_fusion_warning())
        stack.enter_context(contextlib.redirect_stdout(out))
        native = stack.enter_context(_native_stderr())
        try:
            # CompiledKernel reads every stage from the cache directory right away, so the
            # directory can go when this block ends.
            kernel = triton.compile(source, target=target, options=opts)
        except CompilationError as exc:
            raise _compile_error(exc, fn) from exc
        except Exception as exc:  # PTXASError, LLVM and MLIR failures, internal assertions
            printed = native.read()
            first = _mlir_error(printed) or (str(exc).strip().splitlines() or [""])[0]
            raise CompileError(
                f"Triton failed to compile {fn.__name__}: {type(exc).__name__}: {first}",
                _failure_hint(exc, fn),
                detail=f"{exc}\n{out.getvalue()}\n{printed}".strip(),
            ) from exc
        if printed := native.read():  # warnings of a compile that worked: for -v only
            log.info("triton: %s printed: %s", fn.__name__, printed)
    return kernel, _normalize_report(out.getvalue())


_MLIR_ERROR = re.compile(r"^(\S+:\d+:\d+): error: (.+)$", re.MULTILINE)
_MLIR_PASS = re.compile(r"Pipeline failed while executing \[`(\w+)`")


def _mlir_error(printed: str) -> str | None:
    """A failed MLIR pass's own words, where its exception says only "PassManager::run
    failed": the first diagnostic (`k.py:7:1: error: ...`) and the pass, as printed."""
    found = _MLIR_ERROR.search(printed)
    if found is None:
        return None
    step = _MLIR_PASS.search(printed)
    return f"{found.group(1)}: {found.group(2)}" + (f" (in {step.group(1)})" if step else "")


class _Captured:
    """What native code wrote to file descriptor 2 inside `_native_stderr`."""

    def __init__(self, file: Any) -> None:
        self.file = file  # None: nothing was redirected

    def read(self) -> str:
        if self.file is None:
            return ""
        sys.stderr.flush()
        self.file.seek(0)
        return str(self.file.read().decode("utf-8", errors="replace")).strip()


@contextlib.contextmanager
def _native_stderr() -> Iterator[_Captured]:
    """File descriptor 2 into a temporary file while Triton compiles: MLIR's C++ diagnostics
    (a failing pass prints the whole module and a reproducer, ~50 lines) bypass Python and
    would reach the user's terminal ahead of sassview's one message; they go into the error's
    detail instead. fd 2 is process-wide: only the main thread redirects it (a CLI command, a
    forked compile worker, pytest). A compile in another thread (the TUI's worker) leaves it
    alone, since the main thread may be drawing there (Textual writes to stderr)."""
    if threading.current_thread() is not threading.main_thread():
        yield _Captured(None)
        return
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as file:
        os.dup2(file.fileno(), 2)
        try:
            yield _Captured(file)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _failure_hint(exc: Exception, fn: Any) -> str:
    """What to do about a failure inside Triton. One we know: LLVM copies the kernel file's name
    into the PTX, and the ptxas Triton bundles for older targets (sm_80) stops at a non-ASCII
    character there ("Unexpected non-ASCII character"), where newer ones accept it."""
    path = getattr(getattr(fn, "fn", fn), "__code__", None)
    name = path.co_filename if path is not None else ""
    if "non-ASCII character" in str(exc) and not name.isascii():
        return (
            f"Triton's ptxas for this target refuses the non-ASCII characters of {name} that"
            " LLVM writes into the PTX: give the file an ASCII name, or"
            " compile for sm_90a or later"
        )
    return "a Triton limitation or bug; the detail holds what Triton printed"


def _loc_hook(previous: Any) -> Any:
    """A stage hook that collapses the per-line `.loc`s of inline PTX, chained after any other."""

    def hook(*args: Any) -> Any:
        if not args:  # asked for its part of Triton's cache key
            key, digest = previous() if previous else ("", "")
            return f"{key}-sassview-{LOC_FIX}", digest
        if previous:
            previous(*args)
        stages = args[1]
        make_ptx = stages.get("ptx")
        if make_ptx is not None:
            stages["ptx"] = lambda src, metadata: collapse_inline_asm_locs(make_ptx(src, metadata))
        return None

    return hook


def collapse_inline_asm_locs(ptx: str) -> str:
    """Give every `.loc` inside an inline-asm block the block's first `.loc` (see module doc)."""
    lines = ptx.splitlines(keepends=True)
    first: str | None = None
    inside = False
    for i, line in enumerate(lines):
        text = line.lstrip()
        if text.startswith("// begin inline asm"):
            inside, first = True, None
        elif text.startswith("// end inline asm"):
            inside = False
        elif inside and text.startswith(".loc"):
            if first is None:
                first = line
            else:
                lines[i] = first
    return "".join(lines)


_BARE_STACK_LINE = re.compile(r"^\s+(\d+ bytes stack frame)", re.MULTILINE)


def _normalize_report(text: str) -> str:
    """Standalone ptxas prints the stack-frame line bare; NVRTC prefixes it. Use NVRTC's form."""
    return _BARE_STACK_LINE.sub(r"ptxas         .     \1", text)


def _compile_error(exc: Any, fn: Any) -> CompileError:
    """Name the file and line of the failing statement; Triton's own message counts from `def`."""
    chain: list[Any] = []
    err: BaseException | None = exc
    while err is not None:
        if hasattr(err, "node") and hasattr(err, "src"):
            chain.append(err)
        err = err.__cause__
    innermost = chain[-1]
    where = _location(innermost, fn)
    reason = next((e.error_message for e in reversed(chain) if e.error_message), None)
    if reason is None and innermost.__cause__ is not None:
        reason = f"{type(innermost.__cause__).__name__}: {innermost.__cause__}"
    message = f"compile failed: {where}: {reason or 'Triton rejected this statement'}"
    calls = [_location(e, fn) for e in chain[:-1]]
    if calls:
        message += " (called from " + ", ".join(calls) + ")"
    return CompileError(message, "fix the kernel at that line", detail=str(exc))


def _location(err: Any, fn: Any) -> str:
    jit = _jit_with_source(fn, err.src)
    line = getattr(err.node, "lineno", None)
    if jit is None or line is None:
        return f"{fn.fn.__code__.co_filename} (in {fn.__name__})"
    col = getattr(err.node, "col_offset", -1) + 1
    return f"{jit.fn.__code__.co_filename}:{jit.def_file_line_number + line - 1}:{col}"


def _jit_with_source(fn: Any, src: str | None) -> Any:
    """The @jit function (the kernel or a helper it can reach) whose source is `src`."""
    from triton.runtime.jit import JITCallable

    seen: set[int] = set()
    todo = [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        if f.src == src:
            return f
        for value in list(f.__globals__.values()):
            if isinstance(value, JITCallable):
                todo.append(value)
            elif isinstance(value, ModuleType):
                todo.extend(v for v in vars(value).values() if isinstance(v, JITCallable))
    return None


def _read_text(path: str) -> str | None:
    with contextlib.suppress(OSError):
        return Path(path).read_text(encoding="utf-8", errors="replace")
    return None
