"""What trying a hint's knob costs `sassview check` (sassview/steer/standing.py).

    python benchmarks/bench_hint_trials.py [--repeat 3]

For each input (a .cu whose bank conflict names a padding macro, the Triton kernels of
tests/data/frontends whose hints name divisibility= or num_stages), runs, each as its own
`sassview check --json` process: cold (an empty cache) without and with `--try`, then warm
(the cache that run left) without and with `--try`, best of --repeat for the warm ones. It
prints the wall seconds and the trials' share. What it decided: `check` tries only with
`--try`, since a warm `--try` is still slower than a warm check (the variant's analyses run
again), and a plain check must not pay for it.

Measured 2026-12-02 on the shared 2-core CPU machine (--repeat 2, seconds; the cold runs
include the first tool probes of an empty cache, and are noisy there):

    input                     cold  cold+try    warm  warm+try
    transpose_pad.cu         11.75     10.69    1.02      1.39
    triton_standing.py        4.51      6.47    1.12      1.34
    triton_hints.py          11.44     11.48    1.56      1.92
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INPUTS = (
    ROOT / "tests" / "data" / "try" / "transpose_pad.cu",
    ROOT / "tests" / "data" / "frontends" / "triton_standing.py",
    ROOT / "tests" / "data" / "frontends" / "triton_hints.py",
)


def run(path: Path, cache: str, tried: bool) -> float:
    env = {**os.environ, "SASSVIEW_CACHE_DIR": cache}
    args = [sys.executable, "-m", "sassview", "check", str(path), "--json"]
    start = time.perf_counter()
    done = subprocess.run(
        args + (["--try"] if tried else []), env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{path}: {done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    print(f"{'input':<22} {'cold':>7} {'cold+try':>9} {'warm':>7} {'warm+try':>9}")
    for path in INPUTS:
        with tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as tried:
            cold = run(path, plain, False)
            cold_try = run(path, tried, True)  # its own empty cache: the base compile too
            warm = min(run(path, plain, False) for _ in range(repeat))
            warm_try = min(run(path, tried, True) for _ in range(repeat))
        print(f"{path.name:<22} {cold:7.2f} {cold_try:9.2f} {warm:7.2f} {warm_try:9.2f}")


if __name__ == "__main__":
    main()
