"""The TUI's tests' shared machinery: apps on recorded compiles and cubins (no compiler),
opened headless with App.run_test(), and the SVG a snapshot keeps."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from conftest import CORPUS

import sassview
from sassview.inspection import Inspection
from sassview.ir import Artifacts
from sassview.tui.app import SassviewApp
from sassview.tui.loader import Loaded, Target
from sassview.tui.widgets.listing import Listing

SOURCES = CORPUS / "sources"


def run(coro: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(coro())  # type: ignore[arg-type]


def preloaded(path: Path, **kw: object) -> SassviewApp:
    """An app on a recorded cubin: no compiler, no watching."""
    found = tuple(sassview.inspect(path))
    return SassviewApp(Target(path), loaded=Loaded(found, ()), watch=False, **kw)  # type: ignore[arg-type]


def recorded(case: str, arch: str = "sm_90a") -> tuple[Inspection, ...]:
    """A recorded compile (cubin, PTX, source, ptxas log) read back as if just compiled: the
    source and PTX panes have text, and no compiler is needed."""
    d = CORPUS / case / arch
    cubin = (d / "kernel.cubin").read_bytes()
    probe = sassview.from_artifacts(Artifacts(kind="cubin", arch=arch, cubin=cubin))
    src = next(x.source for x in probe.kernels[0].instructions if x.source is not None)
    artifacts = Artifacts(
        kind="cuda", arch=arch, source_path=src.outermost.file, cubin=cubin,
        source_text=(SOURCES / f"{case}.cu").read_text(), ptx=(d / "kernel.ptx").read_text(),
        compile_log=(d / "compile.log").read_text(),
    )  # fmt: skip
    return tuple(sassview.analyze(sassview.from_artifacts(artifacts)))


def recorded_app(case: str, arch: str = "sm_90a") -> SassviewApp:
    target = Target(SOURCES / f"{case}.cu")
    return SassviewApp(target, loaded=Loaded(recorded(case, arch), ()), watch=False)


@asynccontextmanager
async def opened(app: SassviewApp, size: tuple[int, int] = (160, 48)) -> AsyncIterator[object]:
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.loads >= 1)
        yield pilot


async def wait_for(pilot: object, done: Callable[[], bool], seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "timed out waiting for the app"
        await pilot.pause(0.05)  # type: ignore[attr-defined]


def visible(listing: Listing, row: int) -> bool:
    top = round(listing.scroll_offset.y)
    return top <= row < top + listing.scrollable_content_region.height


def screenshot(
    app: SassviewApp,
    press: Iterable[str] = (),
    terminal_size: tuple[int, int] = (80, 24),
    run_before: Callable[[Any], Awaitable[None] | None] | None = None,
) -> str:
    """The SVG Textual's own screenshot makes of `app`, as a snapshot keeps it: the random id
    Rich puts in its class names taken out (what pytest-textual-snapshot stored before)."""
    from textual._doc import take_svg_screenshot

    svg = take_svg_screenshot(
        app=app, press=press, terminal_size=terminal_size, run_before=run_before
    )
    return re.sub(r"\bterminal-\d+-([\w-]+)", r"terminal-\1", svg)
