"""All analyses together (CFG, loops, liveness, every annotation) against nvdisasm's own time.

    python benchmarks/bench_analyses.py [--sizes 32768,65536,131072] [--repeat 3]

For generated cubins of about the given SASS instruction counts (see bench_parse.py), prints,
best of --repeat: nvdisasm's wall time (the two runs sassview makes, in parallel), the time of
`inspect_program` over the already-built model, their ratio (goal: <= 0.25 at 65k), the part
taken by liveness, and time per instruction (flat means linear). The last line is the growth
from the smallest to the largest size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
sys.path.insert(0, str(HERE))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="32768,65536,131072")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from bench_parse import INSTRUCTIONS_PER_STEP, best, source

    from sassview.build import build_program
    from sassview.disasm import nvdisasm as nd
    from sassview.frontends.cuda import compile_cuda
    from sassview.graph.cfg import build_cfg
    from sassview.graph.dataflow import compute_liveness
    from sassview.inspection import inspect_program
    from sassview.toolchain.locate import nvdisasm

    tool = nvdisasm()
    rows = []
    for target in (int(s) for s in args.sizes.split(",")):
        art = compile_cuda(source(int(target / INSTRUCTIONS_PER_STEP)), arch="sm_90a")
        program = build_program(art)
        count = sum(len(k.instructions) for k in program.kernels)
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(art.cubin)
            f.flush()

            def both(name: str = f.name) -> None:
                procs = [
                    subprocess.Popen([tool, *a, name], stdout=subprocess.PIPE)
                    for a in (nd.JSON_ARGS, nd.TEXT_ARGS)
                ]
                for p in procs:
                    p.communicate()

            disasm_s = best(both, args.repeat)
        inspect_program(program)  # warm imports (networkx) out of the measurement
        analyses_s = best(lambda p=program: inspect_program(p), args.repeat)

        def liveness_only(p=program) -> None:  # type: ignore[no-untyped-def]
            for k in p.kernels:
                compute_liveness(k.instructions, build_cfg(k.instructions))

        live_s = best(liveness_only, args.repeat)
        rows.append((count, disasm_s, analyses_s, live_s))

    heads = ("instructions", "nvdisasm s", "analyses s", "ratio", "liveness s", "us/instr")
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, (12, 10, 10, 6, 10, 9), strict=True)))
    for count, disasm_s, analyses_s, live_s in rows:
        print(
            f"{count:>12} {disasm_s:>10.3f} {analyses_s:>10.3f} {analyses_s / disasm_s:>6.2f} "
            f"{live_s:>10.3f} {analyses_s / count * 1e6:>9.1f}"
        )
    if len(rows) > 1:
        (c0, _, a0, _), (c1, _, a1, _) = rows[0], rows[-1]
        print(f"growth: {c1 / c0:.1f}x the instructions cost {a1 / a0:.1f}x the analysis time")


if __name__ == "__main__":
    main()
