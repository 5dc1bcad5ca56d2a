"""The TUI's headless core: what to open, how to (re)compile it, what to watch, what went wrong.

No Textual here (Harlequin's split): the app runs `load` in a worker thread and polls
`Watcher.changed` on a timer; both are plain functions a test can call directly. Loading goes
through the public API only (`sassview.api.load` / `load_kernel_file` + `analyze`), so the TUI
shows exactly what `sassview check` reports. The file the app opens is loaded from before
Textual is imported (`Opening`), and a cached model's first kernel is handed over before its
others are read (`previewing`): the app paints it meanwhile.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sassview.api import BuildOptions, resolve_build
from sassview.build import FirstKernel, first_kernel
from sassview.errors import SassviewError
from sassview.gcpause import pause as pause_gc
from sassview.inspection import Inspection
from sassview.ir import Program

# Architectures the picker offers for a source that sassview compiles (.cu, kernel.py, .ptx).
COMMON_ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90a", "sm_100a", "sm_120")
_COMPILED = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".py", ".ptx")


@dataclass(frozen=True)
class Target:
    """What the user asked to open; a recompile reuses it, an arch switch adds to `arch`."""

    path: Path
    arch: tuple[str, ...] | None = None
    kernel: str | None = None
    build: BuildOptions = BuildOptions()  # CUDA C++: the command line's build options

    @property
    def compiles(self) -> bool:
        """Whether a change of architecture means a recompile (a cubin is what it is)."""
        return self.path.suffix in _COMPILED

    def with_arch(self, arch: str, keep: Sequence[str] = ()) -> Target:
        """This target for `arch` too: the architectures in `keep` (what is shown now) stay,
        so `D` can compare the kernel across them; `arch` comes last."""
        return replace(self, arch=tuple(dict.fromkeys([*keep, arch])))


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
        found = _decided(kernel_file, programs, arch, analyze)
        if target.kernel:
            found = [i for i in found if _named(i, target.kernel)]
            if not found and programs:
                programs[0].kernel(target.kernel)  # raises, listing the kernels there are
    else:  # the build as `check` takes it: the project's compile_commands.json laid in
        build = resolve_build(target.path, target.build)
        notes = list(build.notes)
        found = inspect(
            target.path, arch=arch or list(build.archs) or None, kernel=target.kernel,
            build=build.options,
        )  # fmt: skip
        from sassview.steer.standing import decide_cuda_file

        found = decide_cuda_file(target.path, found, build.options, run_trials=False)
    if not found:
        raise SassviewError(f"{target.path}: no kernels", "is there a __global__ function?")
    watched = _watched(target.path, found)
    return Loaded(tuple(found), watched, tuple(notes), time.perf_counter() - start)


def _decided(
    kernel_file: Any, programs: list[Any], arch: list[str] | None, analyze: Any
) -> list[Inspection]:
    """Every program's inspections, each hint's standing decided as `check` decides it
    without --try (sassview/steer/standing.py): a knob the hint names is said untried."""
    from sassview.api import kernel_file_jobs
    from sassview.steer.standing import decide

    jobs = kernel_file_jobs(kernel_file, arch=arch)
    return [
        i
        for p, job in zip(programs, jobs, strict=True)
        for i in decide(kernel_file, job, analyze(p), run_trials=False)
    ]


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


class Opening:
    """The load of the file the app opens, begun before the app and Textual are imported: the
    cache's reads and digests (hashlib and file reads let go of the GIL: ~65 ms of the 65k
    kernel's load) then run beside Textual's import, on another core. The app's worker `take`s
    it. The collector stays paused from here until the worker has it (`resume_gc`): the load
    makes 10^6 records, which the collections the import would let run would rescan."""

    def __init__(self, target: Target, load: Callable[[Target], Loaded] = load) -> None:
        self.target = target
        self.resume_gc = pause_gc(freeze=True)
        self._load = load
        self._first: Inspection | None = None
        self._result: Loaded | Exception | None = None
        self._ready = threading.Event()  # the first kernel is here, or the whole load is
        self._done = threading.Event()
        self._go_on = threading.Event()  # the first kernel is shown: load the others
        # A daemon: an app that never starts (a failure before it mounts) leaves no process.
        threading.Thread(target=self._run, name="sassview-opening", daemon=True).start()

    def _run(self) -> None:
        try:
            if self.target.kernel is None:  # it opens on the first kernel
                with previewing(self._hand_over):
                    self._result = self._load(self.target)
            else:
                self._result = self._load(self.target)
        except Exception as exc:  # the worker raises it, where every failure is shown
            self._result = exc
        finally:
            self._done.set()
            self._ready.set()

    def _hand_over(self, first: Inspection) -> None:
        self._first = first
        self._ready.set()
        self._go_on.wait()

    def first(self, wait: float = 0.0) -> Inspection | None:
        """The first kernel, when it is in within `wait` seconds and the load waits for it to
        be shown (None when the whole load is in, or failed); `take` then hands the same
        object to `show`."""
        self._ready.wait(wait)
        return self._first if self._ready.is_set() and not self._done.is_set() else None

    def take(self, show: Callable[[Inspection], None]) -> Loaded:
        """The load's result (raised, when it failed); `show` is called with its first kernel
        first, when there is one before the whole load is in (as `previewing`'s)."""
        self._ready.wait()
        if self._first is not None and not self._done.is_set():
            try:
                show(self._first)
            finally:
                self._go_on.set()
        self._done.wait()
        if isinstance(self._result, Exception):
            raise self._result
        assert self._result is not None
        return self._result


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
