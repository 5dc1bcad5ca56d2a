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
import sys
import sysconfig
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from sassview import cache
from sassview.errors import CompileError, InputError, ToolchainError
from sassview.ir import Artifacts
from sassview.memo import memoized
from sassview.toolchain.locate import toolchain_versions

log = logging.getLogger("sassview")
_LOCK = threading.Lock()
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Options sassview sets itself; a user's copy would fight them.
_MANAGED = ("--gpu-arch", "--dump-dir", "--keep-ptx", "--keep-cubin", "--remark-output")
_FILES = ("kernel.ptx", "kernel.cubin", "compile.log", "mlir.txt", "launch.json")


def compile_cute(
    fn: Callable[..., Any], *args: Any, arch: str = "sm_90a", options: str = "", **kwargs: Any
) -> Artifacts:
    """Compile a `@cute.jit` host function (and the `@cute.kernel`s it launches) without a GPU.

    `args`/`kwargs` describe the call as `cute.compile` wants them: fake tensors
    (`cute.runtime.make_fake_compact_tensor`, `make_fake_tensor`), scalars, SymInts. `options`
    are further `cute.compile` option tokens (`--opt-level 2`, `--ptxas-options '-O2'`).
    Cached by the source files of the function and of what it calls, the argument descriptions
    (dtype, shape, stride, alignment), the arch, the options and the package and tool versions.
    """
    cutlass, cute = _import_cute()
    arch_name = _check_arch(arch)
    _check_function(fn)
    _check_options(options)
    sources = _user_files(fn)
    versions = {"cutlass-dsl": str(cutlass.__version__), **toolchain_versions()}
    name = getattr(_function_of(fn), "__qualname__", repr(fn))
    closure = _closure(fn)
    key = cache.make_key(
        {
            "frontend": "cute",
            "function": name,
            "closure": closure,
            "sources": {p: hashlib.sha256(b).hexdigest() for p, b in sorted(sources.items())},
            "args": _describe(list(args), {}),
            "kwargs": _describe(dict(kwargs), {}),
            "arch": arch_name,
            "options": options.strip(),
            "env": {k: v for k, v in os.environ.items() if k.startswith("CUTE_DSL_")},
            "tools": versions,
            "files": _FILES,  # an entry written before launch.json existed is not read
        }
    )
    store = cache.Store("cute")
    entry = store.get(key) if closure is not None else None
    if closure is None:
        log.info("cute: %s closes over an object that names no code or value: not cached", name)
    if entry is not None:
        log.info("cute: cache hit for %s (%s)", name, arch_name)
        files: Mapping[str, bytes | str] = {n: entry.read_bytes(n) for n in _FILES}
    else:
        started = time.perf_counter()
        files = _run(cute, fn, args, kwargs, arch_name, options)
        log.info(
            "cute: compiled %s for %s in %.2f s", name, arch_name, time.perf_counter() - started
        )
        if closure is not None:
            store.put(key, files, meta={"function": name, "arch": arch_name})
    cubin = files["kernel.cubin"]
    cubin = cubin if isinstance(cubin, bytes) else cubin.encode()
    producer = _check_cubin_arch(cubin, arch_name)
    path = _function_of(fn).__code__.co_filename
    return Artifacts(
        kind="cute",
        arch=arch_name,
        source_path=path,
        source_text=sources.get(path, b"").decode("utf-8", errors="replace") or None,
        ptx=_text(files["kernel.ptx"]),
        cubin=cubin,
        compile_log=_text(files["compile.log"]),
        options=("--gpu-arch", arch_name, "--generate-line-info", "remarks{ptx}", *options.split()),
        toolchain=MappingProxyType({**versions, **producer}),
        stages=MappingProxyType(
            {"mlir": _text(files["mlir.txt"]), "launch": _text(files["launch.json"])}
        ),
    )


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


def _function_of(fn: Any) -> Any:
    """The Python function behind a @cute.jit function, bound method or callable object."""
    target = inspect.unwrap(fn)
    if not hasattr(target, "__code__") and callable(target):
        target = inspect.unwrap(type(target).__call__)
    return getattr(target, "__func__", target)


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

    def keep_mlir(owner: Any, module: Any, function_name: str) -> None:
        traced.append(str(module))

    hooks = {"trace_finalize_hooks": keep_mlir} if hasattr(BaseDSL, "trace_finalize_hooks") else {}
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_LOCK)
        dump = stack.enter_context(tempfile.TemporaryDirectory(dir=cache.scratch_dir("cute")))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(out))
        try:
            compiled = cute.compile(
                fn, *args, options=_options(arch, dump, options), **hooks, **kwargs
            )
        except Exception as exc:
            raise _error(exc, fn, out.getvalue()) from exc
        ptx, cubin = compiled.__ptx__, compiled.__cubin__
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
        "kernel.cubin": cubin if isinstance(cubin, bytes) else cubin.encode(),
        "compile.log": report,
        "mlir.txt": traced[-1] if traced else "",
        "launch.json": launch,
    }


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
    if filename and line and _is_user_file(str(filename)):
        return f"{filename}:{line}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_user_file(f.filename)]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""


