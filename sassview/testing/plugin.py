"""The pytest plugin (entry point `pytest11: sassview`): a fixture, options, a marker.

    def test_vector_loads(sassview_kernel):
        k = sassview_kernel("kernels/vecadd.cu", kernel="add_f4")
        k.assert_load_width(128, lines=(6, 8))

- `sassview_kernel(path=None, *, kernel=None, arch=None, defines=(), options=(),
  include_dirs=(), variant=None, compiler="auto", instantiate=(), include_before=(),
  host_compiler=None, compile_commands=True, included_by=None, toolchain=None) -> KernelUnderTest`
  compiles (once per session) and inspects, built as `sassview check` builds the file: `compiler` is
  auto | nvrtc | nvcc, `instantiate` lists template kernels to compile (`"tile<128, float>"`),
  `compile_commands` takes the compile_commands.json above the file (a directory: the one
  there; False: none), `included_by` checks a header as that file includes it; a relative
  path is looked up beside the test file, then under the rootdir; `toolchain` compiles CUDA
  C++ with a release added by `sassview toolchain add` ("12.9").
- `--sassview-arch sm_80,sm_90a` runs each test that uses the fixture once per architecture
  (ids `[sm_80]`, `[sm_90a]`); the `sassview_arch` ini option sets the default (sm_90a).
- `@pytest.mark.sassview(arch=..., path=..., kernel=..., defines=..., options=...,
  include_dirs=..., variant=..., compiler=..., instantiate=..., include_before=...,
  host_compiler=..., compile_commands=..., included_by=..., toolchain=...)`
  sets the fixture's defaults for a test, class or module
  (`pytestmark`); its `arch` pins the architectures, whatever the command line says.
- A missing snapshot is written (a copied test passes on its first run) and named in the
  summary; `--sassview-strict` fails on it instead (for CI). `--sassview-update` rewrites
  snapshots that differ instead of failing. Under pytest-xdist the workers' writes are
  reported by the controller.

This is the only module that imports pytest, and it only wires: every answer comes from
sassview.testing.matchers reading an Inspection. A missing frontend package skips the test.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sassview.api import DEFAULT_ARCH

if TYPE_CHECKING:
    import sys

    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

    from sassview.api import BuildKeywords
    from sassview.testing.loader import KernelCache
    from sassview.testing.matchers import KernelUnderTest
    from sassview.testing.snapshot import SnapshotSession

_OWN_SETTINGS = ("arch", "path", "kernel", "variant")  # the rest are the build's (BuildKeywords)


def _setting_names() -> tuple[str, ...]:
    from sassview.api import BuildKeywords

    return (*_OWN_SETTINGS, *BuildKeywords.__annotations__)


@dataclass
class _State:
    update: bool
    strict: bool = False
    cache: KernelCache | None = None
    snapshots: SnapshotSession | None = None
    # What xdist workers reported (on the controller): loads, kernels, cache hits, builds, waits.
    workers: dict[str, int] = dataclasses.field(default_factory=dict)
    baseline: dict[str, int] = dataclasses.field(default_factory=dict)  # STATS at first use
    gate: Path | None = None  # --sassview-baseline DIR: the compiler-upgrade gate's baselines
    gate_update: bool = False
    gate_written: list[str] = dataclasses.field(default_factory=list)
    toolchain: str | None = None  # --sassview-toolchain: every CUDA C++ kernel's release

    def counts(self) -> dict[str, int]:
        """This process's loads, kernels and cache figures, plus what its workers reported."""
        mine = {"loads": 0, "kernels": 0, "builds": 0, "hits": 0, "waited": 0}
        if self.cache is not None:  # only then was sassview's cache imported at all
            from sassview.cache import STATS

            mine.update({k: n - self.baseline.get(k, 0) for k, n in STATS.items()})
            mine.update(loads=self.cache.compiles, kernels=len(self.cache.kernels))
        return {k: n + self.workers.get(k, 0) for k, n in mine.items()}

    def kernels(self) -> KernelCache:
        if self.cache is None:
            from sassview.cache import STATS
            from sassview.testing.loader import KernelCache

            self.cache = KernelCache()
            # The process's counts so far: a session run inside another (pytester) shares them.
            self.baseline.update(STATS)
        return self.cache

    def snapshot_session(self) -> SnapshotSession:
        if self.snapshots is None:
            from sassview.testing.snapshot import SnapshotSession

            self.snapshots = SnapshotSession(update=self.update, strict=self.strict)
        return self.snapshots


