"""The TUI's behaviour, driven headless with App.run_test() and Pilot on compiled kernels.

Kernels come from tests/corpus/sources (compiled live with NVRTC: the `compile` marker) or from
recorded cubins (no compiler). Each test says in its name what a user would see.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS
from helpers.goldens import Goldens
from helpers.tui import (
    SOURCES,
    opened,
    preloaded,
    recorded,
    recorded_app,
    run,
    screenshot,
    visible,
    wait_for,
)

import sassview
from sassview.tui import loader, state, sync
from sassview.tui.app import SassviewApp
from sassview.tui.loader import Loaded, Target
from sassview.tui.messages import CompileFailed
from sassview.tui.opcode_help import NVIDIA_SASS_DOCS, describe
from sassview.tui.screens.help import KEYS
from sassview.tui.widgets.findings import FindingsPanel

SNAPSHOTS = Path(__file__).parent / "__snapshots__" / "test_tui"
TILED_CUBIN = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"
SPILL_CUBIN = CORPUS / "spill" / "sm_80" / "kernel.cubin"
compile_mark = pytest.mark.compile

INLINED = """\
__device__ __forceinline__ float twice(float x) {
  return x * 2.0f + 1.0f;
}
__global__ void caller(const float* in, float* out) {
  int i = threadIdx.x;
  out[i] = twice(in[i]);
}
"""


# -- headless parts ---------------------------------------------------------------------------


def test_view_model_indexes_every_instruction_once() -> None:
    insp = sassview.inspect(TILED_CUBIN)[0]
    view = state.build(insp)
    assert len(view.sass) == len(insp.kernel.instructions)
    assert all(view.row_of[r.address] == i for i, r in enumerate(view.sass))
    loop_rows = {r for lp in view.loops for r in lp.rows}
    assert loop_rows and all(view.sass[r].depth >= 1 for r in loop_rows)
    assert {r.width for r in view.sass} >= {"G32", "S32"}
    assert any(r.flags[2] == "B" for r in view.sass)  # __syncthreads
    assert max(r.live for r in view.sass) == insp.liveness.peak


def test_spills_are_flagged_from_the_spill_findings() -> None:
    view = state.build(next(i for i in sassview.inspect(SPILL_CUBIN) if "spill" in i.kernel.name))
    spilled = [r for r in view.sass if r.flags[3] == "S"]
    assert spilled and all(r.mnemonic.startswith(("STL", "LDL")) for r in spilled)


def test_regex_search_finds_opcodes_and_operands() -> None:
    view = state.build(sassview.inspect(TILED_CUBIN)[0])
    rows = sync.search(lambda i: view.sass[i].text, len(view.sass), r"LDS.*UR5")
    assert rows and all("LDS" in view.sass[i].text for i in rows)
    assert sync.next_index(rows, rows[-1], 1) == rows[0]  # wraps
    assert sync.next_index(rows, rows[0], -1) == rows[-1]
    assert sync.parse_address("/*01f0*/") == 0x1F0 and sync.parse_address("0x10") == 16


def test_opcode_help_is_ours_and_links_to_nvidia() -> None:
    h = describe("LDG.E.128.CONSTANT")
    assert "global memory" in h.summary and h.url == NVIDIA_SASS_DOCS
    assert dict(h.modifiers)["128"].startswith("128 bits")
    assert "CONSTANT" in dict(h.modifiers)
    assert describe("LDSM.16.M88.4").modifiers[-1][0] == "M88.4"
    assert describe("UIADD3").summary.startswith("IADD3 on uniform")


def test_compile_errors_carry_their_location() -> None:
    class Failed(sassview.SassviewError):
        pass

    nvrtc = Failed("compile failed", detail='k.cu(7): error: identifier "y" is undefined')
    assert (loader.report(nvrtc).file, loader.report(nvrtc).line) == ("k.cu", 7)
    py = Failed("kernel.py: import failed", detail='  File "/x/kernel.py", line 12\n    x = 1 +')
    assert loader.report(py).location == "/x/kernel.py:12"
    assert loader.report(ValueError("boom")).message == "ValueError: boom"


def test_every_key_binding_is_in_the_help_screen() -> None:
    documented = " ".join(k for k, _ in KEYS)
    names = {"question_mark": "?", "right_square_bracket": "]", "left_square_bracket": "[",
             "slash": "/", "colon": ":", "escape": "esc", "less_than_sign": "<",
             "greater_than_sign": ">", "equals_sign": "="}  # fmt: skip
    for binding in SassviewApp.BINDINGS:
        key = binding.key if hasattr(binding, "key") else binding[0]  # type: ignore[index]
        assert names.get(key, key) in documented.split() or names.get(key, key) in documented


# -- the app on a recorded cubin (no compiler) --------------------------------------------------


def test_next_finding_moves_the_sass_cursor_and_the_panel() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app) as pilot:
            view = app.view
            assert view is not None and view.findings
            await pilot.press("right_square_bracket")
            first = view.findings[0]
            sass = app.pane("sass")
            assert sass.cursor == first.rows[0] and set(first.rows) <= sass.marks
            assert app.query_one(FindingsPanel).highlighted == 0
            await pilot.press("right_square_bracket", "left_square_bracket")
            assert app.finding_index == 0

    run(go)


def test_choosing_a_finding_in_the_panel_jumps_to_it() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app) as pilot:
            view = app.view
            assert view is not None and len(view.findings) > 1
            panel = app.query_one(FindingsPanel)
            panel.focus()
            await pilot.pause()
            while panel.highlighted != 1:
                await pilot.press("down")
            await pilot.press("enter")
            await pilot.pause()
            assert app.finding_index == 1
            assert app.pane("sass").cursor == view.findings[1].rows[0]

    run(go)


def test_next_loop_highlights_the_loop_body() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app) as pilot:
            view = app.view
            assert view is not None and view.loops
            await pilot.press("l")
            body = view.loops[0].rows
            sass = app.pane("sass")
            assert sass.cursor == body[0] and sass.body == frozenset(body)
            assert visible(sass, body[0])
            await pilot.press("l")
            assert sass.body == frozenset(view.loops[1 % len(view.loops)].rows)

    run(go)


def test_search_marks_matches_and_n_walks_them() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app) as pilot:
            await pilot.press("slash")
            await pilot.press(*"LDS", "enter")
            await pilot.pause()
            sass = app.pane("sass")
            view = app.view
            assert view is not None
            expected = [i for i, r in enumerate(view.sass) if "LDS" in r.text]
            assert sorted(sass.matches) == expected
            assert sass.cursor == expected[0]
            await pilot.press("n")
            assert sass.cursor == expected[1]
            await pilot.press("N")
            assert sass.cursor == expected[0]

    run(go)


def test_go_to_address_puts_the_cursor_on_that_instruction() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app) as pilot:
            await pilot.press("g", *"0x260", "enter")
            await pilot.pause()
            view = app.view
            assert view is not None
            assert view.sass[app.pane("sass").cursor].address == 0x260
            assert "0260" in str(app.query_one("#info").render())

    run(go)


def test_opcode_help_opens_on_the_cursor_instruction() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app) as pilot:
            await pilot.press("g", *"90", "enter", "i")
            await pilot.pause()
            assert type(app.screen).__name__ == "OpcodeScreen"
            assert app.screen.mnemonic == "LDG.E.CONSTANT"  # type: ignore[attr-defined]
            await pilot.press("escape")
            await pilot.press("question_mark")
            assert type(app.screen).__name__ == "HelpScreen"

    run(go)


def test_kernel_picker_switches_kernel() -> None:
    async def go() -> None:
        app = preloaded(SPILL_CUBIN)
        async with opened(app) as pilot:
            before = app.view.title if app.view else ""
            await pilot.press("K", "down", "enter")
            await pilot.pause()
            assert app.view is not None and app.view.title != before and app.index == 1

    run(go)


def test_panes_hide_widen_and_the_theme_switches() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app) as pilot:
            await pilot.press("2")
            assert not app.pane("ptx").display
            await pilot.press("2")
            assert app.pane("ptx").display
            app.pane("sass").focus()
            await pilot.press("z")
            assert app.screen.maximized is app.pane("sass")
            await pilot.press("escape")
            assert app.screen.maximized is None
            dark = app.current_theme.dark
            await pilot.press("d")
            await pilot.pause()
            assert app.current_theme.dark is not dark

    run(go)


def test_small_terminal_starts_without_the_ptx_pane() -> None:
    async def go() -> None:
        app = preloaded(TILED_CUBIN)
        async with opened(app, size=(80, 24)) as pilot:
            await pilot.pause()
            assert not app.pane("ptx").display
            assert app.pane("sass").size.height >= 8

    run(go)


# -- the app on recorded compiles (source and PTX included) -------------------------------------


def test_source_line_marks_its_ptx_and_sass_and_brings_them_into_view() -> None:
    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app) as pilot:
            view = app.view
            assert view is not None and app.error is None
            app.pane("source").focus()
            await pilot.press(":", *"10", "enter")
            await pilot.pause()
            key = (view.main_file, 10)
            sass, ptx = app.pane("sass"), app.pane("ptx")
            assert sass.marks == frozenset(view.sass_for_line[key])
            assert ptx.marks == frozenset(p - 1 for p in view.ptx_for_line[key])
            assert visible(sass, min(sass.marks)) and visible(ptx, min(ptx.marks))

    run(go)


def test_sass_and_ptx_cursors_lead_back_to_the_source_line() -> None:
    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app) as pilot:
            view = app.view
            assert view is not None
            row = next(i for i, r in enumerate(view.sass) if r.mnemonic.startswith("BAR"))
            sass = app.pane("sass")
            sass.focus()
            await pilot.press("g", *f"{view.sass[row].address:x}", "enter")
            await pilot.pause()
            assert app.pane("source").marks == frozenset({5})  # __syncthreads() on line 6
            ptx_row = view.sass[row].ptx_line - 1
            assert app.pane("ptx").marks == frozenset({ptx_row})
            ptx = app.pane("ptx")
            ptx.focus()
            ptx.move_cursor(ptx_row, notify=True)
            await pilot.pause()
            assert row in sass.marks and app.pane("source").marks == frozenset({5})

    run(go)


# -- the app on live compiles: watching, errors, architectures, inlining ------------------------


@compile_mark
def test_inlined_code_shows_under_the_call_line_with_its_frames(tmp_path: Path) -> None:
    src = tmp_path / "inl.cu"
    src.write_text(INLINED)

    async def go() -> None:
        app = SassviewApp(Target(src), watch=False)
        async with opened(app) as pilot:
            view = app.view
            assert view is not None
            callee = set(view.sass_for_line.get((str(src), 2), ()))
            assert callee, "the callee's line has instructions"
            app.pane("source").focus()
            await pilot.press(":", "6", "enter")
            await pilot.pause()
            assert callee <= app.pane("sass").marks  # the call line finds the inlined body
            row = min(callee)
            app.pane("sass").move_cursor(row, notify=True)
            await pilot.pause()
            assert "inlined at" in str(app.query_one("#info").render())

    run(go)


@compile_mark
def test_saving_recompiles_and_keeps_the_cursor_on_the_source_line(tmp_path: Path) -> None:
    src = tmp_path / "tiled.cu"
    shutil.copy(SOURCES / "tiled.cu", src)

    async def go() -> None:
        app = SassviewApp(Target(src), poll_seconds=0.05)
        async with opened(app) as pilot:
            app.pane("sass").focus()  # the user reads SASS; `:` moved them to line 10
            await pilot.press(":", *"10", "enter")
            first = app.view
            assert first is not None
            src.write_text(src.read_text().replace("#pragma unroll 4", "#pragma unroll 2"))
            await wait_for(pilot, lambda: app.loads >= 2)
            await pilot.pause()
            view = app.view
            assert view is not first and view is not None and app.error is None
            assert "unroll 2" in view.source_lines[7]
            assert app.pane("source").cursor == 9
            rows = view.sass_for_line[(view.main_file, 10)]
            assert app.pane("sass").cursor == rows[0]  # the SASS cursor is back on line 10
            assert visible(app.pane("sass"), rows[0])

    run(go)


@compile_mark
def test_a_compile_error_is_shown_with_its_line_and_the_last_listing_stays(tmp_path: Path) -> None:
    src = tmp_path / "tiled.cu"
    shutil.copy(SOURCES / "tiled.cu", src)

    async def go() -> None:
        app = SassviewApp(Target(src), poll_seconds=0.05)
        async with opened(app) as pilot:
            good = app.view
            rows = len(app.pane("sass").painter or ())
            src.write_text(src.read_text().replace("acc += tile", "acc += tyle"))
            await wait_for(pilot, lambda: app.loads >= 2)
            await pilot.pause()
            error = app.query_one("#error")
            assert error.display and app.error is not None
            assert app.error.line == 10 and f"{src.name}:10" in str(error.render())
            assert app.view is good and len(app.pane("sass").painter or ()) == rows
            assert app.pane("source").errors == frozenset({9})
            src.write_text(src.read_text().replace("acc += tyle", "acc += tile"))
            await wait_for(pilot, lambda: app.loads >= 3)
            await pilot.pause()
            assert not error.display and app.error is None

    run(go)


@compile_mark
def test_arch_picker_recompiles_for_another_architecture() -> None:
    async def go() -> None:
        app = SassviewApp(Target(SOURCES / "vecadd.cu"), watch=False)
        async with opened(app) as pilot:
            assert app.view is not None and app.view.inspection.arch == "sm_90a"
            name = app.view.inspection.kernel.name
            await pilot.press("a")
            await pilot.pause()
            picker = app.screen
            ids = [k for k, _ in picker.options]  # type: ignore[attr-defined]
            picker.dismiss(ids[ids.index("arch:sm_80")])  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: app.loads >= 2)
            assert app.view is not None and app.view.inspection.arch == "sm_80"
            assert app.view.inspection.kernel.name == name  # the same kernel, another arch

    run(go)


@compile_mark
def test_after_an_arch_switch_d_compares_the_two_and_the_cursor_stays_in_view() -> None:
    """`a` compiles another arch beside the shown one: `D` offers the first (it used to say
    "press a to compile it for another architecture"), and the selected instruction of the
    line the user was on is in view, not where the last listing was scrolled to."""

    async def go() -> None:
        app = SassviewApp(Target(SOURCES / "vecadd.cu"), watch=False)
        async with opened(app, size=(120, 30)) as pilot:
            sass = app.pane("sass")
            assert sass.painter is not None
            sass.move_cursor(len(sass.painter) - 1, notify=True)  # the kernel's last line
            await pilot.pause()
            assert app.view is not None and round(sass.scroll_offset.y) > 0
            line, name = app.current_line, app.view.inspection.kernel.name
            await pilot.press("a")
            await pilot.pause()
            ids = [k for k, _ in app.screen.options]  # type: ignore[attr-defined]
            app.screen.dismiss(ids[ids.index("arch:sm_80")])  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: app.loads >= 2)
            await pilot.pause()
            assert app.view is not None and app.view.inspection.arch == "sm_80"
            assert app.view.inspection.kernel.name == name and app.current_line == line
            for pane in ("source", "ptx", "sass"):
                assert visible(app.pane(pane), app.pane(pane).cursor), pane
            await pilot.press("D")
            await pilot.pause()
            labels = [label for _, label in app.screen.options]  # type: ignore[attr-defined]
            assert labels == ["(no variant) · sm_90a"]
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen.text.startswith("(no variant) sm_80  ->  (no variant) sm_90a")  # type: ignore[attr-defined]

    run(go)


def test_the_error_panel_keeps_the_selected_instruction_in_view() -> None:
    """The panel takes rows from the panes: a cursor on their last visible row stays visible."""

    async def go() -> None:
        app = recorded_app("tiled")
        async with opened(app, size=(140, 30)) as pilot:
            sass = app.pane("sass")
            last = round(sass.scroll_offset.y) + sass.scrollable_content_region.height - 1
            sass.move_cursor(last, notify=True)
            await pilot.pause()
            height = sass.scrollable_content_region.height
            log = 'tiled.cu(10): error: identifier "tyle" is undefined\n' + "  context\n" * 6
            report = loader.ErrorReport(
                'compile failed: tiled.cu:10: identifier "tyle" is undefined', "", log,
                file=app.view.main_file if app.view else None, line=10,
            )  # fmt: skip
            app.post_message(CompileFailed(report, "change"))
            await pilot.pause()
            await pilot.pause()
            assert sass.scrollable_content_region.height < height  # the panel took rows
            assert sass.cursor == last and visible(sass, last)

    run(go)


# -- snapshots of the main screens (pytest --update-goldens rewrites them) ----------------------


@pytest.fixture
def tui_snapshot(golden: Goldens, request: pytest.FixtureRequest) -> Callable[..., None]:
    """Compare the app's screenshot with __snapshots__/test_tui/<test>.svg (helpers/goldens)."""

    def compare(app: SassviewApp, **how: Any) -> None:
        golden.check(SNAPSHOTS / f"{request.node.name}.svg", screenshot(app, **how))

    return compare


