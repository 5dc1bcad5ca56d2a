"""What a user waits for on a warm run: `sassview check` of a cached kernel against a bare
`python -c "import sassview"` (issue 22's goal: at most 3x), in CPU time; `sassview --help` too.

    python benchmarks/bench_warm.py [--repeat 7] [KERNEL.cu ...]

For each kernel (default: examples/vecadd.cu, small and loop-free, and
examples/matmul/05_wgmma_tma.cu, with loops), in a fresh private cache: one cold check to fill
it, then --repeat warm `sassview check --arch sm_90a` runs. Each figure is the best of
--repeat of the child's user+system CPU (resource.getrusage(RUSAGE_CHILDREN) around the run,
so a tool the check spawns counts too); the best, since on a shared machine noise only adds.

Bytecode is on (PYTHONDONTWRITEBYTECODE unset, .pyc files under a temporary
PYTHONPYCACHEPREFIX, written by the first runs): an installed package has its .pyc files, and
without them every run compiles sassview's source again, which is not what users pay.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).parents[1]
KERNELS = [ROOT / "examples" / "vecadd.cu", ROOT / "examples" / "matmul" / "05_wgmma_tma.cu"]


def child_cpu(command: list[str], env: dict[str, str]) -> float:
    """User+system CPU seconds of one run of `command` and everything it spawned."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_cpu(command: list[str], env: dict[str, str], repeat: int) -> float:
    return min(child_cpu(command, env) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("kernels", nargs="*", type=Path, default=KERNELS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sassview-bench-warm-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        bare = [sys.executable, "-c", "import sassview"]
        child_cpu(bare, env)  # writes the .pyc files of what `import sassview` needs
        base = best_cpu(bare, env, args.repeat)
        print(f"{'import sassview':<46} {base * 1000:8.1f} ms CPU")
        helped = best_cpu([sys.executable, "-m", "sassview", "--help"], env, args.repeat)
        print(f"{'sassview --help':<46} {helped * 1000:8.1f} ms CPU  x{helped / base:.2f}")
        for n, given in enumerate(args.kernels):
            kernel = given.resolve()
            env["SASSVIEW_CACHE_DIR"] = str(Path(tmp) / f"cache-{n}")
            check = [sys.executable, "-m", "sassview", "check", str(kernel), "--arch", "sm_90a"]
            cold = child_cpu(check, env)  # compiles, fills the cache, writes the .pyc files
            warm = best_cpu(check, env, args.repeat)
            shown = kernel.relative_to(ROOT) if kernel.is_relative_to(ROOT) else given
            name = f"warm check {shown}"
            print(f"{name:<46} {warm * 1000:8.1f} ms CPU  x{warm / base:.2f}  (cold {cold:.2f} s)")


if __name__ == "__main__":
    main()
