"""On a machine with a GPU and Nsight Compute: sassview's static sector and wavefront counts
against what `ncu` measures, for the kernels written for the purpose.

    python benchmarks/device_memory.py                  # prints a table, exits 1 on a mismatch
    python benchmarks/device_memory.py --ncu /opt/nvidia/nsight-compute/ncu -k stride

For each kernel of tests/data/analyses/{coalescing,lane_forms}.cu (the recorded cubin when the
device runs it, sm_80 or sm_90a; else compiled for the device with NVRTC), this launches one
block of the shape the static count assumes, with zeroed 64 MiB buffers for every pointer and
the scalars of CASES, under `ncu --metrics ...` (a child process of this script that only
loads the cubin with cuda-python and launches), and compares, per kernel:
  - global load and store sectors (`l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum`) with
    Σ sectors over the kernel's global accesses × the block's warps;
  - their requests (`l1tex__t_requests_..._op_{ld,st}.sum`): one per access and warp;
  - shared load and store wavefronts (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}
    .sum`) with Σ wavefronts, and bank conflicts (`l1tex__data_bank_conflicts_pipe_lsu_mem_
    shared_op_{ld,st}.sum`) with Σ (wavefronts - ideal).
A kernel with an access in a loop (its trip count is not static) or an unknown access is shown
but not compared, and says why. The warps of a block are taken to access alike (true of these
kernels: a warp's pattern is shifted by a uniform amount). Not run by the test suite; needs
cuda-python (`cuda.bindings`), a driver, `ncu` and the permission to read GPU counters
(ERR_NVGPUCTRPERM otherwise: run as root or set NVreg_RestrictProfilingToAdminUsers=0).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "data" / "analyses"
CASES_SOURCES = ("coalescing", "lane_forms")
BUFFER = 64 << 20  # bytes per pointer argument: more than any kernel here reaches

METRICS = {
    "global load sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global load requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global store sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "global store requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "shared load wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared load conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared store wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared store conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}

# kernel -> (block shape, scalar arguments by name); the default: 32x1x1, every int 0. The
# shape is the one the static count is made for (`--block`), so both sides count alike.
CASES: dict[str, tuple[tuple[int, int, int], dict[str, int]]] = {
    "rows": ((16, 16, 1), {}),
    "columns": ((16, 16, 1), {}),
    "tile_rows_cols": ((32, 32, 1), {}),
    "tile_padded": ((32, 32, 1), {}),
    "tile_swizzled": ((32, 32, 1), {}),
}


@dataclass
class Static:
    counts: dict[str, int]
    why_not: str  # why the kernel is not compared ("" when it is)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ncu", help="the ncu executable (default: ncu on PATH, then CUDA's)")
    ap.add_argument("-k", "--kernel", help="only kernels whose name contains this")
    ap.add_argument(
        "--launch", nargs=4, help=argparse.SUPPRESS
    )  # the child: cubin kernel block args
    args = ap.parse_args()
    if args.launch:
        return _launch(*args.launch)
    ncu = _find_ncu(args.ncu)
    if ncu is None:
        where = (
            f"not at {args.ncu}" if args.ncu
            else "not on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin"
        )  # fmt: skip
        print(
            f"device_memory: Nsight Compute's `ncu` was not found ({where}). Install Nsight "
            "Compute (it comes with the CUDA toolkit) or pass --ncu PATH.",
            file=sys.stderr,
        )
        return 2
    try:
        from cuda.bindings import driver  # noqa: F401
    except ImportError:
        print("device_memory: cuda-python is missing: pip install cuda-python", file=sys.stderr)
        return 2
    arch = _device_arch()
    print(f"device {arch}; ncu {ncu}")
    bad = 0
    header = f"{'kernel':<16} {'metric':<24} {'sassview':>9} {'ncu':>9}"
    print(header)
    print("-" * len(header))
    for case in CASES_SOURCES:
        cubin, program = _program(case, arch)
        for kernel in program.kernels:
            if not kernel.is_entry or (args.kernel and args.kernel not in kernel.name):
                continue
            block, scalars = CASES.get(kernel.name, ((32, 1, 1), {}))
            static = _static(program, kernel.name, block)
            params = _params(program.artifacts.ptx or "", kernel.name, scalars)
            measured = _measure(ncu, cubin, kernel.name, block, params)
            if isinstance(measured, str):
                print(f"{kernel.name:<16} ncu said: {measured}")
                bad += 1
                continue
            for label in METRICS:
                mine = static.counts.get(label)
                theirs = measured.get(label)
                flag = ""
                if static.why_not:
                    flag = f"   (not compared: {static.why_not})"
                elif mine != theirs:
                    flag = "   <-- MISMATCH"
                    bad += 1
                shown = "-" if mine is None else str(mine)
                print(f"{kernel.name:<16} {label:<24} {shown:>9} {theirs!s:>9}{flag}")
    print("mismatches:", bad)
    return 1 if bad else 0


def _find_ncu(given: str | None) -> str | None:
    if given:
        return given if Path(given).exists() else None
    found = shutil.which("ncu")
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if base and (Path(base) / "bin" / "ncu").exists():
            return str(Path(base) / "bin" / "ncu")
    return None


def _ok(result: Any) -> Any:
    from cuda.bindings import driver as cu

    err, *values = result
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(str(err))
    return values[0] if len(values) == 1 else values


def _device_arch() -> str:
    from cuda.bindings import driver as cu

    _ok(cu.cuInit(0))
    dev = _ok(cu.cuDeviceGet(0))
    attr = cu.CUdevice_attribute
    major = _ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = _ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return f"sm_{major}{minor}"


def _program(case: str, arch: str) -> tuple[Path, Any]:
    """The case's cubin for this device (recorded where one runs here) and its Program."""
    import sassview
    from sassview.ir import Artifacts

    recorded = {"sm_80": "sm_80", "sm_90": "sm_90a"}.get(arch)
    if recorded is not None and (RECORDED / case / recorded / "kernel.cubin").exists():
        d = RECORDED / case / recorded
        art = Artifacts(
            kind="cuda", arch=recorded, cubin=(d / "kernel.cubin").read_bytes(),
            ptx=(d / "kernel.ptx").read_text(),
        )  # fmt: skip
        return d / "kernel.cubin", sassview.from_artifacts(art)
    program = sassview.compile(path=RECORDED / "sources" / f"{case}.cu", arch=arch)
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"sassview-device-{case}-{arch}.cubin"
    out.write_bytes(program.artifacts.cubin)
    return out, program


