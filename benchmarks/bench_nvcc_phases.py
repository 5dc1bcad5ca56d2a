"""Where a cold device-only nvcc compile spends its time, and what the ways around nvcc's fixed
cost would save, in CPU seconds (this machine is shared: the wall clock says little).

    python benchmarks/bench_nvcc_phases.py [--repeat 7] [FILE.cu]

nvcc -cubin runs three tools (`nvcc -dryrun` lists them): the host compiler's device-side
preprocessing (`g++ -E -include cuda_runtime.h`), cicc (EDG front end + NVVM, which also writes
the host stub files nvcc would compile next) and ptxas. Each is timed alone, best of --repeat,
beside the whole nvcc run and an NVRTC compile of the same file (a forked child, as sassview
runs it), and each alternative prints whether its SASS is the same as nvcc's:

  cicc, device files only    cicc without the host stub outputs (--gen_c_file_name ...)
  preprocess, no runtime     the preprocessing with crt/host_config.h, builtin_types.h,
                             device_launch_parameters.h and crt/common_functions.h forced in
                             instead of all of cuda_runtime.h (no host runtime API)
  cicc on that               cicc reading the smaller preprocessed file (fails where the file
                             needs more, e.g. cuda_fp16.h's intrinsics: not a general recipe)

Measured on the shared 2-core machine (CPU s, best of 5-7): device_only.cu: NVRTC 0.061-0.068,
nvcc 0.347-0.355 (5.2-5.7x); preprocessing 0.087, cicc 0.216-0.223, ptxas 0.027; cicc without
the stub outputs 0.207-0.217 (same SASS, -3%). A one-line kernel: NVRTC 0.038, nvcc 0.265,
cicc 0.184, with the lean preprocessing 0.139 (same SASS). cicc alone is 3.2-4.8x a whole
NVRTC compile, so no nvcc option nor feeding cicc directly reaches the 1.5x goal.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEVICE_ONLY = ROOT / "tests" / "corpus" / "sources" / "device_only.cu"
_STUB_OUTPUTS = re.compile(
    r' --(?:gen_c_file_name|stub_file_name|gen_device_file_name|module_id_file_name) "[^"]*"'
    r"| --gen_module_id_file"
)


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    return kids.ru_utime + kids.ru_stime + own.ru_utime + own.ru_stime


def cpu(repeat: int, run: Callable[[], object]) -> float:
    """Best CPU time (this process and its waited-for children) of `run`."""
    best = float("inf")
    for _ in range(repeat):
        before = _children_cpu()
        run()
        best = min(best, _children_cpu() - before)
    return best


def shell(command: str, env: dict[str, str]) -> None:
    subprocess.run(command, shell=True, check=True, capture_output=True, env=env)


def phases(nvcc: str, host: str, source: Path, work: Path) -> tuple[dict[str, str], list[str]]:
    """nvcc's environment and its three commands, as `nvcc -dryrun` prints them."""
    argv = [nvcc, "-cubin", "-arch=sm_90a", "-lineinfo", "-Xptxas", "-v", "-ccbin", host]
    argv += ["-o", str(work / "k.cubin"), str(source), "-dryrun"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stderr
    env: dict[str, str] = {}
    commands = []
    for line in out.splitlines():
        body = line.removeprefix("#$ ")
        m = re.match(r"^(\w+)=(.*)$", body)
        if m:
            env[m.group(1)] = m.group(2).strip()
        elif body.strip():
            commands.append(body)
    # What the tools need from nvcc's environment; the temporary names nvcc chose (tmpxft_*)
    # stay as -dryrun printed them, so the phases read and write one another's files.
    wanted = ("PATH", "CICC_PATH", "NVVMIR_LIBRARY_DIR", "LD_LIBRARY_PATH")
    full = {**os.environ, **{k: v for k, v in env.items() if k in wanted}}
    return full, commands


def sass(cubin: Path) -> str:
    from sassview.toolchain.locate import nvdisasm

    text = subprocess.run([nvdisasm(), "-c", str(cubin)], capture_output=True, text=True).stdout
    return "\n".join(line.split("/*")[0] for line in text.splitlines() if "/*" in line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("source", nargs="?", type=Path, default=DEVICE_ONLY)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    from sassview.frontends.cuda import compile_options
    from sassview.frontends.nvrtc_api import nvrtc_compile
    from sassview.toolchain.locate import host_compiler, nvcc_info

    host = host_compiler()
    assert host is not None, "needs a host compiler"
    nvcc = str(nvcc_info().path)
    source = args.source.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env, commands = phases(nvcc, host.path, source, work)
        pre = next(c for c in commands if " -E " in c)
        cicc = next(c for c in commands if "cicc" in c.split()[0])
        ptxas = next(c for c in commands if c.startswith("ptxas"))
        whole = [nvcc, "-cubin", "-arch=sm_90a", "-lineinfo", "-Xptxas", "-v", "-ccbin",
                 host.path, "-o", str(work / "whole.cubin"), str(source)]  # fmt: skip
        options = compile_options("sm_90a", (), (), ())  # sassview's own NVRTC options
        text = source.read_bytes()
        assert nvrtc_compile(text, str(source), options).ok  # and the library is loaded
        rows = {
            "nvrtc (forked child)": cpu(args.repeat, lambda: nvrtc_compile(text, str(source),
                                                                           options)),
            "nvcc -cubin": cpu(args.repeat, lambda: subprocess.run(whole, check=True,
                                                                   capture_output=True)),
            "  preprocess (g++ -E)": cpu(args.repeat, lambda: shell(pre, env)),
            "  cicc": cpu(args.repeat, lambda: shell(cicc, env)),
            "  ptxas": cpu(args.repeat, lambda: shell(ptxas, env)),
        }  # fmt: skip
        reference = sass(work / "whole.cubin")
        device_only = _STUB_OUTPUTS.sub("", cicc)
        rows["cicc, device files only"] = cpu(args.repeat, lambda: shell(device_only, env))
        shell(device_only, env)
        shell(ptxas, env)
        same = {"cicc, device files only": sass(work / "k.cubin") == reference}
        lean = pre.replace(
            '-include "cuda_runtime.h"',
            '-include "crt/host_config.h" -include "builtin_types.h" '
            '-include "device_launch_parameters.h" -include "crt/common_functions.h"',
        )
        rows["preprocess, no runtime"] = cpu(args.repeat, lambda: shell(lean, env))
        try:
            shell(lean, env)
            rows["cicc on that"] = cpu(args.repeat, lambda: shell(device_only, env))
            shell(ptxas, env)
            same["cicc on that"] = sass(work / "k.cubin") == reference
        except subprocess.CalledProcessError as exc:
            print(f"cicc on the lean preprocessing failed: {exc.stderr.decode()[:300]}")
    base = rows["nvrtc (forked child)"]
    for name, seconds in rows.items():
        verdict = f"  same SASS: {same[name]}" if name in same else ""
        print(f"{name:<26} {seconds:7.3f} s CPU  {seconds / base:5.2f} x NVRTC{verdict}")
    print(f"(file: {source.name}; first command: {shlex.split(pre)[0]})", file=sys.stderr)


if __name__ == "__main__":
    main()
