"""Write docs/img/tui-*.svg: the TUI as it opens on a bundled example, from a real run.

    python docs/gen_screenshots.py

Each picture is `sassview examples/matmul/05_wgmma_tma.cu --arch sm_90a` compiled with the
wheels' NVRTC and shown by the app itself, headless (Textual's `run_test`), at a terminal size
a reader has: the SVG is what Textual's own screenshot writes, nothing drawn by hand. Two
things that differ between runs are left out: the load time in the header, and the user's
remembered pane widths (a private config directory), so a picture changes only when sassview
or the compiler changes what it shows. tests/test_docs_screenshots.py checks that the pictures
are current.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img"
EXAMPLE = ROOT / "examples" / "matmul" / "05_wgmma_tma.cu"
ARCH = "sm_90a"
# (file name, terminal columns, rows, theme)
SHOTS = (
    ("tui-160x45.svg", 160, 45, "textual-dark"),
    ("tui-80x24.svg", 80, 24, "textual-dark"),
)


def screenshots() -> dict[str, str]:
    """File name -> the SVG of each shot in SHOTS, from one compile of EXAMPLE."""
    sys.path.insert(0, str(ROOT))
    from sassview.tui import layout, loader
    from sassview.tui.app import SassviewApp

    target = loader.Target(EXAMPLE, arch=(ARCH,))
    loaded = dataclasses.replace(loader.load(target), seconds=0.0)  # no load time shown
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as config:
        memory = layout.WidthMemory(Path(config) / "tui.json")

        async def shoot(name: str, width: int, height: int, theme: str) -> None:
            app = SassviewApp(target, loaded=loaded, watch=False, width_memory=memory)
            async with app.run_test(size=(width, height)) as pilot:
                app.theme = theme
                await pilot.pause()
                await pilot.wait_for_scheduled_animations()
                out[name] = app.export_screenshot(title=f"sassview {EXAMPLE.name}")

        for shot in SHOTS:
            asyncio.run(shoot(*shot))
    return out


def main() -> None:
    os.environ.setdefault("SASSVIEW_CACHE_DIR", tempfile.mkdtemp(prefix="sassview-docs-"))
    OUT.mkdir(exist_ok=True)
    for name, svg in screenshots().items():
        path = OUT / name
        if not path.exists() or path.read_text(encoding="utf-8") != svg:
            path.write_text(svg, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
