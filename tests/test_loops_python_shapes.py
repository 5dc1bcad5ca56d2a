"""The loop census on the Python loop-shapes corpus (issue #31): the claims it makes of the loops
Triton and CuTe DSL kernel authors write are the ones the compiler would sign.

tests/data/loops/triton_shapes.py and cute_shapes.py hold the kernels; each kernel's docstring
labels its `# @mark`ed loops with the claim read by hand from the SASS (and PTX) of
record_python_shapes.py's recordings (tests/data/loops/python_shapes/, with each Triton
compile's TTIR and options). The recorded tests need nvdisasm only; the `compile` ones compile
the corpus again (Triton for sm_80 and sm_90a, the CuTe DSL too) and hold it to the same labels.
test_loop_census.py runs its every-loop-has-an-entry census over these recordings as well.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import pytest
from helpers.loop_claims import python_recording

from sassview.analyses.loops.entry import COPIES_UNKNOWN, FACTOR_UNKNOWN, LoopEntry, claim
from sassview.inspection import inspect_kernel, inspect_program
from sassview.ir import Program

DATA = Path(__file__).parent / "data" / "loops"
RECORDED = DATA / "python_shapes"
SOURCES = {"ts_": DATA / "triton_shapes.py", "cs_": DATA / "cute_shapes.py"}
ARCHS = ("sm_80", "sm_90a")
_LABEL = re.compile(r"^@(\w+)(?: (sm_\w+))?: (.*)$")


class Label(NamedTuple):
    kernel: str  # the build's name (a CuTe DSL host function, whose kernel has `_kernel`)
    mark: str
    arch: str | None  # None: every arch
    claim: str  # what the census must say; `unknown: <truth>` where it may not tell
    why: str


def source(kernel: str) -> Path:
    return SOURCES[kernel[:3]]


@cache
def marks(path: Path) -> dict[str, int]:
    """`# @name` -> line."""
    found = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r"# @(\w+)\s*$", line)
        if m:
            found[m.group(1)] = number
    return found


def _docstring_labels(name: str, doc: str) -> list[Label]:
    """A docstring's `@mark[ arch]: claim  -- why` lines, each with the lines under it."""
    blocks: list[list[str]] = []
    for line in doc.splitlines():
        text = line.strip()
        if text.startswith("@"):
            blocks.append([text])
        elif blocks and text:
            blocks[-1].append(text)
        elif blocks:
            blocks.append([])  # a blank line ends a label
    out = []
    for block in (b for b in blocks if b):
        m = _LABEL.match(" ".join(block))
        assert m, f"{name}: unreadable label {block[0]!r}"
        said, _, why = m.group(3).partition(" -- ")
        assert why, f"{name}: the label of @{m.group(1)} says no reason"
        out.append(Label(name.removesuffix("_kernel"), m.group(1), m.group(2), said.strip(), why))
    return out


@cache
def labels() -> tuple[Label, ...]:
    found: list[Label] = []
    for path in SOURCES.values():
        for node in ast.parse(path.read_text()).body:
            doc = ast.get_docstring(node) if isinstance(node, ast.FunctionDef) else None
            if doc and isinstance(node, ast.FunctionDef):
                found += _docstring_labels(node.name, doc)
    return tuple(found)


def label_for(kernel: str, mark: str, arch: str) -> Label:
    rows = [r for r in labels() if (r.kernel, r.mark) == (kernel, mark)]
    own = [r for r in rows if r.arch == arch] or [r for r in rows if r.arch is None]
    assert len(own) == 1, f"{kernel} @{mark} on {arch}: {len(own)} labels"
    return own[0]


def stems() -> list[str]:
    return sorted(p.name.removesuffix(".cubin") for p in RECORDED.glob("*.cubin"))


@cache
def recorded(stem: str) -> Program:
    return python_recording(RECORDED / stem, source(stem.split(".")[0]))


def statements(program: Program) -> list[LoopEntry]:
    (k,) = program.kernels
    entries: tuple[LoopEntry, ...] = inspect_kernel(program, k).facts("unroll")["entries"]
    return [e for e in entries if e.statement]


def verdict(label: Label, entry: LoopEntry | None) -> str:
    """ "right", "unknown" (the census said it cannot tell) or "wrong"."""
    if entry is None:
        return "wrong"
    said = claim(entry)
    want = label.claim.removeprefix("unknown: ")
    if said == want:
        return "right"
    return "unknown" if FACTOR_UNKNOWN in said or COPIES_UNKNOWN in said else "wrong"


def entry_at(found: list[LoopEntry], kernel: str, mark: str) -> LoopEntry | None:
    line = marks(source(kernel))[mark]
    here = [e for e in found if e.line == line and not e.inlined_at]
    return here[0] if len(here) == 1 else None


def _cases() -> list[Any]:
    return [
        pytest.param(stem, mark, id=f"{stem}-{mark}")
        for stem in stems()
        for mark in sorted({r.mark for r in labels() if r.kernel == stem.split(".")[0]})
    ]


@pytest.mark.parametrize(("stem", "mark"), _cases())
def test_each_label_holds_on_the_recording(stem: str, mark: str) -> None:
    """The census says what the label says; an `unknown:` label allows it to say it cannot
    tell, never another number."""
    kernel, arch = stem.split(".")
    label = label_for(kernel, mark, arch)
    entry = entry_at(statements(recorded(stem)), kernel, mark)
    said = claim(entry) if entry else None
    allowed = ("right", "unknown") if label.claim.startswith("unknown: ") else ("right",)
    assert verdict(label, entry) in allowed, (said, label.claim, label.why)


