"""Re-record the loop corpus: compile census.cu for each architecture, keep what the tools say.

    python tests/data/loops/record.py

For every arch it writes tests/data/loops/census.<arch>.{ptx,cubin,log} (NVRTC's output) and
census.<arch>.sass.txt (nvdisasm -c -gi -gp: the listing the labels in labels.json were read
from). The line tables name the files by the absolute path they had when recorded; the analysis
finds them beside the source it is given (a listing made in another checkout reads the same). Tests
read these files and need nvdisasm only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARCHS = ("sm_80", "sm_90a")


def main() -> None:
    sys.path.insert(0, str(HERE.parents[2]))
    from sassview.frontends.cuda import compile_options
    from sassview.frontends.nvrtc_api import nvrtc_compile
    from sassview.toolchain.locate import nvdisasm

    for arch in ARCHS:
        out = nvrtc_compile(
            (HERE / "census.cu").read_bytes(),
            str(HERE / "census.cu"),
            compile_options(arch, (), (), ()),
        )
        if not out.ok:
            sys.exit(out.log)
        (HERE / f"census.{arch}.ptx").write_text(out.ptx)
        (HERE / f"census.{arch}.cubin").write_bytes(out.cubin)
        (HERE / f"census.{arch}.log").write_text(out.log)
        cubin = HERE / f"census.{arch}.cubin"
        listing = subprocess.run(
            [str(nvdisasm()), "-c", "-gi", "-gp", str(cubin)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (HERE / f"census.{arch}.sass.txt").write_text(listing)
        print(f"recorded census.{arch}")


if __name__ == "__main__":
    main()
