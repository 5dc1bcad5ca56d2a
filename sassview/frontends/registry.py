"""The frontends, registered in one place: what each language is called, how a kernel.py declares
its kernels, how they compile, which pip package brings it, and how its fixes are worded.

A frontend is a `FrontendSpec`, kept in a light module of its own under `frontends/specs/` (it
imports no compiler: that happens in its hooks, on first use) and named in `_BUILTIN` below.
Everything that used to ask "is this Triton?" asks the registry instead: the kernel file's
declarations (`sv.triton`, ...) and its undeclared kernels, the compile of each job, the
doctor, the pytest plugin's "not installed" skip, and the analyses' and `sassview try`'s words
for a fix (`Vocabulary`, `Knob`). A test suite or a plugin adds one with `register()`.

This module sits in the frontends layer so analyses and views may read it; it imports nothing
above `sassview.errors` at run time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sassview.frontends.declaration import Declaration, KernelFile
    from sassview.ir import Artifacts

    Compile = Callable[[KernelFile, Declaration, str, dict[str, Any]], Artifacts]


@dataclass(frozen=True)
class Vocabulary:
    """How a fix is said in one language. None: the CUDA C++ words the analyses hold (also
    used for a bare .ptx or .cubin)."""

    narrow: str | None = None  # vectorize: a thread's accesses are narrower than they could be
    merge: str | None = None  # vectorize: neighbouring accesses that could be one
    coalesce: str | None = None  # a warp's global access touches more sectors than needed
    bank_conflict: str | None = None  # a shared access whose lanes share a bank
    spill: str | None = None  # registers spilled: what holds fewer values per thread
    unroll: str = ""  # how a loop asks to be unrolled: "#pragma unroll N"
    stages: str = ""  # the software-pipelining knob, if the language has one: "num_stages"


@dataclass(frozen=True)
class Knob:
    """A change `sassview try` can make without editing source: settings merged over the
    declaration's, variant values merged over the job's. `knob` is what a person would type."""

    knob: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    variant: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Detection:
    """How the frontend's kernels are found in a kernel.py that does not declare them all."""

    is_kernel: Callable[[Any], bool]  # a module-level object of the file: one of its kernels?
    declaration: Callable[[str, Any], str]  # the sv.<...>(...) line to add for it
    target: Callable[[Any], Any] = lambda obj: obj  # what its declaration keeps (unwrapped)
    # ids of its kernels that are device helpers of others (never suggested): vars -> ids
    helpers: Callable[[Mapping[str, Any]], set[int]] = lambda names: set()
    line: Callable[[Any], int] | None = None  # where it is defined, when not __code__'s line


@dataclass(frozen=True)
class FrontendSpec:
    kind: str  # Declaration.kind and Artifacts.kind: "triton"
    title: str  # what a person calls it: "Triton"
    declarations: tuple[str, ...]  # the sv.<name> functions a kernel.py declares kernels with
    declare_module: str  # ... and the module that holds them and its `helpers`
    compile: Compile  # one job: (kernel file, declaration, arch, variant) -> Artifacts
    package: str  # what `pip install` needs ("" for none beyond sassview's own)
    extra: str  # the sassview extra that brings it: pip install 'sassview[<extra>]'
    modules: tuple[str, ...] = ()  # top-level Python packages it imports ("triton")
    helpers: tuple[str, ...] = ()  # other sv.<name> a kernel.py calls: sv.tensor (an example)
    version: Callable[[], str | None] = lambda: None  # installed version, without importing it
    vocabulary: Vocabulary = Vocabulary()
    tile: bool = False  # statements are tile operations: one line is many instructions
    cxx: bool = False  # its kernels are C++ (a string or a file): loops are read from the C++
    ir_unrolls: bool = False  # it unrolls loops in its own IR (its stages say by how much)
    range_unroll: bool = False  # loops ask for unrolling by a keyword of their range call
    detection: Detection | None = None
    # `sassview try`: a knob for a spill, and one for narrow or unmerged accesses
    spill_knob: Callable[[Declaration, Mapping[str, Any]], Knob | None] = lambda d, v: None
    width_knob: Callable[[Declaration, Mapping[str, Any]], Knob | None] = lambda d, v: None
    # an analyses module whose `revised(notes, accesses, locs)` words width notes by their
    # cause (the CuTe DSL's per-element predicates): named, not imported, across the layers
    width_notes: str | None = None
    # ... and one for a finding only it makes: (finding kind, its data, declaration) -> knob
    finding_knob: Callable[[str, Mapping[str, Any], Declaration], Knob | None] = (
        lambda kind, data, d: None
    )
    check_names: Callable[[Any, Declaration], None] = lambda path, d: None  # before compiling


