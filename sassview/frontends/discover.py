"""Import a `kernel.py` like pytest imports a test module, and collect what it declares.

Only this step runs user code. The file is imported under a private module name, with its own
directory on sys.path (so it can import its neighbours), while `sassview.declare.collecting()`
records every `sv.cuda / sv.triton / sv.cute` call. Kernels the file defines but does not
declare (a @triton.jit function nobody declared) are listed with the line to add.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from sassview.declare import Declaration, collecting
from sassview.errors import InputError
from sassview.frontends.no_torch import TorchNeeded
from sassview.frontends.paths import check_ptxas_can_name, input_file


@dataclass(frozen=True)
class Undeclared:
    name: str
    kind: str  # triton | cute
    line: int
    hint: str  # the declaration to add


@dataclass(frozen=True)
class KernelFile:
    path: Path
    text: str
    declarations: tuple[Declaration, ...]
    undeclared: tuple[Undeclared, ...]


def _trimmed_traceback(exc: BaseException, path: Path) -> str:
    """The user's frames only: what sassview and importlib add is noise to them."""
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(_OURS)
    ]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


_OURS = (str(Path(__file__).resolve().parents[1]), "<frozen importlib")


_MAIN_HINT = (
    "sassview imports the file as a module: put a script's own main code under"
    ' `if __name__ == "__main__":`'
)
_RAISE_HINT = "raise an exception where a kernel cannot be built: sys.exit() would end sassview"


