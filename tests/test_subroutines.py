"""Subroutines laid out after a kernel in its section: ptxas' own (the float division slow
path, `x / s`) have no line rows, and nvdisasm's line table keeps the row before them; a
user's `__noinline__` function has rows of its own. The model gives the first no source and
no PTX line, and keeps the second's: tests/data/analyses/sources/subroutines.cu, and the
recorded softmax (real_app.cu) whose division slow path read as its reduce's line 28.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from analyses_data import program

from sassview.graph.cfg import EdgeKind, build_cfg
from sassview.ir import Kernel

MODES = ["recorded", "json", "text"]


def _lines(k: Kernel, start: int, end: int | None = None) -> set[tuple[str, int, int | None]]:
    """(file name, line, PTX line) of the instructions from address `start` up to `end`."""
    return {
        (Path(i.source.file).name if i.source else "", i.source.line if i.source else 0, i.ptx_line)
        for i in k.instructions
        if i.address >= start and (end is None or i.address < end)
    }


@pytest.mark.parametrize("mode", MODES)
def test_ptxas_slow_path_has_no_line_and_the_users_function_keeps_its_own(mode: str) -> None:
    k = program(mode, "subroutines", "sm_90a").kernel("_Z15divide_and_callPKfPff")
    # /*01a0*/..RET /*01d0*/: scaled(), lines 7 (PTX 26, 28); /*01e0*/ on: the slow path.
    assert _lines(k, 0x1A0, 0x1E0) == {("subroutines.cu", 7, 26), ("subroutines.cu", 7, 28)}
    assert _lines(k, 0x1E0) == {("", 0, None)}
    # The kernel's own code keeps its rows up to its EXIT (line 15, PTX 75).
    exit_ = next(i for i in k.instructions if i.opcode == "EXIT")
    assert exit_.source is not None and (exit_.source.line, exit_.ptx_line) == (15, 75)
    assert k.correspondence.sass_for_line(exit_.source.file, 15) == (exit_.address,)


@pytest.mark.parametrize("mode", MODES)
def test_softmax_division_slow_path_is_no_code_of_the_reduce_line(mode: str) -> None:
    k = program(mode, "real_app", "sm_90a").kernel("_Z12softmax_rowsILi256EEvPKfPfi")
    # /*2d00*/ to the end (its padding included) is the slow path: before, all of it read as
    # line 28 (cg::reduce's call) and PTX line 793, the rows of the fallback before it.
    assert _lines(k, 0x2D00) == {("", 0, None)}
    assert not any(a >= 0x2D00 for a in k.correspondence.sass_source)
    assert not any(a >= 0x2D00 for a in k.correspondence.sass_ptx)
    app = next(f.file for i in k.instructions if i.source for f in i.source.frames())
    line_28 = k.correspondence.sass_for_line(app, 28)  # the reduce's own code keeps its line
    assert line_28 and max(line_28) < 0x2D00


@pytest.mark.parametrize("mode", MODES)
def test_sm80_shuffle_helpers_have_no_line(mode: str) -> None:
    # sm_80's diverged-warp fallbacks CALL __cuda_sm70_shflsync_* (and reduxsync), laid out
    # after each kernel, each the last function of its section: none has a line row.
    helpers = 0
    for k in program(mode, "warp_fallbacks", "sm_80").kernels:
        cfg = build_cfg(k.instructions)
        starts = [cfg.blocks[e.dst].start for e in cfg.edges if e.kind is EdgeKind.CALL]
        if starts:
            helpers += 1
            assert _lines(k, min(starts)) == {("", 0, None)}, k.name
            assert _lines(k, 0, min(starts)) & {("", 0, None)} == set(), k.name
    assert helpers == 7
