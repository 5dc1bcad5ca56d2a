"""CuTe DSL host functions through `cute.compile`: PTX, cubin, the traced MLIR and ptxas' report.

The package reads its CUTE_DSL_* environment once, at import (lru-cached readers), so everything
here goes through `cute.compile(..., options=...)` instead:
- `--gpu-arch` always: without a GPU the DSL silently compiles for sm_100a.
- `--generate-line-info`, so SASS maps back to the .py lines.
- `--keep-ptx --keep-cubin --dump-dir D`: without a dump dir they land in the current directory;
  D is a temporary directory under sassview's cache, removed after the compile.
- `remarks{ptx} --remark-output D/remarks.yaml`: adds `-v` to ptxas and writes its report as an
  LLVM remark (YAML) instead of printing it; the report is the only source of spill bytes.
The traced module (before the lowering pipeline) is taken with a trace-finalize hook, as `mlir`.
`cute.compile` never uses the package's file cache (it passes no_cache), so nothing is left in
/tmp/$USER/cutlass_python_cache by a compile (the directory itself is made when cutlass is
imported). The DSL keeps compile options on a process-wide object: compiles are serialized.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import io
import json
import logging
import os
import re
import tempfile
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from sassview import cache
from sassview.cache.get_or_build import Said, bytes_of, get_or_build, text_of
from sassview.errors import CompileError, InputError, SassviewError, ToolchainError
from sassview.frontends.arch import DEFAULT_ARCH
from sassview.frontends.cute_arch import CuteFactory, build, dsl_arch
from sassview.frontends.cute_key import (
    closure_of,
    describe,
    function_of,
    is_user_file,
    qualified,
    state_of,
    user_files,
)
from sassview.frontends.cute_names import names_json, record_names
from sassview.ir import Artifacts
from sassview.toolchain.locate import toolchain_identity, toolchain_versions

log = logging.getLogger("sassview")
_LOCK = threading.RLock()  # a factory's build and its compile hold it in turn
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Options sassview sets itself; a user's copy would fight them.
_MANAGED = ("--gpu-arch", "--dump-dir", "--keep-ptx", "--keep-cubin", "--remark-output")
# An entry written before a file here existed is not read (the list is in the key).
_FILES = ("kernel.ptx", "kernel.cubin", "compile.log", "mlir.txt", "launch.json", "names.json")


def compile_cute(
    fn: Callable[..., Any], *args: Any, arch: str = DEFAULT_ARCH, options: str = "", **kwargs: Any
) -> Artifacts:
    """Compile a `@cute.jit` host function (and the `@cute.kernel`s it launches) without a GPU.

    `args`/`kwargs` describe the call as `cute.compile` wants them: fake tensors
    (`cute.runtime.make_fake_compact_tensor`, `make_fake_tensor`), scalars, SymInts. `options`
    are further `cute.compile` option tokens (`--opt-level 2`, `--ptxas-options '-O2'`).
    `fn` may be a `CuteFactory` (`sv.cute(factory, arch=[...])`): it is called with the arch,
    and `kwargs` as its keywords, with the DSL's architecture set, and what it returns is
    compiled (frontends/cute_arch.py).
    Cached by the source files of the function and of what it calls, a kernel object's
    attributes, the argument descriptions (dtype, shape, stride, alignment), the arch, the
    options and the package and tool versions.
    """
    cutlass, cute = _import_cute()
    arch_name = _check_arch(arch)
    _check_options(options)
    factory = fn if isinstance(fn, CuteFactory) else None
    made_by = None
    if factory is not None:  # sv.cute(factory, arch=[...]): built for this arch, then compiled
        made_by = {"function": qualified(factory.function), "kwargs": describe(kwargs, {})}
        fn, args, kwargs = _from_factory(factory, arch_name, args, kwargs)
    _check_function(fn)
    sources = {**user_files(fn), **(user_files(factory.function) if factory else {})}
    versions = {"cutlass-dsl": str(cutlass.__version__), **toolchain_versions()}
    name = getattr(function_of(fn), "__qualname__", repr(fn))
    closure = closure_of(fn)
    state = state_of(fn)
    if closure is not None and state is None:
        closure = None  # a kernel object holding something known only by its address
    key = cache.make_key(
        {
            "frontend": "cute",
            "function": name,
            "factory": made_by,
            "closure": closure,
            "state": state,
            "sources": {p: hashlib.sha256(b).hexdigest() for p, b in sorted(sources.items())},
            "args": describe(list(args), {}),
            "kwargs": describe(dict(kwargs), {}),
            "arch": arch_name,
            "options": options.strip(),
            "env": {k: v for k, v in os.environ.items() if k.startswith("CUTE_DSL_")},
            "tools": versions,
            "tool_files": toolchain_identity(),  # which files, not only their word
            "files": _FILES,
        }
    )
    if closure is None:
        log.info("cute: %s closes over an object that names no code or value: not cached", name)
    files = get_or_build(
        cache.Store("cute"),
        key if closure is not None else None,
        _FILES,
        lambda: _run(cute, fn, args, kwargs, arch_name, options),
        said=Said(log, "cute", name, arch_name),
        meta={"function": name, "arch": arch_name},
    )
    cubin = bytes_of(files["kernel.cubin"])
    producer = _check_cubin_arch(cubin, arch_name)
    path = function_of(fn).__code__.co_filename
    return Artifacts(
        kind="cute",
        arch=arch_name,
        source_path=path,
        source_text=sources.get(path, b"").decode("utf-8", errors="replace") or None,
        ptx=text_of(files["kernel.ptx"]),
        cubin=cubin,
        compile_log=text_of(files["compile.log"]),
        options=("--gpu-arch", arch_name, "--generate-line-info", "remarks{ptx}", *options.split()),
        toolchain=MappingProxyType({**versions, **producer}),
        stages=MappingProxyType(
            {
                "mlir": text_of(files["mlir.txt"]),
                "launch": text_of(files["launch.json"]),
                "names": text_of(files["names.json"]),  # symbol -> short name (cute_names.py)
            }
        ),
    )


def _from_factory(
    factory: CuteFactory, arch: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """The host function and arguments `factory(arch, **variant)` builds; `kwargs` are the
    variant's values (the factory's keyword arguments), `args` must be empty."""
    if args:
        raise InputError(
            f"the CuTe factory {factory.name} was given arguments",
            "a factory builds its own fake arguments: return them with the host function",
        )
    with _LOCK:  # the DSL's architecture is process-wide
        try:
            return build(factory, arch, kwargs)
        except SassviewError:
            raise
        except Exception as exc:
            raise _error(exc, factory.function, "") from exc


def _import_cute() -> tuple[ModuleType, ModuleType]:
    try:
        import cutlass
        import cutlass.cute as cute
    except ImportError:
        raise ToolchainError(
            "The CuTe DSL is not installed", "pip install nvidia-cutlass-dsl[cu13]"
        ) from None
    return cutlass, cute


def _check_arch(arch: str) -> str:
    """The DSL's own list of architectures (sm_80 ... sm_121f); sm_101 is its alias of sm_110."""
    from cutlass.base_dsl.enums import Arch

    text = arch.strip().lower()
    text = text if text.startswith("sm_") else f"sm_{text}"
    if text not in Arch.__members__:
        works = ", ".join(Arch.__members__)
        raise InputError(f"the CuTe DSL cannot target {arch}", f"architectures that work: {works}")
    return str(Arch[text].name)  # the canonical name of an alias: sm_101a -> sm_110a


