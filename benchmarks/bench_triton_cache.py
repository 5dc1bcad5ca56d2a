"""Reading a Triton cache of 200 kernels: the listing, the programs, and `sassview check`.

    python benchmarks/bench_triton_cache.py [--entries 200] [--repeat 5]

The 200 entries are copies of one recorded entry (tests/data/triton_cache, the `add` kernel)
under distinct hash names: compiling 200 kernels takes minutes, and a listing reads each
entry the same way whatever its kernel. Prints, best of --repeat, warm (sassview's cache
already holding the disassembly): the listing (`find_kernels`: metadata and one IR file's
first lines per entry; goal <= 2 s), every entry's Program built (`sassview.load`: cubin
read, ELF and disassembly from the cache), and `sassview check DIR --json` as a process
(every kernel inspected and reported), with each one's time per entry.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
RECORDED = ROOT / "tests" / "data" / "triton_cache"


def fill(directory: Path, count: int) -> None:
    (entry,) = [d for d in RECORDED.iterdir() if (d / "add.cubin").is_file()]
    for i in range(count):
        shutil.copytree(entry, directory / f"BENCH{i:04d}{entry.name[9:]}")


def best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    import sassview
    from sassview.frontends.triton_cache import find_kernels

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        fill(cache, args.entries)
        assert len(find_kernels(cache)) == args.entries
        sassview.load(cache)  # warms sassview's disassembly cache
        listing = best(args.repeat, lambda: find_kernels(cache))
        programs = best(args.repeat, lambda: sassview.load(cache))
        command = [sys.executable, "-m", "sassview", "check", str(cache), "--json"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        check = best(
            max(1, args.repeat // 2),
            lambda: subprocess.run(command, check=True, capture_output=True, env=env),
        )
    n = args.entries
    print(f"{'what':<28} {'s':>8} {'ms/entry':>9}")
    for what, seconds in (
        (f"listing ({n} entries)", listing),
        ("programs (sassview.load)", programs),
        ("sassview check --json", check),
    ):
        print(f"{what:<28} {seconds:8.3f} {1000 * seconds / n:9.2f}")
    print(f"listing: {listing:.3f} s of the 2 s goal ({listing / 2:.3f}x)")


if __name__ == "__main__":
    main()
