"""How fast the TUI paints: a 100k-instruction kernel headless, and the real command's start.

    python benchmarks/bench_tui.py [--instructions 100000] [--repeat 3] [--skip-command]

Prints:
  build        the view-model (state.build) for the big kernel: rows, correspondence indexes
  first paint  from the data being ready (an Inspection in hand) to the first painted SASS row,
               app start-up included, headless (App.run_test) — goal <= 1 s
  page         painting one page (all rows of the SASS pane) after a jump to rows never painted
               before, median and worst of 50 jumps — goal <= 16 ms; and the same page again
               (from the strip cache)
  memory       bytes per instruction the view-model and the first paints allocate (tracemalloc),
               beside the Inspection's own bytes per instruction
  command      `sassview tui examples/vecadd.cu` in a pseudo-terminal, from exec to the first
               SASS row on the terminal, warm compile cache; beside `python -c "import textual"`
               and their ratio
The big kernel is real code made bigger: tests/corpus/sources/tiled.cu compiled for sm_90a (its
PTX and line table included), its instructions repeated at consecutive addresses (branch
targets moved along) and inspected like any kernel — loops, liveness and analyses included.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pty
import select
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from types import MappingProxyType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))


def big_inspection(count: int):  # -> Inspection
    """tiled.cu's kernel repeated to `count` instructions, then inspected."""
    from dataclasses import replace

    import sassview
    from sassview.inspection import inspect_kernel
    from sassview.ir import Correspondence

    program = sassview.compile(path=ROOT / "tests/corpus/sources/tiled.cu", arch="sm_90a")
    kernel = program.kernels[0]
    base = kernel.instructions
    span = base[-1].address + 16
    out = []
    for copy in range(count // len(base) + 1):
        shift = copy * span
        last = (copy + 1) * len(base) >= count
        for ins in base:
            if len(out) == count:
                break
            target = ins.target + shift if ins.target is not None else None
            moved = ins._replace(address=ins.address + shift, target=target)
            trap = ins.target == ins.address  # the BRA-to-itself after the last EXIT
            if (ins.opcode == "EXIT" or trap) and not last:  # fall through into the next copy
                moved = moved._replace(
                    opcode="NOP", modifiers=(), operands=(), guard=None, control_flow=False
                )
            out.append(moved)
    corr = kernel.correspondence
    big_corr = Correspondence(
        sass_source=MappingProxyType({i.address: i.source for i in out if i.source}),
        sass_ptx=MappingProxyType({i.address: i.ptx_line for i in out if i.ptx_line}),
        ptx_source=corr.ptx_source,
    )
    big = replace(kernel, instructions=tuple(out), correspondence=big_corr)
    big_program = replace(program, kernels=(big,))
    return inspect_kernel(big_program, big)


async def _first_paint(insp, size: tuple[int, int]) -> tuple[float, float, object]:
    from sassview.tui.app import SassviewApp
    from sassview.tui.loader import Loaded, Target

    start = time.perf_counter()
    app = SassviewApp(Target(Path("big.cubin")), loaded=Loaded((insp,), ()), watch=False)
    async with app.run_test(size=size) as pilot:
        sass = app.pane("sass")
        while sass.first_paint is None:
            await pilot.pause(0.001)
        first = sass.first_paint - start
        pages = _pages(sass)
        await pilot.press("pagedown")  # and a real keypress, for good measure
        await pilot.pause()
    return first, pages, app


def _pages(sass) -> tuple[list[float], list[float]]:  # (fresh, cached) seconds per page
    import random

    rnd = random.Random(1)
    height = sass.scrollable_content_region.height
    n = len(sass.painter)
    fresh, cached = [], []
    for _ in range(50):
        top = rnd.randrange(0, n - height)
        sass.scroll_to(y=top, animate=False, immediate=True)
        for bucket in (fresh, cached):
            t = time.perf_counter()
            for y in range(height):
                sass.render_line(y)
            bucket.append(time.perf_counter() - t)
    return fresh, cached


def bench_big(count: int, repeat: int) -> None:
    from sassview.tui import state

    t = time.perf_counter()
    insp = big_inspection(count)
    n = len(insp.kernel.instructions)
    print(
        f"kernel       {n} SASS instructions, {len(insp.loops)} loops, "
        f"{len(insp.annotations)} findings (made and inspected in {time.perf_counter() - t:.1f} s)"
    )
    builds = []
    for _ in range(repeat):
        t = time.perf_counter()
        state.build(insp)
        builds.append(time.perf_counter() - t)
    print(f"build        {min(builds) * 1e3:7.1f} ms   view-model, best of {repeat}")
    firsts, fresh, cached = [], [], []
    for _ in range(repeat):
        first, (f, c), _app = asyncio.run(_first_paint(insp, (200, 60)))
        firsts.append(first)
        fresh += f
        cached += c
    verdict = "ok" if min(firsts) <= 1.0 else "OVER the 1 s goal"
    print(
        f"first paint  {min(firsts) * 1e3:7.1f} ms   data ready -> first SASS row, app start "
        f"included, best of {repeat} ({verdict})"
    )
    page_ok = "ok" if statistics.median(fresh) <= 0.016 else "OVER the 16 ms goal"
    p95 = sorted(fresh)[int(len(fresh) * 0.95)]
    print(
        f"page         {statistics.median(fresh) * 1e3:7.2f} ms   median, {p95 * 1e3:.1f} ms p95, "
        f"{max(fresh) * 1e3:.1f} ms worst: a 58-row page of never-painted rows ({page_ok}); "
        f"{statistics.median(cached) * 1e3:.2f} ms from the strip cache"
    )
    # Memory: what the TUI adds on top of the Inspection, per instruction.
    tracemalloc.start()
    snap0 = tracemalloc.take_snapshot()
    view = state.build(insp)
    from sassview.tui.paint import SassPainter

    SassPainter(view)
    snap1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    added = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    tracemalloc.start()
    t0 = tracemalloc.take_snapshot()
    again = big_inspection(count)
    t1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    model = sum(s.size_diff for s in t1.compare_to(t0, "filename"))
    print(
        f"memory       {added / n:7.0f} B/instruction for the view-model "
        f"({added / 2**20:.1f} MiB); the Inspection itself {model / n:.0f} B/instruction"
    )
    del again


def _time_to_text(argv: list[str], marker: bytes, timeout: float = 60.0) -> float:
    """Run argv in a pseudo-terminal; seconds until `marker` appears in what it draws."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of 160x50
        os.environ["COLUMNS"], os.environ["LINES"] = "160", "50"
        os.execvp(argv[0], argv)
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    seen = b""
    elapsed = float("nan")
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                seen += chunk
                if marker in seen:
                    elapsed = time.perf_counter() - start
                    break
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)
    return elapsed


def bench_command(repeat: int) -> None:
    exe = str(Path(sys.executable).with_name("sassview"))
    target = str(ROOT / "examples" / "vecadd.cu")
    subprocess.run([exe, "check", target], capture_output=True, check=True)  # warm the cache
    # "EXIT" is the last instruction of a kernel: it is on screen once the SASS pane is painted.
    runs = [_time_to_text([exe, "tui", target], b"EXIT") for _ in range(repeat)]
    imports = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import textual"], check=True)
        imports.append(time.perf_counter() - t)
    cmd, imp = min(runs), min(imports)
    print(
        f"command      {cmd * 1e3:7.0f} ms   `sassview tui examples/vecadd.cu` to its first "
        f"SASS row on the terminal (warm cache), best of {repeat}"
    )
    print(f'import       {imp * 1e3:7.0f} ms   `python -c "import textual"`, best of {repeat}')
    print(f"ratio        {cmd / imp:7.1f} x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instructions", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-command", action="store_true")
    args = ap.parse_args()
    bench_big(args.instructions, args.repeat)
    if not args.skip_command:
        bench_command(args.repeat)


if __name__ == "__main__":
    main()
