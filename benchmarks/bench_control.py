"""The static performance model (control codes, occupancy, schedule) against nvdisasm's time.

    python benchmarks/bench_control.py [--sizes 16384,65536] [--repeat 5]

For the generated cubins of bench_parse.py it prints, best of --repeat: nvdisasm's wall time (the
two runs sassview makes, in parallel), the time to decode every instruction's control code from
the cubin's words (`decode_controls`, its memo emptied before each run, as in a fresh process),
their ratio (goal: <= 0.05 at 65k), and the occupancy and schedule analyses over every kernel
(`model s`). Compiles go through sassview's cache under benchmarks/.cache, so a rerun compiles
nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))
sys.path.insert(0, str(HERE))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16384,65536")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'instructions':>12} {'nvdisasm s':>10} {'decode s':>9} {'ratio':>7} {'model s':>11}")
    for target in (int(s) for s in args.sizes.split(",")):
        count, disasm_s, decode_s, occupancy_s = measure(target, args.repeat)
        print(
            f"{count:>12} {disasm_s:>10.3f} {decode_s:>9.4f} {decode_s / disasm_s:>7.4f} "
            f"{occupancy_s:>11.4f}"
        )


def measure(target: int, repeat: int) -> tuple[int, float, float, float]:
    from bench_parse import INSTRUCTIONS_PER_STEP, best, nvdisasm_both, source

    from sassview.binary import control
    from sassview.binary.elf import read_cubin
    from sassview.build import build_program
    from sassview.frontends.cuda import compile_cuda
    from sassview.inspection import inspect_program
    from sassview.toolchain.locate import nvdisasm

    art = compile_cuda(source(int(target / INSTRUCTIONS_PER_STEP)), arch="sm_90a")
    info = read_cubin(art.cubin)
    count = sum(k.text_size // 16 for k in info.kernels)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(art.cubin)
        f.flush()
        disasm_s = best(lambda: nvdisasm_both(nvdisasm(), f.name), repeat)

    def decode() -> None:
        for k in info.kernels:
            control.decode_controls(k.code, info.arch)

    decode_s = best(decode, repeat, control._MEMO.clear)
    inspections = inspect_program(build_program(art))
    occupancy_s = best(lambda: _occupancy(inspections), repeat)
    return count, disasm_s, decode_s, occupancy_s


def _occupancy(inspections) -> None:  # type: ignore[no-untyped-def]
    from sassview.analyses import occupancy, schedule
    from sassview.analyses.base import AnalysisContext

    for i in inspections:
        ctx = AnalysisContext(i.program, i.kernel, i.cfg, i.loops, i.liveness)
        occupancy.run(ctx)
        schedule.run(ctx)


if __name__ == "__main__":
    main()
