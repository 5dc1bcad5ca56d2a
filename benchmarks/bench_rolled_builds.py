"""The cold cost of the loop census' rolled builds (analyses/loops/rolled.py) on a file that
instantiates a dozen SGEMM-shaped kernels.

    python benchmarks/bench_rolled_builds.py [--kernels 12] [--arch sm_90a] [--compiler nvcc]

Writes a source with one register-tiled SGEMM template (a run-time K loop, load loops, a
constant k loop around a TM x TN nest, the write-out nest; `uint` inductions, no pragmas)
and --kernels explicit instantiations of it, then in a fresh cache, each step in a process
of its own: the first compile (NVRTC, as `sassview check` makes it), the inspection of every
kernel (the census asks the rolled builds there: up to two more NVRTC compiles of the whole
file, odd and even nesting depths rolled, each made only where an entry left open asks for
it), and the same inspection again in a new process (warm: the model and its analyses come
from the cache, no build runs). Prints the seconds of each, the rolled builds' own compile
time (from their log lines) as a ratio of the first compile (the issue's figure), how many
loop claims the census' counting left open (those it asks the rolled builds about: most are
decided by their counts and constant trip counts and never asked) and how many of those the
rolled builds settled; for NVRTC and for nvcc (the whole file through nvcc, as `--compiler
nvcc` builds it: its rolled builds are nvcc compiles in a private directory,
frontends/cuda_rolled_nvcc.py), or the one --compiler names.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

KERNEL = """typedef unsigned int uint;

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
          int N, int K) {
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  const uint threads = (BM / TM) * (BN / TN);
  const uint row = threadIdx.x / (BN / TN), col = threadIdx.x % (BN / TN);
  float acc[TM][TN] = {0.0f};
  for (uint k0 = 0; k0 < K; k0 += BK) {
    for (uint i = threadIdx.x; i < BM * BK; i += threads)
      As[(i % BK) * BM + i / BK] = A[(blockIdx.y * BM + i / BK) * K + k0 + i % BK];
    for (uint i = threadIdx.x; i < BK * BN; i += threads)
      Bs[i] = B[(k0 + i / BN) * N + blockIdx.x * BN + i % BN];
    __syncthreads();
    for (uint k = 0; k < BK; ++k) {
      for (uint m = 0; m < TM; ++m) {
        for (uint n = 0; n < TN; ++n) {
          acc[m][n] += As[k * BM + row * TM + m] * Bs[k * BN + col * TN + n];
        }
      }
    }
    __syncthreads();
  }
  for (uint m = 0; m < TM; ++m)
    for (uint n = 0; n < TN; ++n)
      C[(blockIdx.y * BM + row * TM + m) * N + blockIdx.x * BN + col * TN + n] = acc[m][n];
}
"""
CONFIGS = [
    (bm, bn, bk, tm, tn)
    for bm, bn in ((64, 64), (128, 128), (128, 64))
    for bk, tm, tn in ((8, 8, 8), (8, 4, 4), (16, 8, 4), (16, 4, 8))
]


def source(kernels: int) -> str:
    lines = [KERNEL]
    for bm, bn, bk, tm, tn in CONFIGS[:kernels]:
        lines.append(
            f"template __global__ void sgemm<{bm}, {bn}, {bk}, {tm}, {tn}>"
            "(const float*, const float*, float*, int, int);"
        )
    return "\n".join(lines) + "\n"


def step(path: str, arch: str, what: str, compiler: str) -> dict[str, float]:
    """One step in this process (`--step`): the first compile, or every kernel inspected."""
    import logging

    import sassview
    from sassview.analyses.loops import census
    from sassview.inspection import inspect_program

    spent: list[float] = []
    left_open: list[int] = []  # per kernel: the entries the census asked the rolled builds
    asks = census.open_entries

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = asks(*args, **kwargs)
        left_open.append(len(found))
        return found

    census.open_entries = counted  # type: ignore[assignment]

    class Rolled(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            msg = record.getMessage()
            if msg.startswith("rolled build: compiled"):
                spent.append(float(msg.rsplit(" in ", 1)[1].split()[0]))

    logging.getLogger("sassview").addHandler(Rolled())
    logging.getLogger("sassview").setLevel(logging.INFO)
    started = time.perf_counter()
    program = sassview.compile(path=path, arch=arch, compiler=compiler)
    compiled = time.perf_counter() - started
    if what == "compile":
        return {"seconds": compiled}
    if what == "inspect-alone":  # the census without its rolled builds: the baseline
        from sassview.analyses.loops import rolled

        rolled.build_variant = lambda art, parity, flips: None
    started = time.perf_counter()
    inspections = inspect_program(program)
    seconds = time.perf_counter() - started
    settled = sum(
        1
        for insp in inspections
        for e in insp.facts("unroll")["entries"]
        if e.decided_by == "rolled build"
    )
    entries = sum(len(insp.facts("unroll")["entries"]) for insp in inspections)
    return {
        "seconds": seconds,
        "rolled": sum(spent),
        "builds": len(spent),
        "settled": settled,
        "open": sum(left_open),
        "entries": entries,
    }


def run(path: Path, arch: str, what: str, cache: str, compiler: str) -> dict[str, float]:
    argv = [sys.executable, __file__, "--step", what, "--path", str(path), "--arch", arch]
    argv += ["--compiler", compiler]
    env = {**os.environ, "SASSVIEW_CACHE_DIR": cache}
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout
    found: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", type=int, default=12)
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--compiler", choices=("nvrtc", "nvcc"), help="one of them only")
    ap.add_argument("--step", help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.step:
        print(json.dumps(step(args.path, args.arch, args.step, args.compiler)))
        return
    for compiler in (args.compiler,) if args.compiler else ("nvrtc", "nvcc"):
        measure(args.kernels, args.arch, compiler)


def measure(kernels: int, arch: str, compiler: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sgemm_runner.cu"
        path.write_text(source(kernels))
        cache = str(Path(tmp) / "cache")
        first = run(path, arch, "compile", cache, compiler)
        cold = run(path, arch, "inspect", cache, compiler)
        warm = run(path, arch, "inspect", cache, compiler)
        alone = str(Path(tmp) / "cache-alone")
        run(path, arch, "compile", alone, compiler)
        base = run(path, arch, "inspect-alone", alone, compiler)
    print(f"{kernels} SGEMM-shaped kernels, {arch}, {compiler}, a fresh cache")
    print(f"  first compile ({compiler:5})        {first['seconds']:8.2f} s")
    print(f"  cold inspection                {cold['seconds']:8.2f} s")
    print(f"    of it the rolled builds ({cold['builds']:.0f})  {cold['rolled']:8.2f} s")
    print(f"  cold inspection, none asked    {base['seconds']:8.2f} s")
    extra = cold["seconds"] - base["seconds"]
    print(f"  rolled builds / first compile  {cold['rolled'] / first['seconds']:8.2f}")
    print(
        f"  extra cold cost / first compile {extra / first['seconds']:7.2f} (builds + their models)"
    )
    print(f"  warm inspection (new process)  {warm['seconds']:8.3f} s")
    print(f"    rolled builds run warm       {warm['rolled']:8.2f} s")
    print(f"  loop claims left open          {cold['open']:.0f} of {cold['entries']:.0f}")
    print(f"    settled by the rolled builds {cold['settled']:.0f} of {cold['open']:.0f}")


if __name__ == "__main__":
    main()
