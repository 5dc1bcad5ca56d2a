"""How much sassview's reading costs next to nvdisasm's own time, on big generated kernels.

    python benchmarks/bench_parse.py [--sizes 4096,16384,65536] [--repeat 3]

For cubins of about 4k, 16k and 65k SASS instructions (one fully unrolled loop, sized to land
near each target) it prints, best of --repeat runs:
  nvdisasm    wall time of the two nvdisasm runs sassview makes (JSON and text, in parallel)
  json-only   one `nvdisasm -c -json -g -annotate` run, for reference
  parse       sassview's reading of both listings into the model (ELF, SASS, PTX, merge), with
              the listings already on disk and the readers' memo tables emptied before each run
              (as in a fresh process)
  ratio       parse / nvdisasm — the goal is <= 0.25 at 65k
  nvd cpu     CPU time of those two nvdisasm processes (user + system, both together)
  cpu ratio   parse / nvd cpu: the parse runs on one core, nvdisasm's two runs on two
  cold        the whole build with nvdisasm run live (no disassembly cache): the PTX is parsed
              while nvdisasm works, so this is less than nvdisasm + parse where cores are free
  overhead    (cold - nvdisasm) / nvdisasm: what the user waits for beyond nvdisasm itself
  us/instr    parse time per instruction: flat across sizes means linear growth
Compiles go through sassview's cache under benchmarks/.cache, so a rerun compiles nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("SASSVIEW_CACHE_DIR", str(HERE / ".cache"))

KERNEL_STEPS = 4096  # ptxas time grows faster than linearly in one kernel: split big cubins


def kernel_source(name: str, steps: int) -> str:
    body = "\n".join(
        f"  acc{i % 8} = fmaf(acc{i % 8}, p[t + {i * 33}], {1.0 + i * 1e-3:.4f}f);"
        for i in range(steps)
    )
    return (
        f"__global__ void {name}(const float* __restrict__ p, float* out) {{\n"
        "  const int t = threadIdx.x;\n"
        "  float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0, acc4 = 0, acc5 = 0, acc6 = 0, acc7 = 0;\n"
        f"{body}\n"
        "  out[t] = acc0 + acc1 + acc2 + acc3 + acc4 + acc5 + acc6 + acc7;\n"
        "}\n"
    )


def source(steps: int) -> str:
    """Straight-line code, `steps` statements of a load and a multiply-add each, in kernels of
    KERNEL_STEPS statements. (A loop with `#pragma unroll` stops growing near 14k instructions:
    NVRTC caps full unrolling; one huge kernel takes ptxas many minutes.)"""
    parts = []
    for k in range(0, steps, KERNEL_STEPS):
        parts.append(kernel_source(f"big{k // KERNEL_STEPS}", min(KERNEL_STEPS, steps - k)))
    return "\n".join(parts)


INSTRUCTIONS_PER_STEP = 2.0  # one LDG and one FFMA per statement


def best(fn, repeat: int, before=None, clock=time.perf_counter) -> float:
    """Least time of `repeat` runs of fn (`clock`: time.process_time for CPU time)."""
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def nvdisasm_both(tool: str, cubin_path: str) -> None:
    """The two nvdisasm runs sassview makes of one cubin, side by side, as it makes them."""
    from sassview.disasm import nvdisasm as nd

    procs = [
        subprocess.Popen([tool, *args, cubin_path], stdout=subprocess.PIPE)
        for args in (nd.JSON_ARGS, nd.TEXT_ARGS)
    ]
    for p in procs:
        p.communicate()


def children_cpu(fn, repeat: int) -> float:
    """Least CPU time (user + system) that the child processes `fn` runs take."""
    import resource

    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        fn()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def uncached_build(art) -> None:  # type: ignore[no-untyped-def]
    from sassview.build import build_program

    os.environ["SASSVIEW_NO_CACHE"] = "1"
    try:
        build_program(art)
    finally:
        del os.environ["SASSVIEW_NO_CACHE"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4096,16384,65536")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from sassview.build import assemble_program, build_program
    from sassview.disasm import nvdisasm as nd
    from sassview.frontends.cuda import compile_cuda
    from sassview.memo import forget_all
    from sassview.toolchain.locate import nvdisasm

    tool = nvdisasm()
    rows = []
    for target in (int(s) for s in args.sizes.split(",")):
        steps = int(target / INSTRUCTIONS_PER_STEP)
        start = time.perf_counter()
        art = compile_cuda(source(steps), arch="sm_90a")
        compile_s = time.perf_counter() - start
        program = build_program(art)  # warms the disassembly cache
        count = sum(len(k.instructions) for k in program.kernels)
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(art.cubin)
            f.flush()

            def both() -> None:
                nvdisasm_both(tool, f.name)

            def json_only() -> None:
                subprocess.run([tool, *nd.JSON_ARGS, f.name], capture_output=True, check=True)

            disasm_s = best(both, args.repeat)
            disasm_cpu = children_cpu(both, args.repeat)
            json_s = best(json_only, args.repeat)
        # assemble_program: the reading itself, never the cached model (bench_warm times that)
        parse_s = best(lambda art=art: assemble_program(art), args.repeat, forget_all)
        cold_s = best(lambda art=art: uncached_build(art), args.repeat, forget_all)
        rows.append((count, compile_s, disasm_s, json_s, parse_s, cold_s, disasm_cpu))

    heads = (
        "instructions",
        "compile s",
        "nvdisasm s",
        "json-only s",
        "parse s",
        "ratio",
        "nvd cpu",
        "cpu ratio",
        "cold s",
        "overhead",
        "us/instr",
    )
    widths = (12, 10, 10, 11, 8, 6, 7, 9, 7, 8, 9)
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)))
    for count, compile_s, disasm_s, json_s, parse_s, cold_s, disasm_cpu in rows:
        print(
            f"{count:>12} {compile_s:>10.2f} {disasm_s:>10.3f} {json_s:>11.3f} {parse_s:>8.3f} "
            f"{parse_s / disasm_s:>6.2f} {disasm_cpu:>7.3f} {parse_s / disasm_cpu:>9.2f} "
            f"{cold_s:>7.3f} {(cold_s - disasm_s) / disasm_s:>8.2f} {parse_s / count * 1e6:>9.1f}"
        )
    if len(rows) > 1:
        (c0, *_, p0, _, _), (c1, *_, p1, _, _) = rows[0], rows[-1]
        print(f"growth: {c1 / c0:.1f}x the instructions cost {p1 / p0:.1f}x the parse time")


if __name__ == "__main__":
    main()