_STATE = pytest.StashKey[_State]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sassview", "sassview: assertions on compiled CUDA kernels")
    group.addoption(
        "--sassview-arch",
        metavar="ARCHS",
        default=None,
        help="architectures to compile for, comma-separated (sm_80,sm_90a): each "
        "test using sassview_kernel runs once per architecture",
    )
    group.addoption(
        "--sassview-update",
        action="store_true",
        default=False,
        help="write sassview snapshots that are missing or differ, instead of failing",
    )
    group.addoption(
        "--sassview-strict",
        action="store_true",
        default=False,
        help="fail on a missing sassview snapshot instead of writing it (for CI)",
    )
    group.addoption(
        "--sassview-toolchain",
        metavar="RELEASE",
        default=None,
        help="compile every CUDA C++ kernel of sassview_kernel with this release "
        "(`sassview toolchain add RELEASE`), unless a test names its own",
    )
    group.addoption(
        "--sassview-baseline",
        metavar="DIR",
        default=None,
        help="the compiler-upgrade gate: compare each kernel sassview_kernel loads with its "
        "baseline in DIR (listing and facts per toolchain); fail on a significant or "
        "unclear change, pass on a benign one",
    )
    group.addoption(
        "--sassview-baseline-update",
        action="store_true",
        default=False,
        help="write the baselines that differ or are missing (listed at the end)",
    )
    parser.addini(
        "sassview_arch",
        "default architectures for sassview_kernel (comma-separated)",
        default=DEFAULT_ARCH,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sassview(arch=None, path=None, kernel=None, variant=None, **build): defaults for the "
        "sassview_kernel fixture, the build's by sassview.api.BuildKeywords' names (defines=, "
        "options=, include_dirs=, compiler=, ...); arch pins the architectures",
    )
    gate = config.getoption("sassview_baseline")
    config.stash[_STATE] = _State(
        update=bool(config.getoption("sassview_update")),
        strict=bool(config.getoption("sassview_strict")),
        gate=Path(gate) if gate else None,
        gate_update=bool(config.getoption("sassview_baseline_update")),
        toolchain=config.getoption("sassview_toolchain"),
    )


def _split(archs: str | Sequence[str]) -> list[str]:
    items = archs.split(",") if isinstance(archs, str) else [a for x in archs for a in x.split(",")]
    return [a.strip() for a in items if a.strip()]


def _settings(node: pytest.Item | pytest.Function) -> dict[str, Any]:
    """The sassview marker's keywords, closest (test) over farthest (module)."""
    merged: dict[str, Any] = {}
    for marker in reversed(list(node.iter_markers("sassview"))):
        names = _setting_names()
        unknown = set(marker.kwargs) - set(names)
        if unknown or marker.args:
            raise pytest.UsageError(
                f"@pytest.mark.sassview takes keywords {', '.join(names)}; "
                f"got {sorted(unknown) or marker.args}"
            )
        merged.update(marker.kwargs)
    return merged