def _check_function(fn: Any) -> None:
    kind = getattr(fn, "_decorator_kind", None)
    if kind == "kernel":
        raise InputError(
            f"{fn.__name__} is a @cute.kernel",
            "pass the @cute.jit host function that launches it, with its arguments",
        )
    if inspect.isfunction(fn) and kind is None:
        raise InputError(f"{fn.__name__} is not a @cute.jit function", "decorate it with @cute.jit")


def _check_options(options: str) -> None:
    for token in options.split():
        flag = token.split("=", 1)[0]
        if flag in _MANAGED:
            raise InputError(f"{flag} is set by sassview", f"remove {flag} from options")


def _options(arch: str, dump_dir: str, user: str) -> str:
    return (
        f"--gpu-arch {arch} --generate-line-info --keep-ptx --keep-cubin --dump-dir {dump_dir} "
        f"remarks{{ptx}} --remark-output {dump_dir}/remarks.yaml {user}"
    ).strip()


def _run(
    cute: ModuleType,
    fn: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    arch: str,
    options: str,
) -> dict[str, bytes | str]:
    from cutlass.base_dsl.dsl import BaseDSL

    traced: list[str] = []
    names: dict[str, str] = {}

    def keep_mlir(owner: Any, module: Any, function_name: str) -> None:
        traced.append(str(module))

    hooks = {"trace_finalize_hooks": keep_mlir} if hasattr(BaseDSL, "trace_finalize_hooks") else {}
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_LOCK)
        stack.enter_context(dsl_arch(arch))  # for what the host function builds while traced
        stack.enter_context(record_names(BaseDSL._get_dsl(), names))
        dump = stack.enter_context(tempfile.TemporaryDirectory(dir=cache.scratch_dir("cute")))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(out))
        try:
            compiled = cute.compile(
                fn, *args, options=_options(arch, dump, options), **hooks, **kwargs
            )
        except Exception as exc:
            raise _error(exc, fn, out.getvalue()) from exc
        ptx, cubin = _produced(compiled.__ptx__), _produced(compiled.__cubin__)
        report = _ptxas_report(Path(dump) / "remarks.yaml")
        host = getattr(compiled, "ir_module", None)
        launch = launch_metadata(str(host)) if host is not None else ""
    if not ptx or not cubin:
        raise CompileError(
            f"the CuTe DSL produced no {'PTX' if not ptx else 'cubin'} for {fn.__name__}",
            "does the @cute.jit function launch a @cute.kernel?",
            detail=out.getvalue(),
        )
    return {
        "kernel.ptx": ptx,
        "kernel.cubin": bytes_of(cubin),
        "compile.log": report,
        "mlir.txt": traced[-1] if traced else "",
        "launch.json": launch,
        "names.json": names_json(names, re.findall(r"\.entry\s+([\w$]+)", ptx)),
    }


