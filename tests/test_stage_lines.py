"""Stage rows by source line (sassview.parse.stage_lines), on the Triton matmul's recorded TTIR,
TTGIR and LLVM IR (tests/data/stages/record.py; the kernel is tests/data/ptx/src/
triton_kernels.py: `for k in range(0, tl.cdiv(K, BLOCK_K))` on line 43, `tl.dot` on 46)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sassview.parse.stage_lines import rows_by_line

DATA = Path(__file__).parent / "data" / "stages"
KERNEL = "/src/triton_kernels.py"
LIBRARY = "/triton/language/standard.py"


def rows(stage: str, line: int, file: str = KERNEL) -> list[str]:
    text = (DATA / f"matmul.{stage}").read_text()
    lines = text.splitlines()
    return [lines[r].strip() for r in rows_by_line(text, file).get(line, [])]


@pytest.mark.parametrize(
    ("stage", "dot"), [("ttir", "tt.dot "), ("ttgir", "ttng.warp_group_dot "), ("llir", "wgmma")]
)
def test_the_dot_line_finds_the_dot(stage: str, dot: str) -> None:
    text = (DATA / f"matmul.{stage}").read_text()
    every = [line.strip() for line in text.splitlines() if dot in line and "declare" not in line]
    found = rows(stage, 46)
    assert every and all(op in found for op in every)  # every dot op of the stage, ...
    assert not any(dot in op for line in (43, 45, 47) for op in rows(stage, line))  # ... only


@pytest.mark.parametrize("stage", ["ttir", "ttgir", "llir"])
def test_code_inlined_from_triton_counts_for_the_calling_line(stage: str) -> None:
    # tl.cdiv's add and divide come from Triton's standard.py, called on line 43.
    on_43 = rows(stage, 43)
    assert any("31" in op for op in on_43) and any("div" in op for op in on_43)
    library = {op for line in range(1, 400) for op in rows(stage, line, LIBRARY)}
    assert any("div" in op for op in library & set(on_43))


def test_a_text_without_locations_has_no_rows() -> None:
    assert rows_by_line("module {\n  tt.return\n}\n", KERNEL) == {}
    assert rows_by_line("define void @f() {\n  ret void\n}\n", KERNEL) == {}