# The built-in frontends, each the SPEC of a module in frontends/specs/, in the order the doctor
# lists them. Loaded on first use (a spec imports no compiler, so that stays cheap).
_BUILTIN = ("cuda", "triton", "gluon", "cute", "cutile")
_registered: dict[str, FrontendSpec] = {}  # state, not a memo


def _load() -> dict[str, FrontendSpec]:
    if not _registered:
        for name in _BUILTIN:
            found: FrontendSpec = importlib.import_module(f"sassview.frontends.specs.{name}").SPEC
            _registered[found.kind] = found
    return _registered


def register(spec: FrontendSpec) -> Callable[[], None]:
    """Add a frontend (or replace the one of its kind); returns the call that takes it away."""
    table = _load()
    before = table.get(spec.kind)
    table[spec.kind] = spec

    def unregister() -> None:
        if before is None:
            table.pop(spec.kind, None)
        else:
            table[spec.kind] = before

    return unregister


def frontends() -> Mapping[str, FrontendSpec]:
    """Every frontend by kind, built-in ones first."""
    return MappingProxyType(_load())


def spec(kind: str) -> FrontendSpec | None:
    """The frontend of `kind`; None for what no frontend made (a .ptx, a .cubin)."""
    return _load().get(kind)


def words(kind: str) -> Vocabulary:
    """The words for a fix in the language of `kind` (the C++ defaults where it has none)."""
    found = spec(kind)
    return found.vocabulary if found is not None else Vocabulary()


def declaration_names() -> tuple[str, ...]:
    """Every sv.<name> a kernel.py may call, for `sassview.__all__` and its __getattr__: the
    declarations and the helpers they take (`sv.tensor`, an example argument)."""
    return tuple(n for s in _load().values() for n in (*s.declarations, *s.helpers))


def declaration(name: str) -> Callable[..., Any] | None:
    """The declaration function sv.<name>, imported on first use; None if no frontend has it."""
    for s in _load().values():
        if name in s.declarations or name in s.helpers:
            return getattr(importlib.import_module(s.declare_module), name)  # type: ignore[no-any-return]
    return None


def package_for(module: str) -> tuple[FrontendSpec, str] | None:
    """The frontend that imports `module` ("triton.language", "cuda.tile") and which of its
    packages that is ("triton", "cuda.tile"): where an ImportError's name points."""
    for s in _load().values():
        for package in s.modules:
            if module == package or module.startswith(package + "."):
                return s, package
    return None


def detect(obj: Any) -> FrontendSpec | None:
    """The frontend whose kernel `obj` is (an object defined in a kernel.py), if any."""
    for s in _load().values():
        if s.detection is not None and s.detection.is_kernel(obj):
            return s
    return None


def install_hint(s: FrontendSpec) -> str:
    """What to type to get a frontend: its sassview extra, or its pip package."""
    if s.extra:
        return f"pip install 'sassview[{s.extra}]'"
    return f"pip install {s.package}" if s.package else "nothing to install"


def distribution_version(*names: str) -> str | None:
    """The installed version of the first pip distribution of `names` there is (no import)."""
    from importlib.metadata import PackageNotFoundError, version

    for name in names:
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return None


__all__ = [
    "Detection",
    "FrontendSpec",
    "Knob",
    "Vocabulary",
    "declaration",
    "declaration_names",
    "detect",
    "distribution_version",
    "frontends",
    "install_hint",
    "package_for",
    "register",
    "spec",
    "words",
]
