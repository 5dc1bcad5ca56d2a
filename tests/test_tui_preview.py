"""Opening a cached model: the first kernel is painted before the other kernels are loaded
(sassview.build.first_kernel, loader.previewing), and the whole load then replaces it with
nothing on the screen changing. What lists the kernels reads the whole load only."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CORPUS
from textual.strip import Strip
from textual.widgets import OptionList

import sassview
from sassview.tui import loader
from sassview.tui.app import SassviewApp
from sassview.tui.loader import Loaded, Target
from sassview.tui.screens.picker import PickerScreen
from sassview.tui.widgets.listing import Listing

THREE_KERNELS = CORPUS / "whole_program" / "sm_90a" / "kernel.cubin"


def _held() -> tuple[Callable[[Target], Loaded], threading.Event]:
    """The real load, which returns only once the test lets it (the preview is shown by then:
    the load waits for its paint before it reads the other kernels)."""
    release = threading.Event()

    def load(target: Target) -> Loaded:
        found = loader.load(target)
        release.wait(60)
        return found

    return load, release


async def _until(pilot: object, done: Callable[[], bool], seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "timed out waiting for the app"
        await pilot.pause(0.02)  # type: ignore[attr-defined]


@pytest.mark.parametrize("begun", ["in the app", "before the app"])
def test_the_first_kernel_is_painted_first_and_the_whole_load_changes_nothing_shown(
    begun: str,
) -> None:
    whole = sassview.inspect(THREE_KERNELS)  # the model is cached with its analyses from here
    assert len(whole) == 3
    load, release = _held()
    target = Target(THREE_KERNELS)
    if begun == "in the app":
        app = SassviewApp(target, load=load, watch=False)
    else:  # as `sassview tui` opens it (sassview.tui.open_app)
        app = SassviewApp(target, opening=loader.Opening(target, load), watch=False)

    async def go() -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            await _until(pilot, lambda: app.view is not None)
            await pilot.pause()
            assert app.loaded is None and app.loads == 0  # painted from the first kernel alone
            assert app.view is not None and app.view.inspection.kernel.name == whole[0].kernel.name
            first_paint = app.export_screenshot()
            release.set()
            await _until(pilot, lambda: app.loads == 1)
            await pilot.pause()
            assert app.export_screenshot() == first_paint
            assert app.loaded is not None and app.view.inspection is app.loaded.inspections[0]
            assert app.view.inspection.program.kernels == app.loaded.inspections[0].program.kernels
            assert len(app.view.inspection.program.kernels) == 3  # the whole Program, now
            await pilot.press("K")
            assert isinstance(app.screen, PickerScreen)
            assert app.screen.query_one(OptionList).option_count == 3

    asyncio.run(go())


def test_a_key_that_lists_the_kernels_waits_for_the_whole_load() -> None:
    sassview.inspect(THREE_KERNELS)
    load, release = _held()
    app = SassviewApp(Target(THREE_KERNELS), load=load, watch=False)

    async def go() -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            await _until(pilot, lambda: app.view is not None)
            await pilot.press("K")  # while only the first kernel is in
            assert not isinstance(app.screen, PickerScreen)
            release.set()
            # The picker becomes the screen before its list is mounted: wait for both (under
            # load, query_one in between raised NoMatches).
            await _until(
                pilot,
                lambda: isinstance(app.screen, PickerScreen) and bool(app.screen.query(OptionList)),
            )
            assert app.screen.query_one(OptionList).option_count == 3

    asyncio.run(go())


def test_a_load_begun_before_the_app_that_fails_is_shown_in_the_app(tmp_path: Path) -> None:
    broken = tmp_path / "broken.cubin"
    broken.write_bytes(b"not an ELF file")
    target = Target(broken)
    app = SassviewApp(target, opening=loader.Opening(target), watch=False)

    async def go() -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            await _until(pilot, lambda: app.loads == 1)
            assert app.error is not None and app.view is None and app.loaded is None

    asyncio.run(go())


def test_a_cold_open_shows_the_whole_load_at_once(tmp_path: Path) -> None:
    target = tmp_path / "k.cubin"  # a file of its own: no model of it is cached yet
    target.write_bytes(THREE_KERNELS.read_bytes())
    shown: list[object] = []

    def load(t: Target) -> Loaded:
        with loader.previewing(shown.append):
            return loader.load(t)

    assert len(load(Target(target)).inspections) == 3
    assert shown == []  # built from the listings: there was no first kernel to show early
    found = load(Target(target))  # ...and cached with its analyses by then
    assert [i.kernel for i in shown] == [found.inspections[0].kernel]  # the very same objects


def test_a_first_kernel_in_as_the_app_mounts_is_in_its_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cached model's first kernel is in as the app mounts (its read runs beside Textual's
    import): the first frame shows it, no empty frame is laid out and painted before it."""
    sassview.inspect(THREE_KERNELS)
    load, release = _held()
    target = Target(THREE_KERNELS)
    opening = loader.Opening(target, load)
    first = opening.first(60)
    assert first is not None  # in before the app is made
    painted: list[object] = []  # the SASS pane's painter at each row it paints
    render_line = Listing.render_line

    def spy(self: Listing, y: int) -> Strip:
        if self.pane == "sass":
            painted.append(self.painter)
        return render_line(self, y)

    monkeypatch.setattr(Listing, "render_line", spy)
    app = SassviewApp(target, opening=opening, watch=False)

    async def go() -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            try:
                await _until(pilot, lambda: bool(painted))
                assert app.view is not None and app.view.inspection is first
                assert None not in painted  # not one row painted before the kernel was there
            finally:
                release.set()
            await _until(pilot, lambda: app.loads == 1)
            assert app.view.inspection is app.loaded.inspections[0]  # type: ignore[union-attr]

    asyncio.run(go())
