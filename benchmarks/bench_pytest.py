"""What a suite of sassview assertions costs: 50 tests over one kernel, run by pytest.

    python benchmarks/bench_pytest.py [--arch sm_90a] [--tests 50]

Writes a test file with `--tests` tests, one assertion each, over examples/tiled.cu (a loop
unrolled by 4: every kind of assertion has something to say), then runs pytest on it twice in
a subprocess with a fresh SASSVIEW_CACHE_DIR: cold (the compile happens) and warm (sassview's
disk cache serves it). A conftest records each test's call time. Printed: wall time of each
session, the first test (the one that compiles or loads) and the other tests' median / mean /
max, and the same assertions timed in-process without pytest, to split sassview's share from
pytest's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "examples" / "tiled.cu"

# One assertion per test; cycled to reach --tests.
ASSERTIONS = [
    "k.assert_no_spills()",
    "k.assert_max_registers(64)",
    "k.assert_unrolled(line=9, factor=4)",
    "k.assert_count('LDS', 4, loop=k.loop(line=9))",
    "k.assert_count('FADD', '>=4', lines=(9, 11))",
    "k.assert_load_width(32, lines=5)",
    "k.assert_store_width(32, lines=13)",
    "k.assert_uses('barriers')",
    "k.assert_does_not_use('tensor cores')",
    "k.filecheck('CHECK: LDG.E\\nCHECK: STS\\nCHECK: BAR.SYNC\\nCHECK-NOT: STL\\nCHECK: STG.E')",
    "k.filecheck('CHECK-DAG: ld.global.nc.f32\\nCHECK-DAG: st.shared.f32', on='ptx')",
    "assert k.count('LDS*') >= 4",
]

CONFTEST = """
import json, os, time
_times = {}

def pytest_runtest_logreport(report):
    if report.when == "call":
        _times[report.nodeid] = report.duration

def pytest_sessionfinish(session):
    with open(os.environ["BENCH_TIMES"], "w") as f:
        json.dump(_times, f)
"""


def write_suite(directory: Path, tests: int) -> None:
    (directory / KERNEL.name).symlink_to(KERNEL)
    (directory / "conftest.py").write_text(CONFTEST)
    body = []
    for n in range(tests):
        body.append(
            f"def test_{n:02d}(sassview_kernel):\n"
            f"    k = sassview_kernel({KERNEL.name!r})\n"
            f"    {ASSERTIONS[n % len(ASSERTIONS)]}\n"
        )
    (directory / "test_suite.py").write_text("\n\n".join(body))


def run_session(directory: Path, cache: Path, arch: str) -> tuple[float, dict[str, float]]:
    times = directory / "times.json"
    env = {**os.environ, "SASSVIEW_CACHE_DIR": str(cache), "BENCH_TIMES": str(times)}
    env.pop("SASSVIEW_NO_CACHE", None)
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--sassview-arch",
            arch,
            "test_suite.py",
        ],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the benchmark suite failed:\n{done.stdout}\n{done.stderr}")
    return wall, json.loads(times.read_text())


def in_process(arch: str, cache: Path, rounds: int) -> dict[str, float]:
    """Each assertion's cost without pytest: milliseconds, median of `rounds`."""
    os.environ["SASSVIEW_CACHE_DIR"] = str(cache)
    import sassview
    from sassview.testing import KernelUnderTest

    (inspection,) = sassview.inspect(KERNEL, arch=arch)
    k = KernelUnderTest(inspection, memo={})
    out = {}
    for text in ASSERTIONS:
        samples = []
        for _ in range(rounds):
            t = time.perf_counter()
            exec(text, {"k": k})  # noqa: S102 - the benchmark's own fixed strings
            samples.append(time.perf_counter() - t)
        out[text] = statistics.median(samples) * 1e3
    return out


def report(name: str, wall: float, times: dict[str, float]) -> None:
    ordered = [times[k] * 1e3 for k in sorted(times)]
    first, rest = ordered[0], ordered[1:]
    print(
        f"{name:<5} session {wall:6.2f} s   first test {first:8.1f} ms   other {len(rest)} tests: "
        f"median {statistics.median(rest):5.2f} ms, mean {statistics.mean(rest):5.2f} ms, "
        f"max {max(rest):5.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--tests", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sassview-bench-"))
    try:
        suite, cache = work / "suite", work / "cache"
        suite.mkdir()
        write_suite(suite, args.tests)
        print(f"{args.tests} tests, one assertion each, over {KERNEL.name} for {args.arch}")
        report("cold", *run_session(suite, cache, args.arch))
        report("warm", *run_session(suite, cache, args.arch))
        print("\nin-process, no pytest (warm; median of", args.rounds, "rounds):")
        for text, ms in in_process(args.arch, cache, args.rounds).items():
            print(f"  {ms:7.3f} ms  {text}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
