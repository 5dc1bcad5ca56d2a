"""The long fuzz campaign: millions of mutated real inputs through every reader.

    python tests/fuzz/campaign.py --inputs 1200000 [--workers 2] [--seed 1]

Each crash (any exception but sassview's ParseError/SassviewError) is written to
tests/fuzz/regressions/<reader>/<sha1> so the pytest suite replays it forever after, and listed
at the end. Prints, per reader, inputs run, crashes found and inputs per second.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from fuzz.mutate import mutate, seeds  # noqa: E402
from fuzz.targets import TARGETS  # noqa: E402

from sassview.errors import SassviewError  # noqa: E402

REGRESSIONS = Path(__file__).parent / "regressions"
MAX_SEED_BYTES = 16_000  # mutants of big files cost more without finding more
# How the inputs are split: fast readers get more, so a million inputs take minutes, not hours.
SHARES = {
    "sass-json": 30, "ptxas-log": 30, "sass-json-lineinfo": 20, "ptx": 10, "elf": 6,
    "sass-text": 3, "cuobjdump-text": 3, "filecheck": 6, "mlir": 3, "cache-entry": 3,
}  # fmt: skip


def _run(args: tuple[str, int, int]) -> tuple[str, int, list[tuple[str, str]], float]:
    name, count, seed = args
    pattern, reader = TARGETS[name]
    inputs = [s for s in seeds(pattern) if len(s) <= MAX_SEED_BYTES] or seeds(pattern)[:1]
    rng = random.Random(seed)
    crashes: list[tuple[str, str]] = []
    start = time.perf_counter()
    for _ in range(count):
        data = mutate(rng.choice(inputs), rng)
        try:
            reader(data)
        except SassviewError:
            pass
        except Exception as exc:  # noqa: BLE001 - a crash is what we are looking for
            digest = hashlib.sha1(data).hexdigest()[:16]
            out = REGRESSIONS / name / digest
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
            where = traceback.extract_tb(exc.__traceback__)[-1]
            crashes.append(
                (digest, f"{type(exc).__name__}: {exc} at {where.filename}:{where.lineno}")
            )
    return name, count, crashes, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", type=int, default=1_200_000, help="in all, split over readers")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=20_000)
    ap.add_argument("--only", action="append", help="fuzz only this reader (repeatable)")
    args = ap.parse_args()
    share = sum(SHARES.values())
    work = []
    for i, name in enumerate(sorted(TARGETS)):
        if args.only and name not in args.only:
            continue
        per_reader = args.inputs * SHARES.get(name, 1) // share
        for c in range(0, per_reader, args.chunk):
            work.append(
                (name, min(args.chunk, per_reader - c), args.seed * 1_000_003 + i * 7919 + c)
            )
    totals: dict[str, list[float]] = {n: [0, 0, 0.0] for n in TARGETS}
    found: list[tuple[str, str, str]] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for name, count, crashes, seconds in pool.map(_run, work):
            totals[name][0] += count
            totals[name][1] += len(crashes)
            totals[name][2] += seconds
            found += [(name, d, m) for d, m in crashes]
            done = sum(int(t[0]) for t in totals.values())
            print(f"... {done} inputs, {len(found)} crashes ({name})", flush=True)
    print(f"{'reader':<20} {'inputs':>10} {'crashes':>8} {'inputs/s':>9}")
    for name in sorted(n for n in totals if totals[n][0]):
        n, c, s = totals[name]
        print(f"{name:<20} {int(n):>10} {int(c):>8} {n / s if s else 0:>9.0f}")
    print(f"{'total':<20} {sum(int(t[0]) for t in totals.values()):>10} {len(found):>8}")
    for name, digest, message in found[:50]:
        print(f"  {name}/{digest}: {message}")


if __name__ == "__main__":
    main()
