"""The coalescing and bank-conflict analyses with the warp model they need, at one size.

    python benchmarks/bench_coalescing.py [--size 65536] [--repeat 3] [--profile]

Builds the generated program of bench_analyses.py (its compile cached in benchmarks/.cache),
then per kernel, memos emptied before each run, times in CPU (time.process_time) and wall:
the kernel's memory accesses (shared with memory_width), the warp model with the global
accesses measured (`coalescing.global_accesses`: what the "memory" stage of bench_analyses
pays first), the rest of the coalescing analysis (its findings), and the bank-conflict
analysis. `--profile` runs the same once under cProfile and prints the top of it.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
sys.path.insert(0, str(HERE))


def build(target: int) -> Any:
    from bench_parse import INSTRUCTIONS_PER_STEP, source

    from sassview.build import assemble_program
    from sassview.frontends.cuda import compile_cuda

    art = compile_cuda(source(int(target / INSTRUCTIONS_PER_STEP)), arch="sm_90a")
    return assemble_program(art)


def context(program: Any, k: Any) -> tuple[Any, ...]:
    """What inspect_kernel gives the analyses (its CFG, loops, liveness: not timed here, but
    run first, as they fill the register-effect memo the model reads too)."""
    from sassview.graph.cfg import build_cfg
    from sassview.graph.dataflow import compute_liveness, instruction_effects
    from sassview.graph.loops import find_loops

    cfg = build_cfg(k.instructions)
    loops = tuple(find_loops(cfg, k.instructions))
    effects = instruction_effects(k.instructions)
    live = compute_liveness(k.instructions, cfg, effects=effects)
    return (program, k, cfg, loops, live, effects)


def one_run(program: Any) -> dict[str, tuple[float, float]]:
    """(CPU s, wall s) per step, summed over the kernels, memos emptied first."""
    from sassview.analyses import bank_conflicts, coalescing
    from sassview.analyses.base import AnalysisContext
    from sassview.analyses.memory import kernel_accesses
    from sassview.gcpause import without_gc
    from sassview.memo import forget_all

    forget_all()
    times = dict.fromkeys(["accesses", "model+measure", "coalescing rest", "bank_conflicts"])
    sums = {name: [0.0, 0.0] for name in times}

    @without_gc
    def kernel(k: Any) -> None:
        *args, effects = context(program, k)
        # A tree from before AnalysisContext.effects (to compare with) builds its own.
        known = {f.name for f in dataclasses.fields(AnalysisContext)}
        ctx = AnalysisContext(*args, **({"effects": effects} if "effects" in known else {}))
        steps = (
            ("accesses", lambda: ctx.shared(kernel_accesses)),
            ("model+measure", lambda: coalescing.global_accesses(ctx)),
            ("coalescing rest", lambda: coalescing.run(ctx)),
            ("bank_conflicts", lambda: bank_conflicts.run(ctx)),
        )
        for name, fn in steps:
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            sums[name][0] += time.process_time() - c0
            sums[name][1] += time.perf_counter() - w0

    for k in program.kernels:
        kernel(k)
    return {name: (c, w) for name, (c, w) in sums.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    program = build(args.size)
    count = sum(len(k.instructions) for k in program.kernels)
    one_run(program)  # imports out of the measurement
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        one_run(program)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):
        for name, (c, w) in one_run(program).items():
            held = best.get(name)
            best[name] = (min(c, held[0]), min(w, held[1])) if held else (c, w)
    print(f"{count} instructions, best of {args.repeat}")
    print(f"{'step':>16} {'cpu s':>7} {'wall s':>7}")
    for name, (c, w) in best.items():
        print(f"{name:>16} {c:>7.3f} {w:>7.3f}")
    model = sum(best[n][0] for n in ("model+measure", "coalescing rest", "bank_conflicts"))
    print(f"{'model+both':>16} {model:>7.3f}")


if __name__ == "__main__":
    main()