@memoized(64)
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots.add(str(Path(__file__).resolve().parents[1]))  # sassview itself
    roots.add(sys.prefix)
    return tuple(str(Path(r).resolve()) + os.sep for r in roots)


def _is_user_file(path: str) -> bool:
    if not path or path.startswith("<"):
        return False
    return not str(Path(path).resolve()).startswith(_library_roots())


def _user_files(fn: Any) -> dict[str, bytes]:
    """The files whose text decides the compile: the host function's and those of the user code it
    can call by a global name (functions, @cute.kernel/@cute.jit objects, user modules' functions).

    The whole file counts, not just the function: the line table records absolute line numbers.
    Code reached only through deeper imports is not followed.
    """
    root = _function_of(fn)
    paths = {root.__code__.co_filename}
    closed = _closed_values(root)
    for value in [*getattr(root, "__globals__", {}).values(), *closed]:
        if isinstance(value, ModuleType):  # a user's module of kernels, not a library
            user_module = _is_user_file(str(getattr(value, "__file__", None) or ""))
            candidates: Any = vars(value).values() if user_module else ()
        else:
            candidates = (value,)
        for c in list(candidates):
            try:
                code = getattr(inspect.unwrap(c), "__code__", None) if callable(c) else None
            except Exception:  # an object whose attributes cannot be read is no user code
                continue
            if code is not None and _is_user_file(code.co_filename):
                paths.add(code.co_filename)
    out: dict[str, bytes] = {}
    for p in sorted(paths):
        with contextlib.suppress(OSError):
            out[p] = Path(p).read_bytes()
    return out


def _closed_values(function: Any) -> list[Any]:
    """The values in a function's closure (the cells already filled)."""
    out = []
    for cell in getattr(function, "__closure__", None) or ():
        with contextlib.suppress(ValueError):  # a cell not yet filled
            out.append(cell.cell_contents)
    return out


def _closure(fn: Any, depth: int = 0) -> Any:
    """What the host function closes over, as far as it decides the compile. A factory's hosts
    (`def make(kern): @cute.jit def host(...): kern(...).launch(...)`) differ from each other
    only here: their code, name and file are one. A function or kernel is named by module and
    qualified name, with its own closure (its code is in the key through its file,
    `_user_files`); a value as `_describe` describes arguments. None when something has no
    name that holds from one run to the next (an object known only by its address): the
    compile is then not cached."""
    target = _function_of(fn)
    code = getattr(target, "__code__", None)
    if code is None or depth > 8:
        return None if depth > 8 else {}
    out: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, target.__closure__ or (), strict=False):
        try:
            value = cell.cell_contents
        except ValueError:  # not yet filled
            out[name] = "<empty>"
            continue
        inner = inspect.unwrap(value) if callable(value) else None
        if inspect.isfunction(inner):
            nested = _closure(inner, depth + 1)
            if nested is None:
                return None
            # Not its line: the DSL rewrites a kernel's code when it compiles it.
            out[name] = {"function": f"{inner.__module__}.{inner.__qualname__}", "closure": nested}
            continue
        described = _describe(value, {})
        if isinstance(described, str) and " at 0x" in repr(value):
            return None
        out[name] = described
    return out


def _describe(value: Any, symbols: dict[int, int]) -> Any:
    """A JSON-able description of an argument that decides the compiled code.

    Fake and real tensors by dtype, shape, stride, memory space, alignment; a SymInt by width,
    divisibility and identity (the same SymInt object twice is one runtime parameter, two equal
    ones are two), numbered in order of appearance.
    """
    from cutlass.cute.typing import SymInt

    if isinstance(value, SymInt):
        number = symbols.setdefault(id(value), len(symbols))
        return f"sym#{number}:i{value.width}:div{value.divisibility}:{value.symbol}"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [_describe(v, symbols) for v in value]
    if isinstance(value, dict):
        return {str(k): _describe(v, symbols) for k, v in sorted(value.items())}
    if hasattr(value, "element_type") and hasattr(value, "shape"):
        return {
            "type": type(value).__name__,
            "dtype": str(value.element_type),
            "shape": _describe(tuple(value.shape), symbols),
            "stride": _describe(tuple(getattr(value, "stride", ())), symbols),
            "memspace": str(getattr(value, "memspace", "")),
            "align": repr(getattr(value, "_assumed_align", None)),
            "stride32": repr(getattr(value, "_use_32bit_stride", None)),
        }
    text = repr(value)
    return type(value).__qualname__ if " at 0x" in text else text


def _text(data: bytes | str) -> str:
    return data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