def test_every_loop_of_the_corpus_is_labelled_and_recorded() -> None:
    """Each marked loop statement has a label for each arch, each recording's statements are
    all labelled loops, and each kernel is recorded for both archs."""
    for kernel in {r.kernel for r in labels()}:
        for arch in ARCHS:
            assert f"{kernel}.{arch}" in stems(), f"{kernel}.{arch} is not recorded"
    for path in SOURCES.values():
        labelled = {r.mark for r in labels() if source(r.kernel) == path}
        assert labelled == set(marks(path)), path.name
    for stem in stems():
        kernel = stem.split(".")[0]
        at = {marks(source(kernel))[r.mark] for r in labels() if r.kernel == kernel}
        assert {e.line for e in statements(recorded(stem))} == at, stem


def test_the_pipelined_loop_is_the_main_one_not_the_remainder_ptxas_unrolled() -> None:
    """num_stages=3 with loop_unroll_factor=2: ptxas leaves the pipelined loop Triton unrolled
    x2 as it is and unrolls Triton's remainder loop x4. The larger factor was taken for the
    statement's ("unrolled by 4 (x4 by ptxas)"); only the SASS loop of the PTX loop Triton
    unrolled can be the main one."""
    for arch in ARCHS:
        e = entry_at(
            statements(recorded(f"ts_staged_unroll.{arch}")), "ts_staged_unroll", "ts_su_loop"
        )
        assert e is not None and (e.factor, e.ptx_factor, len(e.remainder_loops)) == (2, 2, 2)
        (k,) = recorded(f"ts_staged_unroll.{arch}").kernels
        first = min(i.address for i in k.instructions if i.opcode == "LDGSTS" and i.address > 0x200)
        assert e.first_address is not None and e.first_address < first  # the pipelined loop


def test_an_outer_loop_is_not_read_by_its_inner_loops_straight_line_trips() -> None:
    """The inner runtime loop's peeled first trip and 2 leftover trips lie outside its SASS
    loops but in the outer one: counted for the outer loop they read as x3."""
    for arch in ARCHS:
        found = statements(recorded(f"ts_nest_runtime.{arch}"))
        outer = entry_at(found, "ts_nest_runtime", "ts_nr_outer")
        assert outer is not None and (outer.factor, outer.remainder) == (1, False)


def test_no_sass_loop_at_tritons_factor_leaves_the_factor_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where no SASS loop comes from a PTX loop measured at Triton's factor (here: a TTIR
    said to unroll x3), which loop is the main one is not known: no number is claimed."""
    import sassview
    from sassview.analyses.loops import python

    monkeypatch.setattr(python._TileCensus, "_triton_unrolled", lambda self, key: 3)
    p = recorded("ts_staged_unroll.sm_90a")
    fresh = sassview.from_artifacts(p.artifacts)
    e = entry_at(statements(fresh), "ts_staged_unroll", "ts_su_loop")
    assert e is not None and e.factor is None
    assert claim(e).startswith(f"a loop remains, unroll {FACTOR_UNKNOWN}")


def test_without_ttir_a_remainder_unrolled_more_leaves_the_factor_unknown() -> None:
    """The rule needs Triton's TTIR (its unrolled loop and remainder); a recording of the PTX
    and cubin alone has two SASS loops, the pipelined x2 and its remainder x4 by ptxas, and
    nothing to say which is main: no number, not the remainder's x4 (it read x4 before)."""
    from dataclasses import replace

    import sassview

    for arch in ARCHS:
        p = recorded(f"ts_staged_unroll.{arch}")
        bare = sassview.from_artifacts(replace(p.artifacts, stages={}))
        e = entry_at(statements(bare), "ts_staged_unroll", "ts_su_loop")
        assert e is not None and e.kind == "rolled" and e.factor is None, arch
        assert claim(e).startswith(f"a loop remains, unroll {FACTOR_UNKNOWN}")


# --- live compiles ---------------------------------------------------------------------------


def _module(path: Path) -> ModuleType:
    name = f"loops_shapes_live_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _live(kernel: str, arch: str) -> Program:
    from sassview.build import build_program

    module = _module(source(kernel))
    if kernel.startswith("ts_"):
        from sassview.frontends.triton import compile_triton

        signature, constexprs, stages = module.BUILDS[kernel]
        art = compile_triton(
            getattr(module, kernel),
            signature=signature,
            constexprs=constexprs,
            arch=arch,
            num_stages=stages,
        )
    else:
        from sassview.frontends.cute import compile_cute

        args, _ = module.builds()[kernel]
        art = compile_cute(getattr(module, kernel), *args, arch=arch)
    return build_program(art)


def _live_cases() -> list[Any]:
    kernels = sorted({r.kernel for r in labels()})
    return [pytest.param(k, a, id=f"{k}-{a}") for k in kernels for a in ARCHS]


@pytest.mark.compile
@pytest.mark.parametrize(("kernel", "arch"), _live_cases())
def test_each_label_holds_on_a_live_compile(kernel: str, arch: str) -> None:
    """The kernel compiled now: a toolchain that changes its code shows here."""
    pytest.importorskip("triton" if kernel.startswith("ts_") else "cutlass")
    program = _live(kernel, arch)
    (insp,) = inspect_program(program)
    found = [e for e in insp.facts("unroll")["entries"] if e.statement]
    wrong = []
    for mark in sorted({r.mark for r in labels() if r.kernel == kernel}):
        label = label_for(kernel, mark, arch)
        entry = entry_at(found, kernel, mark)
        allowed = ("right", "unknown") if label.claim.startswith("unknown: ") else ("right",)
        if verdict(label, entry) not in allowed:
            wrong.append((mark, claim(entry) if entry else None, label.claim))
    assert not wrong
