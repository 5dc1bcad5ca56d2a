"""What verifying a cache entry's digests costs, next to parsing what it holds.

    python benchmarks/bench_cache.py [--steps 512,4096,16384] [--repeat 5]

For generated kernels of about 0.5k, 4k and 16k SASS instructions (one unrolled loop each), the
disassembly entry (nvdisasm's JSON and text listings) is written to a fresh store and read back.
Best of --repeat runs, with the files in the page cache (as on a warm machine):
  MB           the entry's size
  read         reading the files only: what a size-checked read cost before format 2
  get          Store.get: read, SHA-256 and UTF-8 check of every file
  verify       get - read: the price of the digests
  parse        what follows a hit: read_line_info on the text, parse_sass_json on the JSON
  verify/parse the goal is a few per cent
Compiles go through sassview's cache under benchmarks/.cache, so a rerun compiles nothing.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))


def kernel_source(steps: int) -> str:
    body = "\n".join(
        f"  acc{i % 8} = fmaf(acc{i % 8}, p[t + {i * 33}], {1.0 + i * 1e-3:.4f}f);"
        for i in range(steps)
    )
    return (
        "__global__ void k(const float* __restrict__ p, float* out) {\n"
        "  const int t = threadIdx.x;\n"
        "  float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0, acc4 = 0, acc5 = 0, acc6 = 0, acc7 = 0;\n"
        f"{body}\n"
        "  out[t] = acc0 + acc1 + acc2 + acc3 + acc4 + acc5 + acc6 + acc7;\n"
        "}\n"
    )


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(steps: int, repeat: int) -> tuple[float, float, float, float]:
    """(MB, read s, get s, parse s) for the disassembly entry of a `steps`-step kernel."""
    from sassview import cache
    from sassview.disasm.nvdisasm import disassemble
    from sassview.frontends.cuda import compile_cuda
    from sassview.parse.sass_json import parse_sass_json
    from sassview.parse.sass_text import read_line_info

    listing = disassemble(compile_cuda(kernel_source(steps), arch="sm_90a").cubin, json=True)
    files = {"sass.json": listing.json, "sass.txt": listing.text}
    with tempfile.TemporaryDirectory() as tmp:
        store = cache.Store("bench", Path(tmp))
        key = cache.make_key({"steps": steps})
        entry = store.put(key, files)
        assert entry is not None
        paths = [entry.path / n for n in files]
        read = best(lambda: [p.read_bytes() for p in paths], repeat)
        get = best(lambda: store.get(key), repeat)
    parse = best(
        lambda: parse_sass_json(listing.json, line_info=read_line_info(listing.text)), repeat
    )
    return sum(len(v.encode()) for v in files.values()) / 1e6, read, get, parse


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", default="512,4096,16384")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(
        f"{'steps':>6} {'MB':>6} {'read':>8} {'get':>8} {'verify':>8} {'parse':>8} {'v/parse':>8}"
    )
    for steps in map(int, args.steps.split(",")):
        size, read, get, parse = measure(steps, args.repeat)
        verify = max(get - read, 0.0)
        print(
            f"{steps:>6} {size:>6.1f} {read * 1e3:>6.2f}ms {get * 1e3:>6.2f}ms"
            f" {verify * 1e3:>6.2f}ms {parse * 1e3:>6.1f}ms {verify / parse:>8.3f}"
        )


if __name__ == "__main__":
    main()
