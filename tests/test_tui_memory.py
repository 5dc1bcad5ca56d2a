"""The TUI's memory-use column: sectors per warp (global) or bank ways (shared) beside each
memory instruction, from the same facts `check` counts."""

from __future__ import annotations

from pathlib import Path

from sassview.build import build_program
from sassview.graph.lanes import BlockShape
from sassview.inspection import inspect_program
from sassview.ir import Artifacts

TESTS = Path(__file__).parent


def test_the_sass_pane_shows_sectors_and_ways_beside_memory_instructions() -> None:
    from rich.style import Style

    from sassview.tui import state
    from sassview.tui.paint import Palette, SassPainter

    directory = TESTS / "data" / "analyses" / "coalescing" / "sm_80"
    art = Artifacts(kind="cubin", arch="sm_80", cubin=(directory / "kernel.cubin").read_bytes())
    block = BlockShape(32, 32, 1, "--block")
    programs = inspect_program(build_program(art), "tile_rows_cols", block=block)
    (insp,) = programs
    view = state.build(insp)
    painter = SassPainter(view, schedule=True)
    assert "use" in painter.header().split()
    assert "use" not in SassPainter(view, schedule=False).header().split()
    assert "use" in SassPainter(view, schedule=False, memory=True).header().split()
    palette = Palette(dark=True, base=Style(), gutter=Style(), dim=Style())

    def row_text(address: int) -> str:
        return "".join(s.text for s in painter.segments(view.row_of[address], palette))

    cells = {}
    for fact in insp.facts("bank_conflicts")["accesses"]:
        cells[fact["ways"]] = row_text(fact["address"])
    assert " 32w " in cells[32] and " 1w " in cells[1]  # the column read, the row read
    (load, _store) = insp.facts("coalescing")["accesses"]
    assert " 4/4 " in row_text(load["address"])
    other = next(i.address for i in insp.kernel.instructions if i.opcode == "S2R")
    assert "/" not in row_text(other).split("S2R")[0]  # no memory use: an empty cell
