"""Compiling many variants: all cores against one, and a warm run of an unchanged kernel.py;
nvcc against NVRTC on one device-only file.

    python benchmarks/bench_compile.py [--variants 8] [--part variants|nvcc|all] [--repeat 5]

Writes a kernel.py declaring one CUDA kernel with `--variants` values of a macro, then prints:
  one compile          the time of a single variant, cold
  k variants, 1 core   the sweep compiled sequentially (cold cache)
  k variants, c cores  the same through the process pool (cold cache), and its ratio to
                       k/c x one compile (1.0 is perfect scaling)
  warm run             `sassview check kernel.py` again, unchanged: nothing compiles
Each measurement uses a fresh cache directory, except the warm run.

--part nvcc compiles tests/corpus/sources/device_only.cu (compile_cuda only: no disassembly),
each compiler once first to load its libraries and page in its headers, then best of --repeat
with a fresh cache directory each time:
  nvrtc cold / nvcc cold  and their ratio (goal: nvcc <= 1.5x NVRTC)
  nvcc -cubin alone       the bare command, no -keep: what keeping the PTX and the device-side
                          preprocessing (the list of files that went in) costs, with the rest
                          of sassview's work around the run (digests of every input)
  nvcc -ptx as 2nd run    what a second run for the PTX would have cost instead of -keep
  warm check              `sassview check` of an unchanged whole program and of the device-only
                          file through NVRTC, cache filled: neither runs a compiler
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


ROOT = Path(__file__).resolve().parents[1]
DEVICE_ONLY = ROOT / "tests" / "corpus" / "sources" / "device_only.cu"
WHOLE = ROOT / "tests" / "corpus" / "sources" / "whole_program.cu"


def best(repeat: int, run: Callable[[], object]) -> float:
    return min(measure(repeat, run))


def measure(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """Best wall time and best CPU time (this process and its children) of `run`: on a
    shared machine the CPU time says more than the wall clock."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = _cpu()
        start = time.perf_counter()
        run()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - before)
    return min(walls), min(cpus)


def _cpu() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def nvcc_against_nvrtc(repeat: int) -> None:
    from sassview.api import BuildOptions
    from sassview.frontends.cuda import compile_cuda
    from sassview.toolchain.locate import host_compiler, nvcc_info

    # One cache root whose entries are removed before each run: NVRTC's bundled headers,
    # unpacked once per cache root, stay (a user pays that once, not per compile).
    root = Path(tempfile.mkdtemp(prefix="bench-nvcc-"))
    os.environ["SASSVIEW_CACHE_DIR"] = str(root)

    from sassview.cache.layout import SCRATCH

    def cold(compiler: str) -> Callable[[], object]:
        def run() -> object:
            # Every store goes, the scratch directory (NVRTC's unpacked headers) stays: removing
            # all of v*/ made each "cold" NVRTC compile unpack its headers again (4x its CPU).
            for store in root.glob("v*/*"):
                if store.name != SCRATCH:
                    shutil.rmtree(store) if store.is_dir() else store.unlink()
            return compile_cuda(path=DEVICE_ONLY, build=BuildOptions(compiler=compiler))

        return run

    for warm_up in ("nvrtc", "nvcc"):
        cold(warm_up)()
    t_nvrtc, cpu_nvrtc = measure(repeat, cold("nvrtc"))
    t_nvcc, cpu_nvcc = measure(repeat, cold("nvcc"))
    host = host_compiler()
    assert host is not None
    nvcc = [str(nvcc_info().path), "-arch=sm_90a", "-lineinfo", "-ccbin", host.path]
    with tempfile.TemporaryDirectory() as tmp:
        bare = [*nvcc, "-cubin", "-Xptxas", "-v", "-o", f"{tmp}/k.cubin", str(DEVICE_ONLY)]
        ptx = [*nvcc, "-ptx", "-o", f"{tmp}/k.ptx", str(DEVICE_ONLY)]
        t_bare = best(repeat, lambda: subprocess.run(bare, check=True, capture_output=True))
        t_ptx = best(repeat, lambda: subprocess.run(ptx, check=True, capture_output=True))
        cache = Path(tmp) / "cache"
        check = [sys.executable, "-m", "sassview", "check"]
        for path in (WHOLE, DEVICE_ONLY):
            timed([*check, str(path)], cache)
        t_warm_whole = best(repeat, lambda: timed([*check, str(WHOLE)], cache))
        t_warm_device = best(repeat, lambda: timed([*check, str(DEVICE_ONLY)], cache))
    shutil.rmtree(root)
    ratio, cpu_ratio = t_nvcc / t_nvrtc, cpu_nvcc / cpu_nvrtc
    print(f"{'nvrtc cold':<24} {t_nvrtc:8.3f} s   (CPU {cpu_nvrtc:.3f} s)")
    print(
        f"{'nvcc cold':<24} {t_nvcc:8.3f} s   (CPU {cpu_nvcc:.3f} s; {ratio:.2f} x NVRTC, "
        f"CPU {cpu_ratio:.2f} x; goal <= 1.5)"
    )
    print(f"{'nvcc -cubin alone':<24} {t_bare:8.3f} s   (sassview's run: {t_nvcc - t_bare:+.3f} s)")
    print(f"{'nvcc -ptx as 2nd run':<24} {t_ptx:8.3f} s   (what -keep saves)")
    print(f"{'warm check, nvcc':<24} {t_warm_whole:8.3f} s   (whole program, no compiler runs)")
    print(f"{'warm check, nvrtc':<24} {t_warm_device:8.3f} s   (device-only file)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", type=int, default=8)
    ap.add_argument("--part", choices=["variants", "nvcc", "all"], default="all")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if args.part in ("nvcc", "all"):
        nvcc_against_nvrtc(args.repeat)
    if args.part in ("variants", "all"):
        variants(args.variants)


def variants(k: int) -> None:
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
