"""What bounding the tools costs: a compile in a forked child against one in-process, the
check of nvdisasm's listings against the disassembly it guards, and a cached run with and
without the remembered tool versions.

    python benchmarks/bench_child.py [--repeat 10]

Prints, each as a median over --repeat runs and a ratio:
  nvrtc in-process     nvrtc_api._compile (the bare NVRTC call), examples/vecadd.cu
  nvrtc in a child     nvrtc_api.nvrtc_compile (fork, compile, pickle back)
  an empty child       call_in_child(int): the fork and exit alone
  listing check        disasm.nvdisasm.check_listings on the largest corpus cubin's listings
  disassembly          nvdisasm on that cubin (both runs, uncached)
  cached check         `sassview check vecadd.cu`, warm cache, the wheel's tools (versions
                       remembered) against SASSVIEW_NVDISASM/CUOBJDUMP set to the same tools
                       (an override is probed on every run)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[1]
VECADD = ROOT / "examples" / "vecadd.cu"


def median_s(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def show(name: str, seconds: float, base: float | None = None) -> None:
    ratio = f"  x{seconds / base:.3f}" if base else ""
    print(f"{name:<22} {seconds * 1000:9.2f} ms{ratio}")


def compiles(repeat: int) -> None:
    from sassview.frontends.cuda import compile_options
    from sassview.frontends.nvrtc_api import _compile, nvrtc_compile

    source = VECADD.read_bytes()
    options = compile_options("sm_90a", [], [], [])
    _compile(source, str(VECADD), options)  # load NVRTC, unpack its headers
    here = median_s(lambda: _compile(source, str(VECADD), options), repeat)
    child = median_s(lambda: nvrtc_compile(source, str(VECADD), options), repeat)
    from sassview.toolchain.child import call_in_child

    empty = median_s(lambda: call_in_child(int, what="nothing", timeout=60), repeat)
    show("nvrtc in-process", here)
    show("nvrtc in a child", child, here)
    show("an empty child", empty, here)


def listings(repeat: int) -> None:
    from sassview import cache
    from sassview.disasm.nvdisasm import check_listings, disassemble

    cubin_path = max((ROOT / "tests" / "corpus").rglob("*.cubin"), key=lambda p: p.stat().st_size)
    cubin = cubin_path.read_bytes()
    os.environ["SASSVIEW_NO_CACHE"] = "1"
    assert not cache.enabled()
    found = disassemble(cubin, json=True)  # both forms: check_listings reads both
    took = median_s(lambda: disassemble(cubin), max(3, repeat // 3))
    check = median_s(lambda: check_listings(found.json, found.text, []), repeat)
    del os.environ["SASSVIEW_NO_CACHE"]
    print(f"({cubin_path.relative_to(ROOT)}, {len(cubin)} bytes)")
    show("disassembly", took)
    show("listing check", check, took)


def cached_runs(repeat: int) -> None:
    from sassview.toolchain.locate import cuobjdump, nvdisasm

    args = [sys.executable, "-m", "sassview", "check", str(VECADD)]
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SASSVIEW_CACHE_DIR": tmp}
        subprocess.run(args, check=True, capture_output=True, env=env)  # warm it
        remembered = median_s(
            lambda: subprocess.run(args, check=True, capture_output=True, env=env), repeat
        )
        probed_env = {**env, "SASSVIEW_NVDISASM": nvdisasm(), "SASSVIEW_CUOBJDUMP": cuobjdump()}
        probed = median_s(
            lambda: subprocess.run(args, check=True, capture_output=True, env=probed_env), repeat
        )
    show("cached check, probed", probed)
    show("cached check, remembered", remembered, probed)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    repeat = ap.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SASSVIEW_CACHE_DIR"] = tmp
        compiles(repeat)
        listings(repeat)
    cached_runs(repeat)


if __name__ == "__main__":
    main()
