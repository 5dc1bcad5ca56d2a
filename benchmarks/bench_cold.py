"""A cold `sassview check` (the source changed, nothing of it cached) beside the bare tools it
stands on: issue 36's goal is at most 1.5x their CPU.

    python benchmarks/bench_cold.py [--repeat 5] [--arch sm_90a] [KERNEL.cu ...]

For each kernel (default examples/matmul/03_register_blocking.cu and 05_wgmma_tma.cu), runs
interleaved, --repeat times each, and prints the median:
  bare tools    the pip wheel's `nvcc -cubin -lineinfo -arch ARCH` then `nvdisasm -g -c` on its
                cubin: the floor (what a kernel author would run by hand)
  nvrtc alone   a Python process compiling the file through NVRTC only (ctypes on the wheel's
                library, sassview's options, its unpacked headers): the compiler without nvcc's
                driver, for reference
  check cold    `sassview check --arch ARCH KERNEL` on a copy whose source differs each run (a
                comment), in a cache kept across runs: the edit-compile-look loop (NVRTC's
                headers are unpacked once, as on a user's machine)
  no cache      the same with SASSVIEW_NO_CACHE=1 (headers unpacked again each run)
  before: cold  with --before DIR: "check cold" of another checkout, interleaved with this one's
and the ratios of the checks to the bare tools.

CPU is user+system of the whole process tree: the child is reaped with os.wait4, whose usage
counts every descendant it waited for (nvcc's cicc/ptxas, nvdisasm, the NVRTC child). Wall is
reported beside it. Bytecode is on, under a private PYTHONPYCACHEPREFIX filled by a first run.
A machine shared with other work only adds noise: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
KERNELS = [
    ROOT / "examples" / "matmul" / "03_register_blocking.cu",
    ROOT / "examples" / "matmul" / "05_wgmma_tma.cu",
]
GOAL = 1.5


def tree_cpu(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(CPU, wall) seconds of `command` and every process it waited for."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{err.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, wall


def tools() -> tuple[str, str]:
    sys.path.insert(0, str(ROOT))
    from sassview.toolchain.locate import nvcc_info, nvdisasm

    path = nvcc_info().path
    assert path is not None
    return path, nvdisasm()


def bare(nvcc: str, nvdis: str, source: Path, arch: str, work: Path) -> list[str]:
    cubin = work / "bare.cubin"
    script = (
        f'"{nvcc}" -cubin -lineinfo -arch={arch} -o "{cubin}" "{source}" && '
        f'"{nvdis}" -g -c "{cubin}" > /dev/null'
    )
    return ["sh", "-c", script]


def edited(source: Path, work: Path, run: int) -> Path:
    """A copy of `source` moved down by lines that differ in number from every earlier run's,
    as an edit above the kernel does: its line table changes, so its cubin does too, and no
    compile, listing or model of it is cached."""
    copy = work / source.name
    copy.write_text(f"// bench_cold run {run}\n" * (run + 2) + source.read_text())
    return copy


def nvrtc_alone(source: Path, arch: str, headers: Path) -> list[str]:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from benchmarks.bench_cold import _nvrtc_main; _nvrtc_main(*sys.argv[2:])"
    )
    return [sys.executable, "-c", code, str(ROOT), str(source), arch, str(headers)]


def _nvrtc_main(source: str, arch: str, headers: str) -> None:
    """NVRTC on `source` through ctypes, with the options sassview's frontend passes."""
    import ctypes

    from sassview.toolchain.locate import nvrtc_info

    path = nvrtc_info().path
    assert path is not None
    lib = ctypes.CDLL(path)
    prog = ctypes.c_void_p()
    text = Path(source).read_bytes()
    lib.nvrtcCreateProgram(ctypes.byref(prog), text, b"k.cu", 0, None, None)
    opts = [
        f"--gpu-architecture={arch}".encode(),
        b"-lineinfo",
        b"--ptxas-options=-v",
        f"--use-bundled-headers={headers}".encode(),
    ]
    argv = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), argv)
    size = ctypes.c_size_t()
    lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
    if rc != 0 or size.value == 0:
        sys.exit(f"nvrtc failed ({rc})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", type=Path, default=KERNELS)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout (e.g. `git worktree add /tmp/old main`): its cold check runs "
        "interleaved with this one's, as 'before', in a cache of its own",
    )
    args = parser.parse_args()
    nvcc, nvdis = tools()
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        work = Path(tmp)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(work / "pyc")}
        env.pop("SASSVIEW_NO_CACHE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cached = {**env, "SASSVIEW_CACHE_DIR": str(work / "cache")}
        off = {**env, "SASSVIEW_NO_CACHE": "1"}
        before = {**cached, "SASSVIEW_CACHE_DIR": str(work / "cache-before")}
        if args.before:
            before["PYTHONPATH"] = str(args.before.resolve())
        check = [sys.executable, "-m", "sassview", "check", "--arch", args.arch]
        for kernel in (k.resolve() for k in args.kernels):
            times: dict[str, list[tuple[float, float]]] = {}
            src = edited(kernel, work, -1)  # bytecode, headers, remembered versions: once
            tree_cpu([*check, str(src)], cached, work)
            if args.before:
                tree_cpu([*check, str(src)], before, work)
            headers = next((work / "cache").glob("v*/scratch/nvrtc-headers"))
            for run in range(args.repeat):
                runs = {
                    "bare tools": (bare(nvcc, nvdis, kernel, args.arch, work), env),
                    "nvrtc alone": (nvrtc_alone(kernel, args.arch, headers), env),
                    "check cold": ([*check, str(edited(kernel, work, run))], cached),
                    "no cache": ([*check, str(edited(kernel, work, run))], off),
                }
                if args.before:
                    runs["before: cold"] = ([*check, str(edited(kernel, work, run))], before)
                for name, (command, run_env) in runs.items():
                    times.setdefault(name, []).append(tree_cpu(command, run_env, work))
            report(kernel, times)
            shutil.rmtree(work / "cache", ignore_errors=True)
            shutil.rmtree(work / "cache-before", ignore_errors=True)


def report(kernel: Path, times: dict[str, list[tuple[float, float]]]) -> None:
    print(f"{kernel.relative_to(ROOT) if kernel.is_relative_to(ROOT) else kernel}")
    med = {
        k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v))
        for k, v in times.items()
    }
    base_cpu, base_wall = med["bare tools"]
    for name, (cpu, wall) in med.items():
        ratio = ""
        if name in ("check cold", "no cache", "before: cold"):
            verdict = "ok" if cpu / base_cpu <= GOAL else f"OVER the {GOAL}x goal"
            ratio = f"  {cpu / base_cpu:4.2f}x CPU, {wall / base_wall:4.2f}x wall  {verdict}"
        print(f"  {name:12} {cpu:6.2f} s CPU  {wall:6.2f} s wall{ratio}")


if __name__ == "__main__":
    main()
