"""All analyses together (CFG, loops, liveness, every annotation) against nvdisasm's own time.

    python benchmarks/bench_analyses.py [--sizes 32768,65536,131072] [--repeat 3]

For generated cubins of about the given SASS instruction counts (see bench_parse.py), prints,
best of --repeat: nvdisasm's wall time (the two runs sassview makes, in parallel), the time of
`inspect_program` over the already-built model with the analyses' memo tables emptied before
each run (as the one run of a `sassview check` process: the headline), their ratio (goal:
<= 0.25 at 65k), the same two in CPU time (nvdisasm's: its child processes' user + system;
the figure to compare on a shared machine, where wall times are noisy), the same run with
the memos kept from the run before (`warm`, as a TUI re-inspecting), the part taken by
liveness, and time per instruction (flat means linear).
Each size is measured in a process of its own. A growth line compares each size with the
next (goal: 2x the instructions cost at most 2x the time). A second table splits the
analysis time by stage (the steps of `inspect_kernel`: CFG, loops, liveness, then each
registered analysis), each best of --repeat, memos emptied before each, in CPU seconds. The
warp model the coalescing and bank-conflict analyses read (built, and the global accesses
measured on it, by whichever analysis asks first: `memory` does) is a stage of its own,
`warp model`, run before the analyses, after `accesses` (the memory instructions classified,
which every memory analysis reads). A line after it gives coalescing + bank conflicts +
that model against nvdisasm's CPU time (goal: <= 0.1 at 65k, issue #18). A stage's result is
dropped at once, so a column adds up to less than `analyses s`, which keeps every kernel's
results (and frees the previous run's inside its timing).
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
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
sys.path.insert(0, str(HERE))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="32768,65536,131072")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # measure one size, print JSON
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.repeat)))
        return
    rows = []
    per_stage: list[dict[str, float]] = []
    for target in (int(s) for s in args.sizes.split(",")):
        # Each size in a process of its own, as each `sassview check` is: a process that has
        # built and dropped smaller programs before runs the next one measurably slower
        # (allocator and cache state), which read as growth that is not the analyses'.
        one = [sys.executable, __file__, "--one", str(target), "--repeat", str(args.repeat)]
        found = json.loads(subprocess.run(one, check=True, capture_output=True).stdout)
        rows.append(tuple(found["row"]))
        per_stage.append(found["stages"])

    heads = ["instructions", "nvdisasm s", "analyses s", "ratio", "nvd cpu", "an. cpu"]
    heads += ["cpu ratio", "warm s", "liveness s", "us/instr"]
    widths = (12, 10, 10, 6, 7, 7, 9, 7, 10, 9)
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)))
    for count, disasm_s, analyses_s, warm_s, live_s, disasm_cpu, analyses_cpu in rows:
        print(
            f"{count:>12} {disasm_s:>10.3f} {analyses_s:>10.3f} {analyses_s / disasm_s:>6.2f} "
            f"{disasm_cpu:>7.3f} {analyses_cpu:>7.3f} {analyses_cpu / disasm_cpu:>9.2f} "
            f"{warm_s:>7.3f} {live_s:>10.3f} {analyses_s / count * 1e6:>9.1f}"
        )
    for (c0, _, a0, *_), (c1, _, a1, *_) in zip(rows, rows[1:], strict=False):
        print(f"growth: {c1 / c0:.1f}x the instructions cost {a1 / a0:.2f}x the analysis time")
    print()
    print(f"{'stage cpu s':>12}" + "".join(f" {count:>9}" for count, *_ in rows))
    for name in per_stage[0]:
        print(f"{name:>12}" + "".join(f" {times[name]:>9.3f}" for times in per_stage))
    for (count, *_, disasm_cpu, _), times in zip(rows, per_stage, strict=True):
        warp = sum(times[name] for name in WARP_STAGES)
        print(
            f"{count} instructions: coalescing + bank conflicts + warp model {warp:.3f} s CPU"
            f" = {warp / disasm_cpu:.3f} of nvdisasm's {disasm_cpu:.3f} s CPU (goal <= 0.1)"
        )


# The stages issue #18's goal counts: the warp model with the global accesses measured on it,
# and the two analyses that read it.
WARP_STAGES = ("warp model", "coalescing", "bank_conflicts")


def measure(target: int, repeat: int) -> dict[str, Any]:
    """One size: the row of the first table and the column of the second."""
    from bench_parse import INSTRUCTIONS_PER_STEP, best, children_cpu, nvdisasm_both, source

    from sassview.build import assemble_program
    from sassview.frontends.cuda import compile_cuda
    from sassview.graph.cfg import build_cfg
    from sassview.graph.dataflow import compute_liveness
    from sassview.inspection import inspect_program
    from sassview.memo import forget_all
    from sassview.toolchain.locate import nvdisasm

    art = compile_cuda(source(int(target / INSTRUCTIONS_PER_STEP)), arch="sm_90a")
    program = assemble_program(art)  # not the cached model: its analyses would be cached too
    count = sum(len(k.instructions) for k in program.kernels)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(art.cubin)
        f.flush()
        disasm_s = best(lambda: nvdisasm_both(nvdisasm(), f.name), repeat)
        disasm_cpu = children_cpu(lambda: nvdisasm_both(nvdisasm(), f.name), repeat)
    inspect_program(program)  # warm imports (networkx) out of the measurement
    analyses_s = best(lambda: inspect_program(program), repeat, forget_all)
    analyses_cpu = best(lambda: inspect_program(program), repeat, forget_all, time.process_time)
    warm_s = best(lambda: inspect_program(program), repeat)

    def liveness_only() -> None:
        for k in program.kernels:
            compute_liveness(k.instructions, build_cfg(k.instructions))

    live_s = best(liveness_only, repeat)
    return {
        "row": (count, disasm_s, analyses_s, warm_s, live_s, disasm_cpu, analyses_cpu),
        "stages": stage_times(program, repeat),
    }


def stage_times(program, repeat: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """CPU seconds per step of inspect_kernel over every kernel, each the best of `repeat`
    runs (the register effects computed first, untimed, as inspect_program does for the
    register columns)."""
    import importlib

    from sassview.analyses import REGISTRY
    from sassview.analyses.base import AnalysisContext
    from sassview.analyses.coalescing import global_accesses
    from sassview.analyses.memory import kernel_accesses
    from sassview.gcpause import without_gc
    from sassview.graph.cfg import build_cfg
    from sassview.graph.dataflow import compute_liveness, instruction_effects, register_columns
    from sassview.graph.loops import find_loops
    from sassview.memo import forget_all

    modules = {name: importlib.import_module(m) for name, m in REGISTRY.items()}
    clock = time.process_time

    @without_gc  # as inspect_kernel runs them
    def kernel(k, effects, times: dict[str, float]) -> None:  # type: ignore[no-untyped-def]
        start = clock()
        cfg = build_cfg(k.instructions)
        times["cfg"] += clock() - start
        start = clock()
        loops = find_loops(cfg, k.instructions)
        times["loops"] += clock() - start
        start = clock()
        live = compute_liveness(
            k.instructions, cfg, registers=k.resources.registers, columns=columns, effects=effects
        )
        times["liveness"] += clock() - start
        ctx = AnalysisContext(program, k, cfg, loops, live, effects=effects)
        start = clock()
        ctx.shared(kernel_accesses)  # the memory accesses every memory analysis reads
        times["accesses"] += clock() - start
        start = clock()
        global_accesses(ctx)  # the warp model, built and read by the first to ask
        times["warp model"] += clock() - start
        for name, module in modules.items():
            start = clock()
            module.run(ctx)
            times[name] += clock() - start

    found: dict[str, float] = {}
    for _ in range(repeat):
        forget_all()
        effects = [instruction_effects(k.instructions) for k in program.kernels]
        columns = register_columns(
            (k.instructions, k.resources.registers, e)
            for k, e in zip(program.kernels, effects, strict=True)
        )
        stages = ["cfg", "loops", "liveness", "accesses", "warp model", *modules]
        times = dict.fromkeys(stages, 0.0)
        for k, e in zip(program.kernels, effects, strict=True):
            kernel(k, e, times)
        for name, t in times.items():
            found[name] = min(found.get(name, t), t)
    return found


if __name__ == "__main__":
    main()
