"""The recorded CuTe DSL compiles of tests/data/cute, rebuilt without the DSL."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from sassview.build import build_program
from sassview.inspection import Inspection, inspect_program
from sassview.ir import Artifacts

ROOT = Path(__file__).parents[1]
RECORDED = Path(__file__).parent / "data" / "cute"


def recorded(case: str, run: str) -> Inspection:
    """The model of a recorded compile, without the DSL (nvdisasm runs)."""
    d = RECORDED / case / run
    meta = json.loads((d / "meta.json").read_text())
    source = ROOT / meta["source"]
    art = Artifacts(
        kind="cute",
        arch=meta["arch"],
        source_path=str(source),
        source_text=source.read_text(),
        ptx=(d / "kernel.ptx").read_text(),
        cubin=(d / "kernel.cubin").read_bytes(),
        compile_log=(d / "compile.log").read_text(),
        stages=MappingProxyType(
            {"names": (d / "names.json").read_text(), "launch": (d / "launch.json").read_text()}
        ),
    )
    program = build_program(art)
    # The line table names the file where it was recorded (another checkout's absolute path):
    # the source is that file wherever the test runs, so say the path the line table says.
    named = {i.source.file for k in program.kernels for i in k.instructions if i.source}
    here = next((f for f in sorted(named) if f.endswith("/" + meta["source"])), None)
    if here is not None and here != str(source):
        program = build_program(replace(art, source_path=here))
    (insp,) = inspect_program(program)
    return insp
