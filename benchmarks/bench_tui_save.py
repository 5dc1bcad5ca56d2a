"""The TUI's save-to-repaint beside the bare tools' wall time (issue 36: at most 1.5x).

    python benchmarks/bench_tui_save.py [--repeat 5] [--arch sm_90a] [KERNEL.cu]

The app runs headless (App.run_test, 160x50) on a copy of KERNEL (default
examples/matmul/03_register_blocking.cu) in a private cache, watching it as `sassview tui`
does (a stat every 0.5 s, a change acted on once the file has been quiet 0.15 s). Each run
moves the source down by a new number of lines (its cubin changes: nothing is cached), and
times the wall from the write to the app's next load shown and its screen updated
(`pilot.pause()`). Interleaved with each, the bare tools as bench_cold runs them (the wheel's
nvcc -cubin -lineinfo, then nvdisasm -g -c). Prints the medians and their ratio; the
watcher's own delay (up to 0.5 s of polling plus 0.15 s of settling, by design: an editor's
write-then-rename is one change) is in the TUI's number, and printed apart as well.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_cold import bare, tools, tree_cpu  # noqa: E402

POLL_S, SETTLE_S = 0.5, 0.15  # the app's defaults (tui/app.py, tui/loader.Watcher)


async def save_to_repaint(kernel: Path, arch: str, runs: int, bare_command: list[str]) -> None:
    from sassview.tui.app import SassviewApp
    from sassview.tui.loader import Target

    copy = kernel.parent / "watched" / kernel.name
    copy.parent.mkdir(exist_ok=True)
    copy.write_text(kernel.read_text())
    app = SassviewApp(Target(copy, arch=(arch,)), watch=True, poll_seconds=POLL_S)
    tui, floor = [], []
    async with app.run_test(size=(160, 50)) as pilot:
        while app.loads < 1:
            await pilot.pause(0.05)
        for run in range(runs):
            floor.append(tree_cpu(bare_command, dict(os.environ), kernel.parent)[1])
            before = app.loads
            copy.write_text(f"// bench_tui_save run {run}\n" * (run + 2) + kernel.read_text())
            start = time.perf_counter()
            while app.loads == before:
                await pilot.pause(0.005)
            await pilot.pause()
            tui.append(time.perf_counter() - start)
            assert app.error is None, app.error
    wall, base = statistics.median(tui), statistics.median(floor)
    verdict = "ok" if wall / base <= 1.5 else "OVER the 1.5x goal"
    print(f"bare tools      {base:6.2f} s wall (median of {runs})")
    print(f"save to repaint {wall:6.2f} s wall  {wall / base:4.2f}x  {verdict}")
    print(f"  of which the watcher's wait: {POLL_S / 2 + SETTLE_S:.2f} s on average (by design)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = ROOT / "examples" / "matmul" / "03_register_blocking.cu"
    parser.add_argument("kernel", nargs="?", type=Path, default=default)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--arch", default="sm_90a")
    args = parser.parse_args()
    nvcc, nvdis = tools()
    with tempfile.TemporaryDirectory(prefix="bench-tui-save-") as tmp:
        work = Path(tmp)
        os.environ["SASSVIEW_CACHE_DIR"] = str(work / "cache")
        os.environ.pop("SASSVIEW_NO_CACHE", None)
        source = work / args.kernel.name
        source.write_text(args.kernel.read_text())
        command = bare(nvcc, nvdis, source, args.arch, work)
        asyncio.run(save_to_repaint(source, args.arch, args.repeat, command))


if __name__ == "__main__":
    main()
