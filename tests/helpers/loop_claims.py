"""The loop census' claims on a recorded whole program, keyed as the hand-labelled tables of
test_real_loops and test_real_loop_constants key them."""

from __future__ import annotations

from pathlib import Path

from analyses_data import program

from sassview.analyses.base import AnalysisContext
from sassview.analyses.loops import census
from sassview.analyses.loops.entry import claim
from sassview.graph.cfg import build_cfg
from sassview.graph.loops import find_loops

Where = tuple[str, str, int, int | None]  # kernel, file name, line, main-file call site
FULL = "fully unrolled ({} copies, no loop left)"


def claims(mode: str, case: str, arch: str) -> dict[Where, str]:
    """Every entry of every kernel of a recorded case, keyed as the tables are."""
    prog = program(mode, case, arch)
    names = {k.name: k.display_name for k in program("recorded", case, arch).kernels}
    out: dict[Where, str] = {}
    for k in prog.kernels:
        kernel = names[k.name].split("(")[0]
        cfg = build_cfg(k.instructions)
        ctx = AnalysisContext(prog, k, cfg, find_loops(cfg, k.instructions), None)  # type: ignore[arg-type]
        for e in census.run(ctx).facts.entries:
            main = e.inlined_at[-1].line if e.inlined_at else None
            where = (kernel, Path(e.file or "?").name, e.line or 0, main)
            assert where not in out, f"two entries for {where}"
            out[where] = claim(e) if e.statement else f"no statement: {e.summary()}"
    return out