def exit_error(exc: SystemExit, path: Path, *, importing: bool) -> InputError:
    """sys.exit() in a kernel file's code (on import, or in a CuTe host function while its
    kernels compile) would end sassview with no word, and exit 0. The traceback shows the
    frames in the file: the rest is sassview's or a framework's."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    return InputError(
        f"{path.name}: {'importing it' if importing else 'compiling its kernels'} called"
        f" sys.exit({exc.code!r})",
        _MAIN_HINT if importing else _RAISE_HINT,
        detail="".join(traceback.format_list(frames)).rstrip(),
    )


def import_kernel_file(path: str | Path) -> KernelFile:
    p = input_file(path, wanted="a kernel.py file")
    text = p.read_text(encoding="utf-8", errors="replace")
    name = "sassview_kernels_" + hashlib.sha1(str(p).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise InputError(f"{p}: cannot be imported as Python", "is it a .py file?")
    sys.path.insert(0, str(p.parent))
    try:
        with collecting() as found:
            module = _run_module(spec, found, p)
    except TorchNeeded:  # said with the line that calls torch and the way out
        raise
    except SyntaxError as exc:
        raise InputError(
            f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}",
            "fix the kernel file; sassview imports it like Python does",
            detail=_trimmed_traceback(exc, p),
        ) from None
    except ImportError as exc:
        missing = exc.name or ""
        package = {"triton": "triton", "cutlass": "nvidia-cutlass-dsl[cu13]"}.get(
            missing.split(".")[0], missing
        )
        raise InputError(
            f"{p.name}: importing it failed: {exc}",
            f"install what it needs (pip install {package})" if package else "check its imports",
            detail=_trimmed_traceback(exc, p),
        ) from None
    except SystemExit as exc:  # sys.exit() in a script's main code, run on import
        raise exit_error(exc, p, importing=True) from None
    except Exception as exc:  # the user's code raised: show their traceback, not ours
        raise InputError(
            f"{p.name}: importing it raised {type(exc).__name__}: {exc}",
            "fix the kernel file; only the frames of your code are shown above",
            detail=_trimmed_traceback(exc, p),
        ) from None
    finally:
        sys.path.remove(str(p.parent))
    declared = tuple(found)
    _check_names(p, declared)
    return KernelFile(p, text, declared, tuple(_undeclared(module, declared, p)))


def _run_module(spec: Any, found: list[Declaration], path: Path) -> ModuleType:
    """Execute the kernel file as module `spec.name`; once more with a stand-in for torch when
    torch is all it lacks (frontends/no_torch.py: compiling needs no torch)."""
    from sassview.frontends.no_torch import run_without_torch, torch_missing

    ran: list[ModuleType] = []

    def run() -> None:
        found.clear()
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        ran.append(module)

    try:
        run()
    except ModuleNotFoundError as exc:
        if not torch_missing(exc) or importlib.util.find_spec("torch") is not None:
            raise
        run_without_torch(run, path)
    return ran[-1]


def _check_names(path: Path, declared: tuple[Declaration, ...]) -> None:
    """The paths each compiler will be given, checked before anything compiles."""
    for decl in declared:
        if decl.kind == "cuda":  # a string compiles under this file's name (#line), a file its own
            check_ptxas_can_name(path.parent / decl.target if decl.settings.get("file") else path)


def _undeclared(
    module: ModuleType, declared: tuple[Declaration, ...], path: Path
) -> list[Undeclared]:
    targets = {id(d.target) for d in declared} | _triton_helpers(module)
    targets |= {id(vars(module).get(n)) for d in declared for n in _factory_names(d.target)}
    out = []
    for name, obj in vars(module).items():
        kind = _kernel_kind(obj)
        if kind is None or id(_jit_of(obj) if kind == "triton" else obj) in targets:
            continue
        line = _definition_line(obj)
        out.append(Undeclared(name, kind, line, _hint(name, kind, obj)))
    return sorted(out, key=lambda u: u.line)


def _factory_names(target: Any) -> tuple[str, ...]:
    """The global names a CuTe factory's code uses: the host functions it returns are
    declared through it."""
    if type(target).__name__ != "CuteFactory":
        return ()
    code = getattr(target.function, "__code__", None)
    return tuple(code.co_names) if code is not None else ()


def _kernel_kind(obj: Any) -> str | None:
    module = type(obj).__module__ or ""
    if module.startswith("triton") and type(obj).__name__ in _TRITON_KERNELS:
        return "triton"
    if module.startswith("cutlass") and hasattr(obj, "__wrapped__"):
        return "cute"
    if inspect.isfunction(obj) and getattr(obj, "_decorator_kind", None) == "jit":
        return "cute"  # nvidia-cutlass-dsl 4.8: a @cute.jit host function is a plain function
    return None


_TRITON_KERNELS = ("JITFunction", "Autotuner", "Heuristics")  # @jit, @autotune, @heuristics


def _jit_of(obj: Any) -> Any:
    from sassview.frontends.triton import unwrap

    return unwrap(obj)[0]


def _triton_helpers(module: ModuleType) -> set[int]:
    """The @jit functions of the file that another @jit function calls by name: device
    functions, compiled into their callers, never launched, so never suggested."""
    jits = {n: _jit_of(o) for n, o in vars(module).items() if _kernel_kind(o) == "triton"}
    if not jits:
        return set()
    calls = re.compile(r"\b(" + "|".join(map(re.escape, jits)) + r")\s*\(")
    return {
        id(jits[callee])
        for name, fn in jits.items()
        for callee in calls.findall(getattr(fn, "src", ""))
        if callee != name
    }


def _definition_line(obj: Any) -> int:
    if _kernel_kind(obj) == "triton":
        obj = _jit_of(obj)
    fn = getattr(obj, "fn", None) or getattr(obj, "__wrapped__", None) or obj
    code = getattr(fn, "__code__", None)
    return int(code.co_firstlineno) if code is not None else 0


def _hint(name: str, kind: str, obj: Any) -> str:
    if kind == "triton":
        return _triton_hint(name, obj)
    return f'sv.cute({name}, <fake arguments>, arch="sm_100a")'


def _triton_hint(name: str, obj: Any) -> str:
    """The sv.triton line to add, types guessed from each parameter's annotation or name (a
    guess the user must check: nothing in a @jit function says what a launch passes).
    Constexprs with a default, or set by every autotune config, need no value."""
    import inspect

    from sassview.frontends.triton import unwrap

    jit, configs = unwrap(obj)
    params = inspect.signature(jit.fn).parameters
    names = list(jit.arg_names)
    constexprs = {names[i] for i in jit.constexprs}
    configured = set.intersection(*(set(c) for c in configs)) if configs else set()
    sig = ", ".join(
        f'"{p}": "{guess_type(p, params[p].annotation)}"' for p in names if p not in constexprs
    )
    consts = ", ".join(
        f'"{p}": {_guess_constexpr(p)}'
        for p in names
        if p in constexprs and p not in configured and params[p].default is inspect.Parameter.empty
    )
    strides = [p for p in names if p not in constexprs and "stride" in p.lower()]
    return (
        f"sv.triton({name}, signature={{{sig}}}"
        + (f", constexprs={{{consts}}}" if consts else "")
        + ', arch="sm_90a")  (types guessed from the names: check each'
        + (f"; a stride launched as 1 ({strides[0]}=1 for a contiguous dimension) is"
           " constexpr 1 at a Triton launch: give it in constexprs" if strides else "")
        + ")"
    )  # fmt: skip


# Matched on the lower-cased name, in this order; M, N, K, H, Z alone are sizes (as in the
# Triton tutorials), x, y, out and *_ptr pointers.
_GUESSES = (
    (re.compile(r"\w*_ptrs?|ptrs?|[xy]|out|output|inp|input|dst|src"), "*fp32"),
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
    such as "*fp16") or else its name: pointer names *fp32, sizes, counts and strides i32,
    scale factors fp32; "?" where neither tells."""
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
