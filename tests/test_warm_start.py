"""A warm run stays light: what it imports and loads, and the dominators that replaced networkx.

Speed itself is measured in benchmarks/bench_warm.py; these tests pin the deterministic causes:
which modules a run served from the cache imports (sys.modules), and that the hand-written
dominator algorithm agrees with networkx on every recorded CFG and on random graphs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import networkx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sassview.analyses import REGISTRY
from sassview.graph import loops
from sassview.graph.cfg import ControlFlowGraph, build_cfg, build_ptx_cfg
from sassview.graph.dominators import immediate_dominators, reachable
from sassview.parse.ptx import parse_ptx
from sassview.parse.sass_text import parse_sass_text

TESTS = Path(__file__).parent
ROOT = TESTS.parent
LISTINGS = sorted(
    [*TESTS.glob("corpus/*/*/sass.txt"), *TESTS.glob("data/*/*.sass.txt")]
    + [*TESTS.glob("corpus/*/*/kernel.ptx"), *TESTS.glob("data/*/*.ptx")]
)


def _networkx_idom(graph: dict[int, list[int]], root: int) -> dict[int, int]:
    g = networkx.DiGraph()
    g.add_nodes_from(graph)
    g.add_edges_from((s, d) for s, ds in graph.items() for d in ds)
    idom = dict(networkx.immediate_dominators(g, root))
    idom[root] = root  # networkx releases differ on whether the root is listed
    return idom


def _cfgs(listing: Path) -> list[tuple[ControlFlowGraph, frozenset[tuple[int, int]]]]:
    text = listing.read_text()
    if listing.suffix == ".ptx":
        return [(build_ptx_cfg(f), frozenset()) for f in parse_ptx(text, str(listing)).functions]
    out = []
    for f in parse_sass_text(text, where=str(listing)).functions:
        cfg = build_cfg(f.instructions)
        out.append((cfg, loops._exit_calls(cfg, f.instructions)))
    return out


@pytest.mark.parametrize("listing", LISTINGS, ids=lambda p: str(p.relative_to(TESTS)))
def test_dominators_agree_with_networkx_on_every_recorded_cfg(listing: Path) -> None:
    checked = 0
    for cfg, exits in _cfgs(listing):
        graph = loops._procedures(cfg, loops._intra_successors(cfg, exits), exits)
        assert immediate_dominators(graph, loops._ROOT) == _networkx_idom(graph, loops._ROOT)
        checked += len(graph)
    assert checked > 1


@st.composite
def _graphs(draw: st.DrawFn) -> dict[int, list[int]]:
    n = draw(st.integers(1, 30))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80))
    graph: dict[int, list[int]] = {k: [] for k in range(n)}
    for s, d in edges:
        if d not in graph[s]:
            graph[s].append(d)
    return graph


@settings(max_examples=300, deadline=None)
@given(_graphs())
def test_dominators_and_reachability_agree_with_networkx_on_random_graphs(
    graph: dict[int, list[int]],
) -> None:
    assert immediate_dominators(graph, 0) == _networkx_idom(graph, 0)
    g = networkx.DiGraph([(s, d) for s, ds in graph.items() for d in ds])
    g.add_nodes_from(graph)
    assert reachable(graph, 0) == networkx.descendants(g, 0) | {0}


# Run in a child: the modules a warm `sassview check` leaves in sys.modules, and whether it
# compiled (a second run must be served from the cache for the check to mean anything).
_PROBE = """
import json, sys
from sassview.views.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""
HEAVY = ("networkx", "cuda.bindings", "cuda.pathfinder", "triton", "cutlass", "textual", "rich")
# What reads the listings into a model: a warm run loads the cached model instead.
READERS = (
    "elftools",
    "sassview.binary.elf",
    "sassview.disasm",
    "sassview.parse.sass_json",
    "sassview.parse.sass_text",
    "sassview.parse.ptx",
)

# What only a compile, a tool run, a directory, the remote cache, a sweep of the cache or
# another command needs: each loads where it is used (sassview.cache and sassview.toolchain
# name their modules lazily, the CLI's other commands load when named).
COLD = (
    "subprocess",
    "sassview.toolchain.run",
    "sassview.frontends.nvrtc_api",
    "sassview.frontends.files",
    "sassview.frontends.discover",
    "sassview.cache.remote",
    "sassview.cache.sweep",
    *(f"sassview.views.cli_{c}" for c in ("cache", "diff", "export", "filecheck", "sweep", "try")),
)


def _modules_of_a_check(cache: Path, source: str) -> list[str]:
    env = {**os.environ, "SASSVIEW_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "check", source, "--arch", "sm_90a", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["programs"]
    modules: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return modules


@pytest.mark.compile
@pytest.mark.parametrize("source", ["examples/vecadd.cu", "tests/data/graph/loops.cu"])
def test_a_warm_check_imports_no_compiler_bindings_no_tool_finder_no_networkx_no_reader(
    source: str, tmp_path: Path
) -> None:
    cold = _modules_of_a_check(tmp_path, source)
    assert "cuda.bindings.nvrtc" in cold  # it compiled: the warm run below is a cache hit
    assert "sassview.parse.sass_json" in cold  # ...and built the model from the listings
    warm = _modules_of_a_check(tmp_path, source)
    assert [m for m in warm if m.split(".")[0] in HEAVY or m.startswith(HEAVY)] == []
    assert [m for m in warm if m.startswith(READERS)] == []
    # nor an analysis: the cached facts' records live apart from them (analyses/records*.py)
    assert [m for m in warm if m in REGISTRY.values()] == []
    assert [m for m in warm if m in COLD] == []


def test_a_tools_location_is_remembered_until_the_import_path_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sassview.toolchain import remembered

    wheel = tmp_path / "site-packages"
    (wheel / "nvidia" / "bin").mkdir(parents=True)
    tool = wheel / "nvidia" / "bin" / "nvdisasm"
    tool.write_text("")
    monkeypatch.setattr(sys, "path", [str(wheel), *sys.path])
    searches: list[str] = []

    def search() -> str:
        searches.append("searched")
        return str(tool)

    assert remembered.location("nvdisasm", search) == str(tool)
    assert remembered.location("nvdisasm", search) == str(tool)
    assert len(searches) == 1  # the second run did not search
    (wheel / "nvidia_new-1.0.dist-info").mkdir()  # pip installs or removes a wheel
    assert remembered.location("nvdisasm", search) == str(tool)
    assert len(searches) == 2
    tool.unlink()  # gone: never served from memory
    assert remembered.location("nvdisasm", lambda: None) is None


def test_a_paused_collector_resumes_as_it_was() -> None:
    import gc

    from sassview.gcpause import pause

    assert gc.isenabled()
    resume = pause()
    assert not gc.isenabled()
    inner = pause()  # a pause inside a pause leaves it off
    inner()
    assert not gc.isenabled()
    resume()
    assert gc.isenabled()
    gc.unfreeze()
    made = [object()]
    pause(freeze=True)()  # what exists then is frozen: the collector never rescans it
    assert gc.isenabled() and gc.get_freeze_count() >= len(made)
    gc.unfreeze()
