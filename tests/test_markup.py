"""User-derived text that looks like Rich markup (`[num_warps=4]`, `[red]k.py`) reaches the
screen as written, in every view that prints through Rich: the sweep table and the TUI."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from conftest import CORPUS

import sassview
from sassview.tui.app import SassviewApp
from sassview.tui.loader import Loaded, Target
from sassview.tui.screens.stage import StageScreen

SOURCES = CORPUS / "sources"


@pytest.mark.compile
def test_sweep_table_keeps_lowercase_variant_labels() -> None:
    # `vecadd.cu [tile=1]`: Rich took `[tile=1]` for a style tag and printed `vecadd.cu`.
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "sweep", str(SOURCES / "vecadd.cu"),
         "-p", "tile=1,2", "--arch", "sm_90a", "-k", "add_f4"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "vecadd.cu [tile=1]" in done.stdout and "vecadd.cu [tile=2]" in done.stdout


def test_stage_border_names_a_file_whose_name_looks_like_markup() -> None:
    cubin = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"
    app = SassviewApp(Target(cubin), loaded=Loaded(tuple(sassview.inspect(cubin)), ()), watch=False)
    file = "/src/[red]k.py"
    text = f'%0 = tt.get_program_id x : i32 loc("{file}":3:5)\ntt.return loc("{file}":4:1)\n'

    async def go() -> None:
        async with app.run_test(size=(120, 32)) as pilot:
            await app.push_screen(StageScreen("ttir", text, file, 3))
            await pilot.pause()
            listing = app.screen.query_one("#stage")
            subtitle = listing._border_subtitle  # the Content drawn in the border
            assert subtitle is not None and subtitle.plain == "[red]k.py:3: 1 line"

    asyncio.run(go())


DIFF = """spill [-maxrregcount=32] sm_80  ->  spill [-maxrregcount=128] sm_80
spill_bytes        48 -> 0 (-48)
--- a
+++ b
@@ -1,3 +1,3 @@
   LDG.E R2, desc[UR4][R2.64] ;
-  STL [R1], R2 ;
+  MOV R5, R2 ;
"""


def test_diff_screen_colours_removed_added_context_and_headers_apart() -> None:
    from sassview.tui.paint import TextPainter
    from sassview.tui.screens.stage import stage_lexer

    cubin = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"
    app = SassviewApp(Target(cubin), loaded=Loaded(tuple(sassview.inspect(cubin)), ()), watch=False)

    async def go() -> None:
        async with app.run_test(size=(120, 32)) as pilot:
            await app.push_screen(StageScreen("diff", DIFF))
            await pilot.pause()
            listing = app.screen.query_one("#stage")
            painter = listing.painter
            assert isinstance(painter, TextPainter)
            lines = DIFF.splitlines()

            def colour(prefix: str) -> object:
                row = next(i for i, s in enumerate(lines) if s.startswith(prefix))
                segs = painter.segments(row, listing.palette())
                assert "".join(s.text for s in segs[1:]) == lines[row]  # the text, whole
                return segs[-1].style.color if segs[-1].style else None

            removed, added = colour("-  STL"), colour("+  MOV")
            hunk, context = colour("@@"), colour("   LDG")
            assert len({removed, added, hunk, context}) == 4, (removed, added, hunk, context)
            assert stage_lexer("diff") is not None

    asyncio.run(go())