def _produced(value: Any) -> Any:
    """PTX text or cubin bytes; None for the file name the DSL gives instead when the host
    function launches no kernel (a .ptx / .cubin path it never wrote)."""
    if isinstance(value, str) and value.endswith((".ptx", ".cubin")) and "\n" not in value:
        return None
    return value


# In the lowered host module, the field of cudaLaunchConfig_t that holds the dynamic shared
# memory (gridDim, blockDim, dynamicSmemBytes, stream, attrs, numAttrs): its address, then the
# value stored there, then that value's definition.
_SMEM_FIELD = re.compile(
    r"(%\w+) = llvm\.getelementptr %\w+\[0, 2\] : \(!llvm\.ptr\) -> !llvm\.ptr, "
    r"!llvm\.struct<\(array<3 x i32>, array<3 x i32>, i64, ptr, ptr, i32\)>"
)


def launch_metadata(host_ir: str) -> str:
    """The dynamic shared memory the kernel launches ask for, as `{"shared": bytes}` JSON (the
    shape of Triton's metadata, which the model builder reads), or "" when it is not one
    constant: the DSL sizes the stages of a `SmemAllocator` in a pass after the traced MLIR,
    and writes the result into the launch config of the lowered host code, nowhere else."""
    sizes = set()
    for function in host_ir.split("llvm.func @")[1:]:  # SSA names are per function
        for field in _SMEM_FIELD.finditer(function):
            stored = re.search(rf"llvm\.store (%\w+), {re.escape(field.group(1))} :", function)
            value = stored and re.search(
                rf"{re.escape(stored.group(1))} = llvm\.mlir\.constant\((\d+) : i64\)", function
            )
            if not value:
                return ""  # computed at run time: no one number to show
            sizes.add(int(value.group(1)))
    return json.dumps({"shared": sizes.pop()}) if len(sizes) == 1 else ""


_REMARK = re.compile(r"Remark:\s+'((?:[^']|'')*)'", re.DOTALL)


def _ptxas_report(path: Path) -> str:
    """ptxas' `-v` text out of the remarks file: single-quoted YAML, newlines kept, '' for '.

    A YAML reader would fold the report's newlines into spaces (LLVM writes them raw), so the
    scalar is cut out by hand.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    reports = [m.group(1).replace("''", "'") for m in _REMARK.finditer(text)]
    reports = [r.split("ptxas output:", 1)[-1].lstrip() for r in reports if "ptxas" in r]
    return "\n".join(reports)


def _check_cubin_arch(cubin: bytes, arch: str) -> dict[str, str]:
    """The DSL must have honoured --gpu-arch; returns the ptxas version from the cubin's note."""
    from sassview.binary.elf import read_cubin

    info = read_cubin(cubin, "<cute cubin>")
    if info.arch and info.arch != arch:
        raise ToolchainError(
            f"the CuTe DSL built a cubin for {info.arch}, not {arch}",
            "this version of the DSL ignores --gpu-arch; set CUTE_DSL_ARCH before importing it",
        )
    match = re.search(r"release (\d+\.\d+), V([\d.]+)", info.producer or "")
    return {"ptxas": match.group(2)} if match else {}


def _error(exc: Exception, fn: Any, printed: str) -> Exception:
    """A DSL call mismatch is the caller's mistake; anything else is the kernel's, at a line."""
    from cutlass.base_dsl.common import DSLBaseError

    code = str(getattr(exc, "code", "") or "")
    text = _ANSI.sub("", str(exc)).strip()
    message = _ANSI.sub("", str(getattr(exc, "message", "") or "")).strip()
    message = message or (text.splitlines() or [type(exc).__name__])[0]
    detail = "\n".join(p for p in (text, printed.strip()) if p)
    if isinstance(exc, DSLBaseError) and code.startswith(("CALL_", "CONFIG_")):
        return InputError(
            f"cute.compile refused the call: {message}", _suggestion(exc), detail=detail
        )
    where = _where(exc)
    what = message if isinstance(exc, DSLBaseError) else f"{type(exc).__name__}: {message}"
    return CompileError(
        f"compile failed: {where + ': ' if where else ''}{what}",
        _suggestion(exc) or "fix the kernel at that line",
        detail=detail,
    )


def _suggestion(exc: Exception) -> str:
    hint = getattr(exc, "suggestion", None)
    if isinstance(hint, (list, tuple)):
        hint = "; ".join(str(h) for h in hint)
    return _ANSI.sub("", str(hint or ""))


def _where(exc: Exception) -> str:
    """file:line in the user's code: the DSL's own location if it names one, else the innermost
    traceback frame outside the DSL, sassview and the standard library."""
    filename, line = getattr(exc, "filename", None), getattr(exc, "line", None)
    if filename and line and is_user_file(str(filename)):
        return f"{filename}:{line}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_user_file(f.filename)]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""
