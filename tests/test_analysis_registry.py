"""The analysis registry's contract: an analysis registered from outside sassview (here, a toy
one: this module holds its `run` and its facts record, and one `register` line adds it) runs
beside the others, gives its keys in `check --json` and the graph export, its row in `check`
and its pair in the TUI header. Nothing in sassview knows its name."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner
from conftest import CORPUS

import sassview
from sassview import analyses
from sassview.analyses import Analysis, AnalysisContext, Findings
from sassview.analyses.facts import Facts, Pair, Results, Row
from sassview.views.cli import cli

TILED = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"


@dataclass(frozen=True, slots=True, eq=False)
class ToyFacts(Facts):
    """How many IMAD instructions the kernel has, and at which addresses."""

    ANALYSIS: ClassVar[str] = "toy_imad"
    count: int
    addresses: list[int]

    def summary(self, results: Results) -> dict[str, Any]:
        return {"toy_imad_count": self.count}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        return [Row("toy imad", f"{analysis['toy_imad_count']} IMAD")]

    def header(self, analysis: Mapping[str, Any]) -> list[Pair]:
        return [Pair("imad", str(self.count), "strong")]


def run(ctx: AnalysisContext) -> Findings:
    found = [i.address for i in ctx.kernel.instructions if i.opcode == "IMAD"]
    return Findings(facts=ToyFacts(count=len(found), addresses=found))


@pytest.fixture
def toy_analysis() -> Iterator[None]:
    unregister = analyses.register("toy_imad", Analysis(__name__, f"{__name__}:ToyFacts"))
    try:
        yield
    finally:
        unregister()


def _imads(path: Path) -> list[int]:
    """The IMAD addresses of the kernel at `path`, read from the model, not by the toy."""
    (program,) = sassview.load(path)
    (kernel,) = program.kernels
    return [i.address for i in kernel.instructions if i.opcode == "IMAD"]


def test_a_registered_analysis_runs_and_is_read_as_its_record(toy_analysis: None) -> None:
    want = _imads(TILED)
    assert want, "the tiled kernel has IMADs: the toy would count nothing"
    (insp,) = sassview.inspect(TILED)
    assert list(insp.findings)[-1] == "toy_imad"
    assert insp.typed_facts(ToyFacts).addresses == want


def test_a_registered_analysis_gives_its_keys_in_the_json(toy_analysis: None) -> None:
    done = CliRunner().invoke(cli, ["check", "--json", str(TILED)])
    assert done.exit_code == 0, done.output
    (kernel,) = json.loads(done.output)["programs"][0]["kernels"]
    analysis = kernel["analysis"]
    assert analysis["toy_imad_count"] == len(_imads(TILED))
    # the keys sassview documents first, in their order; the new one after them
    assert list(analysis)[-2:] == ["register_peak", "toy_imad_count"]


def test_a_registered_analysis_gives_its_row_in_check(toy_analysis: None) -> None:
    done = CliRunner().invoke(cli, ["check", str(TILED)])
    assert done.exit_code == 0, done.output
    rows = done.output.splitlines()
    want = f"  {'toy imad':<14} {len(_imads(TILED))} IMAD"
    assert want in rows
    # a row of an analysis the view's layout does not name: after the listed ones
    assert rows.index(want) > max(i for i, r in enumerate(rows) if r.startswith("  schedule"))


def test_a_registered_analysis_gives_its_pair_in_the_tui_header(toy_analysis: None) -> None:
    from sassview.tui.state import build
    from sassview.tui.widgets.header import header_text

    (insp,) = sassview.inspect(TILED)
    header = str(header_text(build(insp, read_file=False)))
    assert f"imad {len(_imads(TILED))}" in header.splitlines()[-1]


def test_a_registered_analysis_reaches_the_graph_export(toy_analysis: None) -> None:
    from sassview import export

    (insp,) = sassview.inspect(TILED)
    doc = json.loads(export.render(insp, "json", read_files=False))
    assert doc["kernel"]["analysis"]["toy_imad_count"] == len(_imads(TILED))
    assert doc["facts"]["toy_imad"]["count"] == len(_imads(TILED))


def test_without_it_nothing_of_it_is_left() -> None:
    """Unregistered, the cached Inspections (made without it) are read again, and say none of
    it; a name registered twice is refused."""
    unregister = analyses.register("toy_imad", Analysis(__name__, f"{__name__}:ToyFacts"))
    try:
        with pytest.raises(ValueError, match="registered already"):
            analyses.register("toy_imad", Analysis(__name__, f"{__name__}:ToyFacts"))
    finally:
        unregister()
    (insp,) = sassview.inspect(TILED)
    assert "toy_imad" not in insp.findings
    done = CliRunner().invoke(cli, ["check", str(TILED)])
    assert "toy imad" not in done.output


def test_every_registered_analysis_names_its_own_record() -> None:
    """Each registry line's record is a Facts whose ANALYSIS is the line's name."""
    for name in analyses.REGISTRY:
        assert name == analyses.facts_record(name).ANALYSIS
