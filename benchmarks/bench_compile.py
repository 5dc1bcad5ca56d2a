"""Compiling many variants: all cores against one, and a warm run of an unchanged kernel.py.

    python benchmarks/bench_compile.py [--variants 8]

Writes a kernel.py declaring one CUDA kernel with `--variants` values of a macro, then prints:
  one compile          the time of a single variant, cold
  k variants, 1 core   the sweep compiled sequentially (cold cache)
  k variants, c cores  the same through the process pool (cold cache), and its ratio to
                       k/c x one compile (1.0 is perfect scaling)
  warm run             `sassview check kernel.py` again, unchanged: nothing compiles
Each measurement uses a fresh cache directory, except the warm run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL = '''
import sassview as sv

SRC = r"""
__global__ void work(const float* __restrict__ in, float* __restrict__ out, int n) {
  float acc[VARIANT % 8 + 8];
#pragma unroll
  for (int i = 0; i < VARIANT % 8 + 8; ++i) acc[i] = in[threadIdx.x + i * 128];
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < VARIANT % 8 + 8; ++i) acc[i] = acc[i] * 1.0001f + acc[(i + 3) % 8];
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < VARIANT % 8 + 8; ++i) s += acc[i];
  out[threadIdx.x] = s;
}
"""
sv.cuda(SRC, arch="sm_90a", variants={"VARIANT": list(range(K))})
'''


def timed(args: list[str], cache: Path) -> float:
    env = {**os.environ, "SASSVIEW_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", type=int, default=8)
    k = ap.parse_args().variants
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        many = root / "many.py"
        many.write_text(KERNEL.replace("K)", f"{k})"))
        one = root / "one.py"
        one.write_text(KERNEL.replace("list(range(K))", "[0]"))
        code = (
            "import sys; from sassview.api import load_kernel_file; "
            "load_kernel_file(sys.argv[1], parallel=sys.argv[2] == '1')"
        )
        py = [sys.executable, "-c", code]
        t_one = timed([*py, str(one), "0"], root / "c1")
        t_seq = timed([*py, str(many), "0"], root / "c2")
        t_par = timed([*py, str(many), "1"], root / "c3")
        t_warm = timed([*py, str(many), "1"], root / "c3")
    ideal = k / cores * t_one
    print(f"{'one compile':<24} {t_one:8.2f} s")
    print(f"{f'{k} variants, 1 core':<24} {t_seq:8.2f} s   ({t_seq / t_one:.1f} x one)")
    ratio = t_par / ideal
    label = f"{k} variants, {cores} cores"
    print(f"{label:<24} {t_par:8.2f} s   (ratio to k/c x one: {ratio:.2f})")
    print(f"{'warm run (cache)':<24} {t_warm:8.2f} s   ({t_warm / t_par:.2f} of the cold run)")


if __name__ == "__main__":
    main()