def test_snapshot_main_screen(tui_snapshot: Callable[..., None]) -> None:
    tui_snapshot(recorded_app("tiled"), terminal_size=(140, 40))


def test_snapshot_main_screen_at_80x24(tui_snapshot: Callable[..., None]) -> None:
    tui_snapshot(recorded_app("tiled"), terminal_size=(80, 24))


def test_snapshot_source_cursor_in_a_loop_light_theme(tui_snapshot: Callable[..., None]) -> None:
    async def before(pilot: object) -> None:
        app = pilot.app  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
        app.theme = "textual-light"
        app.pane("source").focus()
        app.go_to_line(10)
        await pilot.pause()  # type: ignore[attr-defined]

    tui_snapshot(recorded_app("tiled"), terminal_size=(140, 40), run_before=before)


def test_snapshot_compile_error(tui_snapshot: Callable[..., None]) -> None:
    async def before(pilot: object) -> None:
        app = pilot.app  # type: ignore[attr-defined]
        report = loader.ErrorReport(
            'compile failed: tiled.cu:10: identifier "tyle" is undefined',
            "fix the error at that line",
            'tiled.cu(10): error: identifier "tyle" is undefined\n      acc += tyle[(threadIdx.x',
            file=app.view.main_file, line=10,
        )  # fmt: skip
        app.post_message(CompileFailed(report, "change"))
        await pilot.pause()  # type: ignore[attr-defined]

    tui_snapshot(recorded_app("tiled"), terminal_size=(120, 36), run_before=before)


