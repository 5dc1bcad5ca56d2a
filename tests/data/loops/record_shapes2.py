"""Re-record the shapes2 corpus: compile shapes2.cu for each architecture, as written and rolled.

    python tests/data/loops/record_shapes2.py

For every arch it writes tests/data/loops/shapes2.<arch>.{ptx,cubin,log} (NVRTC's output, as
sassview compiles it, with DEFINES), the listing the labels in labels_shapes2.json were read
from (shapes2.<arch>.sass.txt, nvdisasm -c -gi), and every rolled build the census of the real
build asks for (frontends/cuda_rolled.py): shapes2.rolled<P><tag>.<arch>.{ptx,cubin}, P the
parity rolled, <tag> the header depths counted one more (`flips`: "" for none, else
"_<file stem><depth>" each). The census is run here with the live builder wrapped, so what is
recorded is what it asks for; tests read these files and need nvdisasm only. `record` does
the same for another corpus of this shape (record_mactile.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARCHS = ("sm_80", "sm_90a")
DEFINES = ("SPLIT=2", "ROWS=2")  # SPLIT: guarded, the -D sets it; ROWS: the file replaces it


def flips_tag(flips: Mapping[str, int]) -> str:
    """The file-name tag of a rolled build's flips (by file name: recorded line tables name
    the tree they were recorded in)."""
    return "".join(f"_{Path(f).stem}{d}" for f, d in sorted(flips.items()))


def main() -> None:
    record("shapes2", DEFINES)


def record(stem: str, defines: tuple[str, ...]) -> None:
    """Record corpus `stem` (tests/data/loops/<stem>.cu) compiled with `defines`."""
    sys.path.insert(0, str(HERE.parents[2]))
    os.environ["SASSVIEW_CACHE_DIR"] = os.environ.get("SASSVIEW_CACHE_DIR", f"/tmp/record-{stem}")
    import sassview
    from sassview.analyses.loops import rolled
    from sassview.frontends.build_options import BuildOptions
    from sassview.frontends.cuda import compile_cuda
    from sassview.inspection import inspect_kernel
    from sassview.ir import Artifacts
    from sassview.toolchain.locate import nvdisasm

    build = BuildOptions(defines=defines, compiler="nvrtc", compile_commands=False)
    for arch in ARCHS:
        real = compile_cuda(path=HERE / f"{stem}.cu", arch=arch, build=build)
        asked: dict[str, Artifacts] = {}

        def builder(
            art: Artifacts, parity: int, flips: Mapping[str, int], asked: dict = asked
        ) -> Artifacts | None:
            built = rolled._compile(art, parity, flips)
            if built is None:
                sys.exit(f"no rolled build for {art.arch} (parity {parity}, {dict(flips)})")
            asked[f"{stem}.rolled{parity}{flips_tag(flips)}.{art.arch}"] = built
            return built

        rolled.build_variant = builder
        program = sassview.from_artifacts(real)
        for kernel in program.kernels:
            inspect_kernel(program, kernel).facts("unroll")
        for name, art in [(f"{stem}.{arch}", real), *sorted(asked.items())]:
            assert art.ptx is not None
            (HERE / f"{name}.ptx").write_text(art.ptx)
            (HERE / f"{name}.cubin").write_bytes(art.cubin)
        listing = subprocess.run(
            [str(nvdisasm()), "-c", "-gi", str(HERE / f"{stem}.{arch}.cubin")],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (HERE / f"{stem}.{arch}.sass.txt").write_text(listing)
        (HERE / f"{stem}.{arch}.log").write_text(real.compile_log)
        print(f"recorded {stem}.{arch}: {', '.join(sorted(asked)) or 'no rolled build asked'}")


if __name__ == "__main__":
    main()
