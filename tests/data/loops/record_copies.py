"""Re-record the copies corpus: compile copies.cu for each architecture, as written and rolled.

    python tests/data/loops/record_copies.py

For every arch it writes tests/data/loops/copies.<arch>.{ptx,cubin,log} (NVRTC's output, as
sassview compiles it) and copies.rolled<P>.<arch>.{ptx,cubin} (the rolled builds the census
asks for its copies, frontends/cuda_rolled.py: P 1 with the loops of odd nesting depth under
`#pragma unroll 1`, P 0 the even ones; copies.rolled<P>f with copies.cuh's depths counted one
more, as the census asks for sgemm_flat), and the listing the labels in labels_copies.json were
read from (copies.<arch>.sass.txt, nvdisasm -c -gi). Tests read these files and need
nvdisasm only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARCHS = ("sm_80", "sm_90a")


def main() -> None:
    sys.path.insert(0, str(HERE.parents[2]))
    import os

    os.environ["SASSVIEW_CACHE_DIR"] = os.environ.get("SASSVIEW_CACHE_DIR", "/tmp/record-copies")
    from sassview.api import BuildOptions
    from sassview.frontends.cuda import compile_cuda
    from sassview.frontends.cuda_rolled import rolled_build
    from sassview.toolchain.locate import nvdisasm

    for arch in ARCHS:
        real = compile_cuda(
            path=HERE / "copies.cu", arch=arch, build=BuildOptions(compiler="nvrtc")
        )
        builds = [(f"copies.{arch}", real)]
        header = {str(HERE / "copies.cuh"): 1}  # sgemm_flat's flips (loops/settle.py `flips`)
        for parity in (0, 1):
            for flips, tag in (({}, ""), (header, "f")):
                rolled = rolled_build(real, parity, flips)
                if rolled is None:
                    sys.exit(f"no rolled build for {arch}")
                builds.append((f"copies.rolled{parity}{tag}.{arch}", rolled))
        for stem, art in builds:
            assert art.ptx is not None
            (HERE / f"{stem}.ptx").write_text(art.ptx)
            (HERE / f"{stem}.cubin").write_bytes(art.cubin)
        listing = subprocess.run(
            [str(nvdisasm()), "-c", "-gi", str(HERE / f"copies.{arch}.cubin")],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (HERE / f"copies.{arch}.sass.txt").write_text(listing)
        (HERE / f"copies.{arch}.log").write_text(real.compile_log)
        print(f"recorded copies.{arch}")


if __name__ == "__main__":
    main()