def test_snapshot_help_screen(tui_snapshot: Callable[..., None]) -> None:
    tui_snapshot(recorded_app("tiled"), press=["question_mark"], terminal_size=(100, 44))


def test_snapshot_spills_and_opcode_help(tui_snapshot: Callable[..., None]) -> None:
    async def before(pilot: object) -> None:
        app = pilot.app  # type: ignore[attr-defined]
        view = app.view
        row = next(i for i, r in enumerate(view.sass) if r.flags[3] == "S")
        app.pane("sass").move_cursor(row, center=True)
        app.sync_from("sass", row)
        app.action_opcode_help()
        await pilot.pause()  # type: ignore[attr-defined]

    spill = tuple(i for i in recorded("spill", "sm_80") if i.kernel.name == "_Z5spillPKfPfi")
    app = SassviewApp(Target(SPILL_CUBIN), loaded=Loaded(spill, ()), watch=False)
    tui_snapshot(app, terminal_size=(120, 36), run_before=before)


@pytest.mark.parametrize(
    "cubin",
    sorted(CORPUS.glob("*/*/kernel.cubin")),
    ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}",
)
def test_every_recorded_cubin_opens_and_survives_the_navigation_keys(cubin: Path) -> None:
    async def go() -> None:
        app = preloaded(cubin)
        async with opened(app, size=(100, 30)) as pilot:
            keys = ["right_square_bracket", "l", "end", "home", "c", "c", "C", "3", "3", "z", "z"]
            await pilot.press(*keys)
            await pilot.press("i", "escape", "t", "K", "escape")
            await pilot.pause()
            assert app.view is not None and app.pane("sass").painter is not None
            assert len(app.pane("sass").painter or ()) == len(
                app.view.inspection.kernel.instructions
            )

    run(go)


