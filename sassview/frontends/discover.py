"""Import a `kernel.py` like pytest imports a test module, and collect what it declares.

Only this step runs user code. The file is imported under a private module name, with its own
directory on sys.path (so it can import its neighbours), while `frontends.declaration.collecting()`
records every `sv.cuda / sv.triton / ...` call. Kernels the file defines but does not declare
(a @triton.jit function nobody declared: each frontend's `Detection` in the registry knows its
own) are listed with the line to add.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from sassview.errors import InputError
from sassview.frontends import registry
from sassview.frontends.declaration import Declaration, KernelFile, Undeclared, collecting
from sassview.frontends.no_torch import TorchNeeded
from sassview.frontends.paths import input_file
from sassview.frontends.user_code import UserExit, running_user_code


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


def exit_error(exc: SystemExit | UserExit, path: Path, *, importing: bool) -> InputError:
    """sys.exit() or os._exit() in a kernel file's code (on import, or in a CuTe host
    function while its kernels compile) would end sassview with no word, and exit 0. The
    traceback shows the frames in the file: the rest is sassview's or a framework's."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    call = "sys.exit" if isinstance(exc, SystemExit) else "os._exit"
    return InputError(
        f"{path.name}: {'importing it' if importing else 'compiling its kernels'} called"
        f" {call}({exc.code!r})",
        _MAIN_HINT if importing else _RAISE_HINT,
        detail="".join(traceback.format_list(frames)).rstrip(),
    )


def directory_kind(path: Path) -> str | None:
    """What a directory a user points at holds, where sassview reads directories:
    "triton-cache" (a Triton cache, TRITON_KERNEL_DUMP directory or entry), else None."""
    from sassview.frontends.triton_cache import is_triton_cache

    return "triton-cache" if is_triton_cache(path) else None


def import_kernel_file(path: str | Path) -> KernelFile:
    p = input_file(path, wanted="a kernel.py file")
    text = p.read_text(encoding="utf-8", errors="replace")
    name = "sassview_kernels_" + hashlib.sha1(os.fsencode(p)).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise InputError(f"{p}: cannot be imported as Python", "is it a .py file?")
    sys.path.insert(0, str(p.parent))
    interrupted: list[int] = []
    try:
        with collecting() as found, running_user_code(), _sigint_seen(interrupted):
            module = _run_module(spec, found, p)
    except KeyboardInterrupt as exc:
        if interrupted:  # Ctrl-C: sassview's own handling (exit 130)
            raise
        raise InputError(  # the file raised it itself: no one pressed Ctrl-C
            f"{p.name}: importing it raised KeyboardInterrupt (no Ctrl-C was pressed)",
            "fix the kernel file; sassview imports it like Python does",
            detail=_trimmed_traceback(exc, p),
        ) from None
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
        frontend = registry.package_for(missing)
        package = frontend[0].package if frontend is not None else missing
        raise InputError(
            f"{p.name}: importing it failed: {exc}",
            f"install what it needs (pip install {package})" if package else "check its imports",
            detail=_trimmed_traceback(exc, p),
        ) from None
    except (SystemExit, UserExit) as exc:  # a script's main code, run on import
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


@contextlib.contextmanager
def _sigint_seen(seen: list[int]) -> Iterator[None]:
    """Note in `seen` each SIGINT that arrives while the kernel file imports, so that a
    KeyboardInterrupt its code raises is told from a Ctrl-C (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        seen.append(0)  # no handler can be set here: every KeyboardInterrupt counts as Ctrl-C
        yield
        return
    before = signal.getsignal(signal.SIGINT)

    def note(signum: int, frame: Any) -> None:
        seen.append(signum)
        if callable(before):
            before(signum, frame)  # Python's default raises KeyboardInterrupt
        elif before != signal.SIG_IGN:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


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

    present = set(sys.modules)
    try:
        run()
    except ModuleNotFoundError as exc:
        if not torch_missing(exc) or importlib.util.find_spec("torch") is not None:
            raise
        _drop_orphans(present)
        run_without_torch(run, path)
    return ran[-1]


def _drop_orphans(present: set[str]) -> None:
    """Modules the failed run imported whose package it did not finish (`lib.ops`, done, in
    `lib`, which failed at `import torch`): left in sys.modules, the next run would import
    `lib.ops.x` without running `lib/__init__` first, as no real import does."""
    for name in sorted(set(sys.modules) - present, key=len):
        parts = name.split(".")
        if any(".".join(parts[:i]) not in sys.modules for i in range(1, len(parts))):
            del sys.modules[name]


def _check_names(path: Path, declared: tuple[Declaration, ...]) -> None:
    """The paths each compiler will be given, checked before anything compiles."""
    for decl in declared:
        frontend = registry.spec(decl.kind)
        if frontend is not None:
            frontend.check_names(path, decl)


def _undeclared(
    module: ModuleType, declared: tuple[Declaration, ...], path: Path
) -> list[Undeclared]:
    """The kernels the file defines (any frontend's) but declares nowhere, by line."""
    names = vars(module)
    targets = {id(d.target) for d in declared}
    for each in registry.frontends().values():
        if each.detection is not None:
            targets |= each.detection.helpers(names)
    targets |= _passed(declared)
    targets |= {id(vars(module).get(n)) for d in declared for n in _factory_names(d.target)}
    out = []
    for name, obj in names.items():
        frontend = registry.detect(obj)
        if frontend is None or frontend.detection is None:
            continue
        found = frontend.detection
        if id(found.target(obj)) in targets:
            continue
        line = found.line(obj) if found.line is not None else _definition_line(found.target(obj))
        out.append(Undeclared(name, frontend.kind, line, found.declaration(name, obj)))
    return sorted(out, key=lambda u: u.line)


def _passed(declared: tuple[Declaration, ...]) -> set[int]:
    """Kernels a declaration passes as a value (a Triton `ACT=leaky` constexpr, an `args=`
    entry): the declared kernel calls them, so they are helpers, never suggested."""
    out = set()
    for decl in declared:
        for key in ("constexprs", "args"):
            values = decl.settings.get(key) or {}
            for value in values.values() if isinstance(values, Mapping) else ():
                frontend = registry.detect(value)
                if frontend is not None and frontend.detection is not None:
                    out.add(id(frontend.detection.target(value)))
    return out


def _factory_names(target: Any) -> tuple[str, ...]:
    """The global names a CuTe factory's code uses: the host functions it returns are
    declared through it."""
    if type(target).__name__ != "CuteFactory":
        return ()
    code = getattr(target.function, "__code__", None)
    return tuple(code.co_names) if code is not None else ()


def _definition_line(obj: Any) -> int:
    fn = getattr(obj, "fn", None) or getattr(obj, "__wrapped__", None) or obj
    code = getattr(fn, "__code__", None)
    return int(code.co_firstlineno) if code is not None else 0