def _static(program: Any, kernel: str, block: tuple[int, int, int]) -> Static:
    """sassview's counts for one block: per-warp counts times the block's warps."""
    from sassview.graph.lanes import BlockShape
    from sassview.inspection import inspect_program

    shape = BlockShape(*block, "--block")
    (insp,) = inspect_program(program, kernel, block=shape)
    warps = -(-(block[0] * block[1] * block[2]) // 32)
    glob, banks = insp.facts("coalescing")["accesses"], insp.facts("bank_conflicts")["accesses"]
    why = ""
    if any(a["in_loop"] for a in (*glob, *banks)):
        why = "an access in a loop"
    elif any(a["sectors"] is None for a in glob) or any(a["wavefronts"] is None for a in banks):
        why = "an access sassview says is unknown"
    counts: dict[str, int] = {}
    for op, word in (("load", "load"), ("store", "store")):
        g = [a for a in glob if a["direction"] == word]
        s = [a for a in banks if a["direction"] == word]
        counts[f"global {op} sectors"] = warps * sum(a["sectors"] or 0 for a in g)
        counts[f"global {op} requests"] = warps * len(g)
        counts[f"shared {op} wavefronts"] = warps * sum(a["wavefronts"] or 0 for a in s)
        counts[f"shared {op} conflicts"] = warps * sum(
            (a["wavefronts"] or 0) - a["ideal"] for a in s
        )
    return Static(counts, why)


def _params(ptx: str, kernel: str, scalars: dict[str, int]) -> list[tuple[str, str, int]]:
    """(name, PTX type, value) of each parameter: pointers get a buffer (value 0 here), 32-bit
    scalars their CASES value or 0."""
    head = re.search(rf"\.entry\s+{re.escape(kernel)}\s*\((.*?)\)", ptx, re.S)
    if head is None:
        raise RuntimeError(f"no .entry {kernel} in the PTX")
    out = []
    for piece in head.group(1).split(","):  # .param .u64 [.ptr .global .align 1] name
        tokens = piece.split()
        if len(tokens) < 3 or tokens[0] != ".param":
            continue
        ptype, name = tokens[1].lstrip("."), tokens[-1]
        short = name.rsplit("_param_", 1)[-1]
        out.append((name, ptype, scalars.get(name, scalars.get(short, 0))))
    return out


def _measure(
    ncu: str, cubin: Path, kernel: str, block: tuple[int, int, int], params: list[Any]
) -> dict[str, int] | str:
    """ncu's metrics for one launch of `kernel` (a child process that launches it), or what
    went wrong, in ncu's words."""
    cmd = [
        ncu, "--csv", "--metrics", ",".join(METRICS.values()), "--kernel-name", kernel,
        sys.executable, str(Path(__file__).resolve()), "--launch", str(cubin), kernel,
        json.dumps(block), json.dumps(params),
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    text = done.stdout + done.stderr
    if "ERR_NVGPUCTRPERM" in text:
        return "no permission to read GPU counters (ERR_NVGPUCTRPERM): run as root"
    names = {v: k for k, v in METRICS.items()}
    found: dict[str, int] = {}
    start = done.stdout.find('"ID"')
    for row in csv.DictReader(io.StringIO(done.stdout[start:] if start >= 0 else "")):
        label = names.get(row.get("Metric Name", ""))
        if label is not None:
            found[label] = int(float(row["Metric Value"].replace(",", "") or 0))
    if not found:
        return (text.strip().splitlines() or [f"exit {done.returncode}, no output"])[-1]
    return found


def _launch(cubin: str, kernel: str, block_text: str, params_text: str) -> int:
    """The child ncu profiles: load the cubin, allocate zeroed buffers, launch one block."""
    import ctypes

    from cuda.bindings import driver as cu

    _ok(cu.cuInit(0))
    dev = _ok(cu.cuDeviceGet(0))
    _ok(cu.cuCtxSetCurrent(_ok(cu.cuDevicePrimaryCtxRetain(dev))))
    module = _ok(cu.cuModuleLoadData(Path(cubin).read_bytes()))
    func = _ok(cu.cuModuleGetFunction(module, kernel.encode()))
    values: list[Any] = []
    types: list[Any] = []
    buffers = []
    for _name, ptype, value in json.loads(params_text):
        if ptype in ("u64", "b64", "s64"):
            ptr = _ok(cu.cuMemAlloc(BUFFER))
            _ok(cu.cuMemsetD8(ptr, 0, BUFFER))
            buffers.append(ptr)
            values.append(int(ptr))
            types.append(ctypes.c_void_p)
        else:
            values.append(value)
            types.append(ctypes.c_int)
    bx, by, bz = json.loads(block_text)
    _ok(cu.cuLaunchKernel(func, 1, 1, 1, bx, by, bz, 0, 0, (tuple(values), tuple(types)), 0))
    _ok(cu.cuCtxSynchronize())
    for ptr in buffers:
        _ok(cu.cuMemFree(ptr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