def _archs(config: pytest.Config, settings: Mapping[str, Any]) -> list[str]:
    if settings.get("arch"):
        return _split(settings["arch"])
    chosen = config.getoption("sassview_arch") or config.getini("sassview_arch") or DEFAULT_ARCH
    return _split(chosen)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per architecture for every test that uses the fixture (ids: [sm_90a])."""
    if "sassview_arch" not in metafunc.fixturenames:
        return
    for m in metafunc.definition.iter_markers("parametrize"):
        names = m.args[0] if m.args else m.kwargs.get("argnames", "")
        names = names.split(",") if isinstance(names, str) else names
        if "sassview_arch" in [n.strip() for n in names]:
            return  # the test chose its own
    archs = _archs(metafunc.config, _settings(metafunc.definition))
    metafunc.parametrize("sassview_arch", archs, ids=archs, indirect=True)


@pytest.fixture
def sassview_arch(request: pytest.FixtureRequest) -> str:
    """The architecture this test instance compiles for."""
    param = getattr(request, "param", None)
    return str(param) if param else _archs(request.config, _settings(request.node))[0]


@pytest.fixture
def sassview_kernel(
    request: pytest.FixtureRequest, sassview_arch: str
) -> Callable[..., KernelUnderTest]:
    """Compile (once per session) and inspect one kernel: `sassview_kernel("k.cu", kernel="f")`."""
    state = request.config.stash[_STATE]
    settings = _settings(request.node)
    slot = _snapshot_slot(request, state, sassview_arch)

    def load(
        path: str | Path | None = None,
        *,
        kernel: str | None = None,
        arch: str | None = None,
        variant: Mapping[str, Any] | None = None,
        **given: Unpack[BuildKeywords],
    ) -> KernelUnderTest:
        __tracebackhide__ = True
        from sassview.api import BuildOptions
        from sassview.errors import SassviewError
        from sassview.testing.loader import MissingFrontend, Target
        from sassview.testing.matchers import KernelUnderTest

        where = path if path is not None else settings.get("path")
        if where is None:
            raise TypeError("sassview_kernel() needs a path, or @pytest.mark.sassview(path=...)")
        resolved = _resolve(Path(where), request)
        # the marker's build keywords, then the call's (None: the marker's); paths as given:
        # relative ones are the test's working directory's
        marked = {k: v for k, v in settings.items() if k not in _OWN_SETTINGS}
        chosen = {k: v for k, v in given.items() if v is not None}
        try:
            build = BuildOptions.of(BuildOptions(toolchain=state.toolchain), **{**marked, **chosen})
            target = Target(resolved, arch or sassview_arch, build)
            inspection, memo = state.kernels().get(
                target,
                kernel if kernel is not None else settings.get("kernel"),
                variant if variant is not None else settings.get("variant"),
            )
        except MissingFrontend as exc:
            pytest.skip(str(exc))
        except SassviewError as exc:
            pytest.fail(
                f"sassview: {resolved.name} ({arch or sassview_arch}): {exc}", pytrace=False
            )
        if state.gate is not None:
            _gate(state, inspection)
        return KernelUnderTest(inspection, memo=memo, snapshots=slot)

    return load


def _gate(state: _State, inspection: Any) -> None:
    """The kernel against its baseline (testing/gate.py): a significant or unclear change,
    or none recorded, fails the test with the classified diff."""
    __tracebackhide__ = True
    from sassview.report.classify import explain
    from sassview.testing.gate import check_kernel

    assert state.gate is not None
    outcome = check_kernel(state.gate, inspection, update=state.gate_update)
    if outcome.wrote:
        state.gate_written.append(str(outcome.path))
    if outcome.passed:
        return
    where = f"{outcome.kernel} ({outcome.arch}, CUDA {outcome.toolchain})"
    if outcome.classified is None:
        pytest.fail(
            f"sassview baseline: {where} has none at {outcome.path}; record it with "
            "--sassview-baseline-update",
            pytrace=False,
        )
    against = f" against the baseline of CUDA {outcome.against}" if outcome.against else ""
    lines = explain(outcome.classified)
    pytest.fail(
        f"sassview baseline: {where} changed{against}: {outcome.status}\n"
        + "\n".join(lines)
        + "\naccept it with --sassview-baseline-update (and review the files it writes)",
        pytrace=False,
    )


def _resolve(path: Path, request: pytest.FixtureRequest) -> Path:
    if path.is_absolute():
        return path
    for base in (Path(request.node.path).parent, Path(request.config.rootpath)):
        if (base / path).exists():
            return (base / path).resolve()
    return (Path(request.node.path).parent / path).resolve()  # sassview says it is missing


def _snapshot_slot(request: pytest.FixtureRequest, state: _State, arch: str) -> Any:
    from sassview.testing.snapshot import SnapshotSlot

    node = request.node
    module = Path(node.path)
    stem = getattr(node, "originalname", node.name)
    callspec = getattr(node, "callspec", None)
    if callspec is not None and callspec.id:
        ids = callspec.id.split("-")
        if "sassview_arch" in callspec.params and arch in ids:
            del ids[len(ids) - 1 - ids[::-1].index(arch)]
        if ids:
            stem += "-" + "-".join(ids)
    return SnapshotSlot(
        module.parent / "__snapshots__" / module.stem, stem, state.snapshot_session()
    )


def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    """`assert k.normalized() == expected`: show a unified diff of the two listings."""
    if op != "==" or not isinstance(left, str) or not isinstance(right, str):
        return None
    from sassview.report.listing import Listing

    if not isinstance(left, Listing) and not isinstance(right, Listing):
        return None
    from sassview.testing.snapshot import diff

    return ["the listings differ:", *diff(right, left, names=("right", "left")).splitlines()]


_WORKER_KEY = "sassview_snapshots"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands the snapshots it wrote, and what it compiled and read from the
    cache, to the controller, which reports them for the whole run."""
    workeroutput = getattr(session.config, "workeroutput", None)
    state = session.config.stash.get(_STATE, None)
    if workeroutput is None or state is None:
        return
    snaps = state.snapshots
    workeroutput[_WORKER_KEY] = {
        "written": [str(p) for p in snaps.written] if snaps else [],
        "updated": [str(p) for p in snaps.updated] if snaps else [],
        "gate_written": state.gate_written,
        "counts": state.counts(),
    }


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: unknown where xdist is not installed
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the xdist controller: add what a finished worker wrote to this session's lists."""
    report = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    state = node.config.stash.get(_STATE, None)
    if not report or state is None:
        return
    if report["written"] or report["updated"]:  # (and the gate's, below)
        snaps = state.snapshot_session()
        snaps.written.extend(Path(p) for p in report["written"])
        snaps.updated.extend(Path(p) for p in report["updated"])
    state.gate_written.extend(report.get("gate_written", []))
    for k, n in report.get("counts", {}).items():
        state.workers[k] = state.workers.get(k, 0) + n


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    snaps = state.snapshots
    if snaps is not None and (snaps.written or snaps.updated):
        terminalreporter.write_sep("-", "sassview snapshots")
        for verb, paths in (("written", snaps.written), ("updated", snaps.updated)):
            for p in sorted(paths):
                terminalreporter.write_line(f"{verb}: {p}")
        terminalreporter.write_line(f"{len(snaps.written)} written, {len(snaps.updated)} updated")
        if snaps.written and not state.update:
            terminalreporter.write_line(
                "new snapshots were recorded from this run: review and commit them"
                " (--sassview-strict fails on a missing one instead)"
            )
    if state.gate_written:
        terminalreporter.write_sep("-", "sassview baselines")
        for written in sorted(set(state.gate_written)):
            terminalreporter.write_line(f"written: {written}")
        terminalreporter.write_line(
            f"{len(set(state.gate_written))} written: review and commit them"
        )
    counts = state.counts()
    if counts["loads"] and config.getoption("verbose") > 0:
        # Summed over the xdist workers on the controller: a kernel two workers shared shows
        # as one build and one wait (cache/locks.py), not two builds.
        terminalreporter.write_line(
            # "loads", not "compiles": a load the cache (or another worker) served compiled
            # nothing; the cache's own counts say what was built.
            f"sassview: {counts['loads']} kernel files loaded, {counts['kernels']} kernels "
            "inspected; "
            f"cache: {counts['builds']} built, {counts['hits']} read "
            f"({counts['waited']} after waiting for another process)"
        )
