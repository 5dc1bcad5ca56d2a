"""The frontend registry's contract: a frontend registered from outside sassview (here, a toy
one from this test module) is declared by `sv.<name>` in a kernel.py, its undeclared kernels
are found, its jobs compile through its own hook, its words reach the analyses' hints and
`sassview try`'s knobs, and the doctor lists it. Nothing in sassview knows its name."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from click.testing import CliRunner

import sassview
from sassview.declare import Declaration, register_declaration
from sassview.frontends import registry
from sassview.frontends.registry import Detection, FrontendSpec, Knob, Vocabulary

TOY_WORDS = Vocabulary(narrow="toy: widen it with toy.vector", merge="toy: merge with toy.fuse")
TOY_SOURCE = r"""
extern "C" __global__ void offset1(const float* __restrict__ a, float* __restrict__ out) {
  const float* p = a + threadIdx.x * 4 + 1;
  out[threadIdx.x] = p[0] + p[1] + p[2] + p[3];
}
"""


def toy(kernel: Any, *, arch: str = "sm_90a") -> Declaration:
    """The toy frontend's declaration: an object holding CUDA C++ text as `source`."""
    return register_declaration(
        Declaration("toy", "offset1", kernel, (arch,), MappingProxyType({"options": ()}))
    )


def _compile(kf: Any, decl: Declaration, arch: str, variant: dict[str, Any]) -> Any:
    from sassview.frontends.cuda import compile_cuda

    return dataclasses.replace(compile_cuda(decl.target.source, arch=arch), kind="toy")


def _spill_knob(decl: Declaration, variant: Mapping[str, Any]) -> Knob:
    return Knob("toy_regs=more", variant={"toy_regs": "more"})


TOY = FrontendSpec(
    kind="toy",
    title="Toy",
    declarations=("toy",),
    declare_module=__name__,
    compile=_compile,
    package="toy-lang",
    extra="toy",
    modules=("toy_lang",),
    version=lambda: "0.0.7",
    vocabulary=TOY_WORDS,
    detection=Detection(
        is_kernel=lambda obj: getattr(obj, "toy_kernel", False) is True,
        declaration=lambda name, obj: f"sv.toy({name})",
    ),
    spill_knob=_spill_knob,
)


@pytest.fixture
def toy_frontend() -> Iterator[FrontendSpec]:
    unregister = registry.register(TOY)
    try:
        yield TOY
    finally:
        unregister()


def _kernel_file(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.py"
    path.write_text(
        textwrap.dedent(
            f"""
            from types import SimpleNamespace

            import sassview as sv

            declared = SimpleNamespace(toy_kernel=True, source={TOY_SOURCE!r})
            forgotten = SimpleNamespace(toy_kernel=True, source={TOY_SOURCE!r})
            sv.toy(declared)
            """
        )
    )
    return path


def test_a_registered_frontend_is_declared_and_its_undeclared_kernels_found(
    toy_frontend: FrontendSpec, tmp_path: Path
) -> None:
    from sassview.frontends.discover import import_kernel_file

    assert sassview.toy is toy  # type: ignore[attr-defined]
    kf = import_kernel_file(_kernel_file(tmp_path))
    assert [(d.kind, d.target.toy_kernel) for d in kf.declarations] == [("toy", True)]
    assert [(u.name, u.kind, u.hint) for u in kf.undeclared] == [
        ("forgotten", "toy", "sv.toy(forgotten)")
    ]


@pytest.mark.compile
def test_a_registered_frontend_compiles_and_its_words_reach_the_hints(
    toy_frontend: FrontendSpec, tmp_path: Path
) -> None:
    from sassview.analyses.memory_width import hints_for

    assert hints_for("toy") == (TOY_WORDS.narrow, TOY_WORDS.merge)
    (program,) = sassview.load(_kernel_file(tmp_path), arch="sm_90a")
    assert program.artifacts.kind == "toy"
    (inspection,) = sassview.analyze(program, "offset1")
    hints = {a.kind: a.hint for a in inspection.annotations}
    assert hints["narrow-access"] == TOY_WORDS.narrow
    assert hints["merge-candidate"] == TOY_WORDS.merge


@pytest.mark.compile
def test_a_registered_frontend_is_checked_in_text_and_json(
    toy_frontend: FrontendSpec, tmp_path: Path
) -> None:
    """`check` and `check --json` on a kernel.py of the toy frontend: its kernel, its words in
    the hints, its forgotten kernel named, and its kind in the JSON (no view names it)."""
    from sassview.views.cli import cli

    kernel_py = _kernel_file(tmp_path)
    text = CliRunner().invoke(cli, ["check", str(kernel_py)])
    assert text.exit_code == 0, text.output
    assert "offset1" in text.stdout.splitlines()[1]
    assert f"hint: {TOY_WORDS.merge}" in text.stdout
    assert "toy kernel forgotten is not declared" in text.stderr
    done = CliRunner().invoke(cli, ["check", "--json", str(kernel_py)])
    assert done.exit_code == 0, done.output
    (program,) = json.loads(done.stdout)["programs"]
    assert (program["kind"], program["label"]) == ("toy", "offset1")
    assert [k["name"] for k in program["kernels"]] == ["offset1"]


def test_a_registered_frontends_knobs_are_tried(toy_frontend: FrontendSpec) -> None:
    from sassview.analyses import Annotation, Severity
    from sassview.steer.hints import propose

    decl = Declaration("toy", "offset1", TOY_SOURCE, ("sm_90a",))
    spill = Annotation(kind="spill", severity=Severity.WARNING, message="spills")
    (trial,) = propose(decl, "sm_90a", {}, (spill,))
    assert (trial.knob, dict(trial.variant)) == ("toy_regs=more", {"toy_regs": "more"})


def test_the_doctor_lists_a_registered_frontend(toy_frontend: FrontendSpec) -> None:
    from sassview.views.cli import cli

    done = CliRunner().invoke(cli, ["doctor"])
    (line,) = [x for x in done.output.splitlines() if " toy " in x]
    assert line.split()[:3] == ["ok", "toy", "0.0.7"]
    assert line.endswith("Toy (sv.toy)")  # installed: no install hint beside it
    for kind in ("cuda", "triton", "gluon", "cute", "cutile"):  # the built-in ones, a line each
        assert any(x.split()[1:2] == [kind] for x in done.output.splitlines()), kind


def test_the_doctor_says_what_brings_an_absent_frontend() -> None:
    from sassview.views.cli import cli

    unregister = registry.register(dataclasses.replace(TOY, version=lambda: None))
    try:
        done = CliRunner().invoke(cli, ["doctor"])
    finally:
        unregister()
    (line,) = [x for x in done.output.splitlines() if " toy " in x]
    assert line.split()[:3] == ["absent", "toy", "-"]
    assert line.endswith("Toy (sv.toy): pip install 'sassview[toy]'")
    assert "toy" not in registry.frontends()  # unregistered again


def test_a_missing_package_is_named_by_the_frontend_that_imports_it() -> None:
    from sassview.testing.loader import missing_frontend

    assert missing_frontend(ModuleNotFoundError("x", name="cuda.tile._cext")) == "cuda.tile"
    assert missing_frontend(ModuleNotFoundError("x", name="cuda.bindings")) is None
    found = registry.package_for("cuda.tile")
    assert found is not None and found[0].package == "cuda-tile nvidia-cuda-tileiras"
    assert registry.package_for("cutlass.cute") is not None
