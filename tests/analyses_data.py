"""The recorded analysis cases (tests/data/analyses) and the four ways the analysis tests read
each one: `live` (compiled now with NVRTC, marked `compile`), `recorded` (the kept cubin,
disassembled again), `json` / `text` (the kept nvdisasm listings read by the parsers alone)."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from sassview.analyses.base import AnalysisContext, Findings
from sassview.ir import Kernel, Program

_spec = importlib.util.spec_from_file_location(
    "analyses_record", Path(__file__).parent / "data" / "analyses" / "record.py"
)
assert _spec is not None and _spec.loader is not None
rec = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rec)

MODES = [pytest.param("live", marks=pytest.mark.compile), "recorded", "json", "text"]


@functools.cache
def program(mode: str, case: str, arch: str) -> Program:
    if mode == "live":
        import sassview

        return sassview.compile(
            path=rec.source_path(case), arch=arch, options=rec.case_options(case)
        )
    if mode == "recorded":
        return rec.recorded_program(case, arch)
    return rec.offline_program(case, arch, listing=mode)


def analyse(
    module: Any, mode: str, case: str, arch: str, kernel: str, loops: tuple[Any, ...] = ()
) -> tuple[Findings, Kernel]:
    """One analysis module run on one kernel, without the graph (cfg and liveness None)."""
    prog = program(mode, case, arch)
    k = prog.kernel(kernel)
    return module.run(AnalysisContext(prog, k, None, loops, None)), k  # type: ignore[arg-type]
