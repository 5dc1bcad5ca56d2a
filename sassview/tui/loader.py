"""The TUI's headless core: what to open, how to (re)compile it, what to watch, what went wrong.

No Textual here (Harlequin's split): the app runs `load` in a worker thread and polls
`Watcher.changed` on a timer; both are plain functions a test can call directly. Loading goes
through the public API only (`sassview.api.load` / `load_kernel_file` + `analyze`), so the TUI
shows exactly what `sassview check` reports.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from sassview.build import FirstKernel, first_kernel
from sassview.errors import SassviewError
from sassview.frontends.build_options import BuildOptions, resolve_build
from sassview.inspection import Inspection
from sassview.ir import Program

# Architectures the picker offers for a source that sassview compiles (.cu, kernel.py, .ptx).
COMMON_ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90a", "sm_100a", "sm_120")
_COMPILED = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".py", ".ptx")


@dataclass(frozen=True)
class Target:
    """What the user asked to open; a recompile reuses it, an arch switch replaces `arch`."""

    path: Path
    arch: tuple[str, ...] | None = None
    kernel: str | None = None
    build: BuildOptions = BuildOptions()  # CUDA C++: the command line's build options

    @property
    def compiles(self) -> bool:
        """Whether a change of architecture means a recompile (a cubin is what it is)."""
        return self.path.suffix in _COMPILED

    def with_arch(self, arch: str) -> Target:
        return replace(self, arch=(arch,))


@dataclass(frozen=True)
class Loaded:
    inspections: tuple[Inspection, ...]
    watched: tuple[Path, ...]  # the files whose change triggers a recompile
    notes: tuple[str, ...] = ()  # e.g. kernels a kernel.py defines but does not declare
    seconds: float = 0.0


@dataclass(frozen=True)
class ErrorReport:
    """A failure as the app shows it: one line, its hint, the tool's text, and where it is."""

    message: str
    hint: str = ""
    detail: str = ""
    file: str | None = None
    line: int | None = None

    @property
    def location(self) -> str:
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file


def load(target: Target) -> Loaded:
    """Compile or read the target and inspect every kernel; raises SassviewError."""
    from sassview.api import analyze, inspect, load_kernel_file

    start = time.perf_counter()
    notes: list[str] = []
    arch = list(target.arch) if target.arch else None
    if target.path.suffix == ".py":
        kernel_file, programs = load_kernel_file(target.path, arch=arch)
        notes = [
            f"line {u.line}: {u.kind} kernel {u.name} is not declared; add: {u.hint}"
            for u in kernel_file.undeclared
        ]
        found = [i for p in programs for i in analyze(p)]
        if target.kernel:
            found = [i for i in found if _named(i, target.kernel)]
            if not found and programs:
                programs[0].kernel(target.kernel)  # raises, listing the kernels there are
    else:  # the build as `check` takes it: the project's compile_commands.json laid in
        build = resolve_build(target.path, target.build)
        notes = list(build.notes)
        found = inspect(
            target.path, arch=arch or list(build.archs) or None, kernel=target.kernel,
            **build.options.compile_kwargs(),
        )  # fmt: skip
    if not found:
        raise SassviewError(f"{target.path}: no kernels", "is there a __global__ function?")
    watched = _watched(target.path, found)
    return Loaded(tuple(found), watched, tuple(notes), time.perf_counter() - start)


@contextmanager
def previewing(show: Callable[[Inspection], None]) -> Iterator[None]:
    """Inside the block, a `load` whose first model is cached with its analyses calls `show`
    with that model's first kernel before it loads the others (sassview.build.first_kernel):
    the Inspection `load` returns first, when no `kernel` is asked for. Its Program is a
    stand-in holding that one kernel, for painting it and never in a Loaded: what lists the
    kernels, archs or variants reads the Loaded, whose Inspection has the same kernel (the
    very objects: one pickle) in the whole Program."""

    def first(found: FirstKernel) -> None:
        kernel = found.inspection["kernel"]
        show(Inspection(program=Program(found.artifacts, (kernel,)), **found.inspection))

    with first_kernel(first):
        yield


def _named(insp: Inspection, name: str) -> bool:
    return insp.kernel.matches(name)


def _watched(path: Path, found: Iterable[Inspection]) -> tuple[Path, ...]:
    """The opened file, and every source file the compiled programs name (a kernel.py's
    `sv.cuda_file`, the .cu itself), when they exist on disk."""
    out = [path.resolve()]
    for insp in found:
        src = insp.program.artifacts.source_path
        if src and Path(src).is_file():
            p = Path(src).resolve()
            if p not in out and p.suffix != ".cubin":
                out.append(p)
    return tuple(out)


@dataclass
class Watcher:
    """Polls modification times; no new dependency, and it works over SSH and network mounts.

    `changed()` is cheap (one stat per watched file) and says True once per change, after the
    file has been quiet for `settle` seconds, so an editor's write-then-rename is one change.
    """

    paths: Sequence[Path] = ()
    settle: float = 0.15
    _seen: dict[Path, float | None] = field(default_factory=dict)
    _pending_since: float | None = None

    def watch(self, paths: Sequence[Path]) -> None:
        self.paths = tuple(paths)
        self._seen = {p: _mtime(p) for p in self.paths}
        self._pending_since = None

    def changed(self) -> bool:
        now = {p: _mtime(p) for p in self.paths}
        if now != self._seen:
            self._seen = now
            self._pending_since = time.monotonic()
            return False
        if (
            self._pending_since is not None
            and time.monotonic() - self._pending_since >= self.settle
        ):
            self._pending_since = None
            return True
        return False


def _mtime(path: Path) -> float | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns + st.st_size / 1e6


_MESSAGE_AT = re.compile(r"(?P<file>[^\s:()]+\.\w+):(?P<line>\d+)(?::\d+)?:")
_NVRTC_AT = re.compile(r"^(?P<file>\S[^\n(]*?)\((?P<line>\d+)\): (?:error|warning)", re.M)
_PYTHON_AT = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_PTXAS_AT = re.compile(r"ptxas[^\n]*?(?P<file>[^\s,]+), line (?P<line>\d+)")


def report(exc: BaseException) -> ErrorReport:
    """An ErrorReport for any failure; the location is the first `file:line` the text names."""
    if isinstance(exc, SassviewError):
        message, hint, detail = exc.message, exc.hint, exc.detail
    else:  # a bug, or a frontend raising its own error: show it rather than crash the app
        message, hint, detail = f"{type(exc).__name__}: {exc}", "this is likely a sassview bug", ""
    for pattern, text in (
        (_MESSAGE_AT, message),
        (_NVRTC_AT, detail),
        (_PYTHON_AT, detail),
        (_PTXAS_AT, detail),
    ):
        m = pattern.search(text)
        if m:
            return ErrorReport(message, hint, detail, m.group("file"), int(m.group("line")))
    return ErrorReport(message, hint, detail)
