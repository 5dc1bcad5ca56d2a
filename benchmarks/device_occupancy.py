"""On a machine with a GPU: sassview's occupancy against the driver's, for the recorded kernels.

    python benchmarks/device_occupancy.py            # prints a table, exits 1 on a mismatch

For every recorded cubin under tests/ that the device can load (same SM major and minor, or an
`a`/`f` build of it), and every kernel in it, at 64, 128, 256, 512 and 1024 threads (and at the
kernel's own block size), it compares `occupancy()` (sassview/analyses/occupancy.py, computed
for the device's compute capability) with `cuOccupancyMaxActiveBlocksPerMultiprocessor`, and
prints the driver's own view of the kernel beside the cubin's: NUM_REGS against REGCOUNT, and
SHARED_SIZE_BYTES against the static shared memory (does the driver count the 1 KB window of an
sm_90+ shared section? the analysis assumes it is the per-block reservation, not added twice).
Needs cuda-python (`cuda.bindings`) and a driver; no compiler. Not run by the test suite.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from cuda.bindings import driver as cu

from sassview.analyses.occupancy import SWEEP, occupancy, usage_of
from sassview.analyses.sm_limits import limits_for, sm_number
from sassview.binary.elf import read_cubin
from sassview.build import build_program
from sassview.ir import Artifacts

TESTS = Path(__file__).resolve().parent.parent / "tests"


def _ok(result):  # type: ignore[no-untyped-def]
    err, *values = result
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(str(err))
    return values[0] if len(values) == 1 else values


def main() -> int:
    _ok(cu.cuInit(0))
    dev = _ok(cu.cuDeviceGet(0))
    attr = cu.CUdevice_attribute
    major = _ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = _ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    reserved = _ok(
        cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, dev)
    )
    arch = f"sm_{major}{minor}"
    sm = limits_for(arch)
    print(f"device {arch}, reserved shared per block {reserved} B; table: {sm}")
    if sm is None:
        return 1
    _ok(cu.cuCtxSetCurrent(_ok(cu.cuDevicePrimaryCtxRetain(dev))))
    fattr = cu.CUfunction_attribute
    bad = 0
    for path in sorted(TESTS.rglob("*.cubin")):
        data = path.read_bytes()
        info = read_cubin(data, str(path))
        if sm_number(info.arch) != major * 10 + minor:
            continue
        program = build_program(Artifacts(kind="cubin", arch=info.arch, cubin=data))
        module = _ok(cu.cuModuleLoadData(data))
        for kernel in program.kernels:
            if not kernel.is_entry:
                continue
            func = _ok(cu.cuModuleGetFunction(module, kernel.name.encode()))
            regs = _ok(cu.cuFuncGetAttribute(fattr.CU_FUNC_ATTRIBUTE_NUM_REGS, func))
            shared = _ok(cu.cuFuncGetAttribute(fattr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, func))
            res = kernel.resources
            print(
                f"{path.relative_to(TESTS)} {kernel.name}: regs {regs} (cubin {res.registers}), "
                f"shared {shared} B (cubin {res.shared_user} + {res.shared_reserved} reserved)"
            )
            sizes = sorted({*SWEEP, *([math.prod(res.reqntid)] if res.reqntid else [])})
            for threads in sizes:
                if res.max_threads and threads > res.max_threads:
                    continue
                mine = occupancy(sm, usage_of(kernel, threads))
                theirs = _ok(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(func, threads, 0))
                flag = "" if mine.blocks == theirs else "   <-- MISMATCH"
                bad += bool(flag)
                print(
                    f"    {threads:>5} threads: sassview {mine.blocks:>3} blocks "
                    f"({','.join(mine.limiters)}), driver {theirs:>3}{flag}"
                )
        _ok(cu.cuModuleUnload(module))
    print("mismatches:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
