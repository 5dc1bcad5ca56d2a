"""The loop census' claims on a recorded whole program, keyed as the hand-labelled tables of
test_real_loops and test_real_loop_constants key them."""

from __future__ import annotations

from pathlib import Path

from analyses_data import program

import sassview
from sassview.analyses.base import AnalysisContext
from sassview.analyses.loops import census
from sassview.analyses.loops.entry import claim
from sassview.graph.cfg import build_cfg
from sassview.graph.loops import find_loops
from sassview.ir import Artifacts, Program

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


def python_recording(stem: Path, source: Path) -> Program:
    """A recorded Triton or CuTe DSL compile (record_python*.py: `<stem>.{ptx,cubin}`, and,
    where kept, the TTIR and the compile's options beside them), its source given beside the
    listing: the kind is the source's (a `cutlass` import is the CuTe DSL's)."""
    text = source.read_text()
    ttir = stem.with_name(stem.name + ".ttir")
    options = stem.with_name(stem.name + ".options")
    return sassview.from_artifacts(
        Artifacts(
            kind="cute" if "import cutlass" in text else "triton",
            arch=stem.name.rsplit(".", 1)[1],
            source_path=str(source),
            source_text=text,
            ptx=stem.with_name(stem.name + ".ptx").read_text(),
            cubin=stem.with_name(stem.name + ".cubin").read_bytes(),
            options=tuple(options.read_text().splitlines()) if options.is_file() else (),
            stages={"ttir": ttir.read_text()} if ttir.is_file() else {},
        )
    )
