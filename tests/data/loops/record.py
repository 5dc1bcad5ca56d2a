"""Re-record the loop corpus: compile census.cu for each architecture, keep what the tools say.

    python tests/data/loops/record.py [STEM ...]

STEM names a source beside this script (default: census; named.cu holds the kernels whose
main and remainder loops share a line). For every arch it writes
tests/data/loops/<stem>.<arch>.{ptx,cubin,log} (NVRTC's output) and <stem>.<arch>.sass.txt
(nvdisasm -c -gi -gp: the listing the labels in labels.json were read from). The line tables
name the files by the absolute path they had when recorded; the analysis finds them beside
the source it is given (a listing made in another checkout reads the same). Tests read these
files and need nvdisasm only.
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

    for stem, arch in ((s, a) for s in sys.argv[1:] or ["census"] for a in ARCHS):
        source = HERE / f"{stem}.cu"
        out = nvrtc_compile(source.read_bytes(), str(source), compile_options(arch, (), (), ()))
        if not out.ok:
            sys.exit(out.log)
        (HERE / f"{stem}.{arch}.ptx").write_text(out.ptx)
        (HERE / f"{stem}.{arch}.cubin").write_bytes(out.cubin)
        (HERE / f"{stem}.{arch}.log").write_text(out.log)
        cubin = HERE / f"{stem}.{arch}.cubin"
        listing = subprocess.run(
            [str(nvdisasm()), "-c", "-gi", "-gp", str(cubin)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (HERE / f"{stem}.{arch}.sass.txt").write_text(listing)
        print(f"recorded {stem}.{arch}")


if __name__ == "__main__":
    main()
