"""How long one keypress takes in the TUI on the 65k-instruction kernel, and what it repaints.

    python benchmarks/bench_tui_keys.py [--repeat 5] [--profile N] [KERNEL.cu]

The kernel is bench_warm's (benchmarks/.cache/warm-65k.cu, its compile kept in
benchmarks/.cache: the first one takes minutes). It is loaded once, as the app's worker loads
it, then the app runs headless at 160x50 (App.run_test) and Pilot presses each key --repeat
times. Prints, per key, the best and median wall and CPU seconds from the press to the screen
updated (`pilot.pause()`), and how many rows the listings painted afresh for it (rows a
painter made segments for; a cached strip is not counted): a keypress must repaint what
changed, not the screen. `first paint` is the app's, from start to its first SASS row,
with the data in hand, and `settled` when every pane has painted where it opens (the loaded
app paints its SASS row before the source pane has scrolled to the kernel). `--profile N`
prints the N top cumulative entries of a cProfile of the start until settled, and the N top
entries by own time of the keys' profile. The keys are timed after the source's background
lex (sassview.tui.lexing) has finished.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "benchmarks" / ".cache" / "warm-65k.cu"
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(ROOT / "benchmarks" / ".cache"))
sys.path.insert(0, str(ROOT))

# (name, keys): each a user's step; `g` types an address into the prompt and goes there.
KEYS = [
    ("down", ["down"]),
    ("pagedown", ["pagedown"]),
    ("end", ["end"]),
    ("home", ["home"]),
    ("] next finding", ["right_square_bracket"]),
    ("l next loop", ["l"]),
    ("g address", ["g", *"1f00", "enter"]),
    ("tab (next pane)", ["tab"]),
    ("down in source", ["down"]),
]


def load(kernel: Path):  # -> Loaded
    from sassview.gcpause import pause
    from sassview.tui import loader

    resume = pause(freeze=True)  # as the app's worker loads it
    try:
        return loader.load(loader.Target(kernel))
    finally:
        resume()


def count_paints() -> dict[str, int]:
    """Wrap every painter's `segments` to count the rows painted afresh, by painter class."""
    from sassview.tui import paint

    counts: dict[str, int] = {}
    for cls in (paint.SourcePainter, paint.PtxPainter, paint.SassPainter):
        original = cls.segments

        def counted(self, row, palette, _original=original, _name=cls.__name__):  # type: ignore[no-untyped-def]
            counts[_name] = counts.get(_name, 0) + 1
            return _original(self, row, palette)

        cls.segments = counted  # type: ignore[method-assign]
    return counts


async def run(loaded, repeat: int, profile: int) -> None:  # type: ignore[no-untyped-def]
    from sassview.tui.app import SassviewApp
    from sassview.tui.loader import Target

    counts = count_paints()
    profiler = cProfile.Profile() if profile else None
    wall, cpu = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    app = SassviewApp(Target(KERNEL), loaded=loaded, watch=False)
    async with app.run_test(size=(160, 50)) as pilot:
        sass = app.pane("sass")
        while sass.first_paint is None:
            await pilot.pause(0.001)
        first_cpu = time.process_time() - cpu
        await pilot.pause()  # the panes scrolled to the kernel and painted there
        await pilot.pause()
        if profiler is not None:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(profile)
            profiler = cProfile.Profile()
        print(
            f"first paint  {(sass.first_paint - wall) * 1e3:7.1f} ms wall "
            f"{first_cpu * 1e3:7.1f} ms CPU (app start to its first SASS "
            f"row, data in hand; {len(app.view.sass) if app.view else 0} rows, "
            f"{len(app.view.findings) if app.view else 0} findings)"
        )
        print(
            f"settled      {(time.perf_counter() - wall) * 1e3:7.1f} ms wall "
            f"{(time.process_time() - cpu) * 1e3:7.1f} ms CPU (and every pane painted where "
            f"it opens: the source at the kernel's line)"
        )
        w = time.perf_counter()
        while (
            getattr(app, "_lexer_timer", None) is not None
        ):  # the source's background lex (tui/lexing.py)
            await pilot.pause(0.05)
        print(f"source lexed {time.perf_counter() - w:7.1f} s after, in the background")
        await pilot.pause(0.2)
        if profiler is not None:
            profiler.enable()
        for name, keys in KEYS:
            walls, cpus, painted = [], [], []
            for _ in range(repeat):
                counts.clear()
                w, c = time.perf_counter(), time.process_time()
                for key in keys:
                    await pilot.press(key)
                await pilot.pause()
                walls.append(time.perf_counter() - w)
                cpus.append(time.process_time() - c)
                painted.append(sum(counts.values()))
                if name.startswith("g "):
                    await pilot.press("home")  # the next `g` moves again
                    await pilot.pause()
            print(
                f"{name:<18} {min(walls) * 1e3:6.1f} ms wall (median "
                f"{statistics.median(walls) * 1e3:6.1f}), {min(cpus) * 1e3:6.1f} ms CPU, "
                f"rows painted {min(painted)}-{max(painted)}"
            )
        if profiler is not None:
            profiler.disable()
            print("--- keys ---")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(profile)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", type=int, default=0, metavar="N")
    ap.add_argument("kernel", nargs="?", type=Path, default=KERNEL)
    args = ap.parse_args()
    t = time.process_time()
    loaded = load(args.kernel)
    print(f"loaded       {(time.process_time() - t) * 1e3:7.1f} ms CPU (model from the cache)")
    asyncio.run(run(loaded, args.repeat, args.profile))


if __name__ == "__main__":
    main()
