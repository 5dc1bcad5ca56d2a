"""How long sassview's register liveness takes next to nvdisasm's own, on one huge kernel.

    python benchmarks/bench_liveness.py [--steps 32768] [--repeat 3] [--up]

It generates one kernel of straight-line code, --steps statements `acc = fmaf(acc, p[t + K], c)`
over eight accumulators (one LDG and one FFMA each: about 2 x steps SASS instructions, so 65k
for the default), compiles it for sm_90a through sassview's cache (benchmarks/.cache: only the
first run compiles, and ptxas needs ~20 minutes for this one), and prints:
  nvdisasm      wall time of `nvdisasm -c -plr -lrm count` on the cubin (its own liveness;
                about 12 minutes at 65k instructions: it grows faster than linearly)
  cfg           sassview.graph.cfg.build_cfg, for reference
  cold / warm   compute_liveness with an empty per-instruction cache, then again; best of
                --repeat, wall and CPU time (the CPU time is what to read on a busy machine).
                The ratio to nvdisasm is the headline.
  agree         whether every GPR/PRED/UGPR/UPRED count equals nvdisasm's
Then the growth: our time on the same kernel at half the statements (--up: at twice them, which
takes ptxas an hour or more to compile); a ratio near 2 across the doubling means linear growth.
nvdisasm is not run on that second size.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))


def source(steps: int) -> str:
    body = "\n".join(
        f"  acc{i % 8} = fmaf(acc{i % 8}, p[t + {i * 33}], {1.0 + i * 1e-3:.4f}f);"
        for i in range(steps)
    )
    return (
        "__global__ void big(const float* __restrict__ p, float* out) {\n"
        "  const int t = threadIdx.x;\n"
        "  float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0, acc4 = 0, acc5 = 0, acc6 = 0, acc7 = 0;\n"
        f"{body}\n"
        "  out[t] = acc0 + acc1 + acc2 + acc3 + acc4 + acc5 + acc6 + acc7;\n"
        "}\n"
    )


def plr_counts(text: str) -> dict[int, dict[str, int]]:
    """address -> {file: count} from nvdisasm -plr -lrm count (one function)."""
    files: list[str] = []
    rows: dict[int, dict[str, int]] = {}
    for line in text.splitlines():
        if not files and re.search(r"//\s*\|\s*GPR\b", line):
            files = [c.strip() for c in line.split("//", 1)[1].strip().strip("|").split("|")]
            continue
        m = re.match(r"^\s*/\*([0-9a-f]{4,})\*/.*?//\s*(\|.*\|)\s*$", line)
        if m and files:
            cells = m.group(2).strip("|").split("|")
            rows[int(m.group(1), 16)] = {
                f: int(c) if c.strip() else 0 for f, c in zip(files, cells, strict=True)
            }
    return rows


def measure(steps: int, repeat: int, *, against_nvdisasm: bool = True) -> dict[str, float]:
    from sassview.api import from_artifacts
    from sassview.frontends.cuda import compile_cuda
    from sassview.graph import dataflow
    from sassview.graph.cfg import build_cfg
    from sassview.toolchain.locate import nvdisasm

    print(f"compiling {steps} statements (cached after the first run) ...", flush=True)
    started = time.perf_counter()
    artifacts = compile_cuda(source(steps), arch="sm_90a")
    print(f"  ready in {time.perf_counter() - started:.1f} s", flush=True)
    kernel = from_artifacts(artifacts).kernels[0]
    instructions = kernel.instructions
    started = time.perf_counter()
    cfg = build_cfg(instructions)
    cfg_time = time.perf_counter() - started
    walls: dict[str, list[float]] = {"cold": [], "warm": []}
    cpus: dict[str, list[float]] = {"cold": [], "warm": []}
    for _ in range(repeat):
        dataflow._effects_cache.clear()
        dataflow._kept.clear()
        for phase in ("cold", "warm"):
            wall, cpu = time.perf_counter(), time.process_time()
            live = dataflow.compute_liveness(
                instructions, cfg, registers=kernel.resources.registers
            )
            walls[phase].append(time.perf_counter() - wall)
            cpus[phase].append(time.process_time() - cpu)
    cold, warm = min(walls["cold"]), min(walls["warm"])
    print(
        f"  {len(instructions)} instructions, {len(cfg.blocks)} blocks, peak {live.peak} GPRs\n"
        f"  cfg {cfg_time:.3f} s | liveness cold {cold:.3f} s (cpu {min(cpus['cold']):.3f} s),"
        f" warm {warm:.3f} s (cpu {min(cpus['warm']):.3f} s)",
        flush=True,
    )
    result = {"instructions": len(instructions), "cold": cold, "cold_cpu": min(cpus["cold"])}
    if not against_nvdisasm:
        return result
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "big.cubin"
        cubin.write_bytes(artifacts.cubin)
        print("  running nvdisasm -c -plr -lrm count (minutes) ...", flush=True)
        started = time.perf_counter()
        listing = subprocess.run(
            [nvdisasm(), "-c", "-plr", "-lrm", "count", str(cubin)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        tool = time.perf_counter() - started
    expected = plr_counts(listing)
    agree = all(
        live.counts[f][i] == expected[ins.address].get(f, 0)
        for i, ins in enumerate(instructions)
        if ins.address in expected
        for f in ("GPR", "PRED", "UGPR", "UPRED")
    )
    print(
        f"  nvdisasm -plr {tool:.1f} s | ratio liveness cold / nvdisasm {cold / tool:.4f}"
        f" | counts agree with nvdisasm: {agree}",
        flush=True,
    )
    return {**result, "nvdisasm": tool, "agree": float(agree)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=32768)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--up", action="store_true", help="growth at 2x the statements, not 0.5x")
    args = parser.parse_args()
    main_run = measure(args.steps, args.repeat)
    other_steps = 2 * args.steps if args.up else args.steps // 2
    other = measure(other_steps, args.repeat, against_nvdisasm=False)
    small, big = sorted((main_run, other), key=lambda r: r["instructions"])
    size = big["instructions"] / small["instructions"]
    wall, cpu = big["cold"] / small["cold"], big["cold_cpu"] / small["cold_cpu"]
    print(f"growth: {size:.2f}x the instructions took {wall:.2f}x the time (cold; cpu {cpu:.2f}x)")
    if not main_run["agree"]:
        raise SystemExit("liveness disagrees with nvdisasm -plr")


if __name__ == "__main__":
    main()