TRITON_KERNEL = """\
import triton
import triton.language as tl

import sassview as sv


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


sv.triton(add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
          "n": "i32"}, constexprs={"BLOCK": 256}, arch="sm_90a", variants={"num_warps": [2, 4]})
"""


@compile_mark
def test_a_triton_kernel_file_shows_its_stages_and_variants(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    src = tmp_path / "kernel.py"
    src.write_text(TRITON_KERNEL)

    async def go() -> None:
        app = SassviewApp(Target(src), watch=False)
        async with opened(app) as pilot:
            view = app.view
            assert view is not None and app.error is None, app.error
            assert view.main_file == str(src) and {"ttir", "ttgir", "llir"} <= set(view.stages)
            assert view.sass_for_line.get((str(src), 11))  # the tl.store line has SASS
            await pilot.press("v")
            await pilot.pause()
            labels = [label for _, label in app.screen.options]  # type: ignore[attr-defined]
            assert labels == ["num_warps=2", "num_warps=4"]
            await pilot.press("down", "enter")
            await pilot.pause()
            assert app.index == 1
            app.pane("source").move_cursor(10, notify=True)  # the tl.store line
            await pilot.pause()
            await pilot.press("t", "down", "enter")  # TTGIR
            await pilot.pause()
            screen = app.screen
            assert type(screen).__name__ == "StageScreen"
            assert screen.stage == "ttgir"  # type: ignore[attr-defined]
            # It opens at that line's code: its ops marked, the cursor on the first.
            listing = screen.query_one("#stage")
            lines = screen.text.splitlines()  # type: ignore[attr-defined]
            assert listing.marks and "tt.store" in "".join(lines[r] for r in listing.marks)
            assert listing.cursor == min(listing.marks)
            assert listing.border_subtitle.startswith("kernel.py:11: ")
            # Moving in the stage marks the code of the line under the cursor.
            first = min(screen.lines_of_row)  # type: ignore[attr-defined]
            listing.move_cursor(first, notify=True)
            await pilot.pause()
            line = screen.lines_of_row[first][0]  # type: ignore[attr-defined]
            assert listing.border_subtitle.startswith(f"kernel.py:{line}: ")
            assert first in listing.marks
            assert f"kernel.py:{line}  " in str(screen.query_one("#stage-source").render())
            assert line != 11  # (the line the stage opened at)
            # Leaving the stage takes the panes to that line.
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is not screen and app.pane("source").cursor == line - 1

    run(go)


@compile_mark
def test_diff_of_two_variants_shows_what_changed(tmp_path: Path) -> None:
    src = tmp_path / "kernel.py"
    src.write_text(
        "import sassview as sv\n"
        f"sv.cuda_file({str(SOURCES / 'spill.cu')!r}, arch='sm_80',"
        " variants={'-maxrregcount': [32, 128]})\n"
    )

    async def go() -> None:
        app = SassviewApp(Target(src, kernel="spill"), watch=False)
        async with opened(app) as pilot:
            assert app.view is not None and app.error is None, app.error
            await pilot.press("D")
            await pilot.pause()
            labels = [label for _, label in app.screen.options]  # type: ignore[attr-defined]
            assert labels == ["-maxrregcount=128 · sm_80"]
            await pilot.press("enter")
            await pilot.pause()
            assert type(app.screen).__name__ == "StageScreen"
            text = app.screen.text  # type: ignore[attr-defined]
            assert "spill_bytes" in text and "-> 0" in text and "\n-" in text

    run(go)
