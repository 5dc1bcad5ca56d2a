"""Findings and hints that were wrong on real kernels, each a case of our own
(data/frontends/triton_hints.py): a hint never offers a knob the kernel already has, or a
value the declaration says the launch does not pass."""

from __future__ import annotations

from pathlib import Path

import pytest

import sassview
from sassview.steer.hints import propose

pytestmark = pytest.mark.compile
DATA = Path(__file__).parent / "data" / "frontends"


@pytest.fixture(scope="module")
def inspections() -> dict[str, object]:
    pytest.importorskip("triton")
    kf, programs = sassview.load_kernel_file(DATA / "triton_hints.py", parallel=False)
    out: dict[str, object] = {"kernel_file": kf}
    for program in programs:
        (insp,) = sassview.analyze(program)
        out[insp.kernel.display_name] = insp
    return out


def test_an_exposed_load_at_num_stages_3_is_not_told_to_raise_num_stages(
    inspections: dict[str, object],
) -> None:
    insp = inspections["gather_rows"]
    (note,) = [a for a in insp.annotations if a.kind == "exposed-load"]  # type: ignore[attr-defined]
    assert "compiled with num_stages=3" in note.hint and "tl.range(" in note.hint
    assert "in Triton num_stages" not in note.hint and "cp.async or TMA" not in note.hint


def test_a_stride_the_declaration_passes_as_8_is_never_offered_as_1(
    inspections: dict[str, object],
) -> None:
    insp = inspections["pitched_copy"]
    (found,) = [a for a in insp.annotations if a.kind == "runtime-stride"]  # type: ignore[attr-defined]
    assert found.severity.name == "INFO" and found.data["declared_value"] == 8
    assert "passes pitch=8" in found.hint and "pitch=1 in args" not in found.hint
    kf = inspections["kernel_file"]
    decl = next(d for d in kf.declarations if d.name == "pitched_copy")  # type: ignore[attr-defined]
    knobs = [t.knob for t in propose(decl, "sm_90a", {}, insp.annotations)]  # type: ignore[attr-defined]
    assert "pitch=1" not in knobs


def test_a_triton_spill_is_told_in_tritons_words(inspections: dict[str, object]) -> None:
    insp = inspections["capped_dot"]
    spills = [a for a in insp.annotations if a.kind == "spill"]  # type: ignore[attr-defined]
    assert spills and all("num_stages" in a.hint and "BLOCK_" in a.hint for a in spills)
    assert not any("__launch_bounds__" in a.hint for a in spills)


def test_the_spills_row_counts_marked_spills_where_no_report_gives_bytes() -> None:
    """One truth per row: a kernel without a ptxas report (cuTile, a bare cubin) whose spills
    nvdisasm marks is not 'unknown' above a warning that counts them."""
    from sassview.report.words import spills_row

    assert spills_row(None, None, 12) == "12 spill instructions (bytes unknown: no ptxas report)"
    assert spills_row(None, None, 0) == "unknown (no ptxas report)"
    assert spills_row(0, 0, 0) == "none" and spills_row(8, 8, 4) == "8 B stored, 8 B loaded"
