"""Re-record the Python part of the loop corpus: compile the kernels of triton_loops.py and
cute_loops.py for each architecture, keep what the tools say.

    python tests/data/loops/record_python.py

For every kernel and arch it writes tests/data/loops/python/<kernel>.<arch>.{ptx,cubin} and
<kernel>.<arch>.sass.txt (nvdisasm -c -gi -gp: the listing the labels in labels_python.json
were read from). The line tables name the sources by the absolute path they had when recorded;
the tests give the analysis the source beside them. Tests read these files and need nvdisasm
only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "python"
TRITON_ARCHS = ("sm_80", "sm_90a")


def main() -> None:
    sys.path[:0] = [str(HERE.parents[2]), str(HERE)]
    import cute_loops
    import triton_loops

    from sassview.frontends.cute import compile_cute
    from sassview.frontends.triton import compile_triton

    OUT.mkdir(exist_ok=True)
    for name, (signature, constexprs) in triton_loops.BUILDS.items():
        for arch in TRITON_ARCHS:
            fn = getattr(triton_loops, name)
            keep(
                name,
                arch,
                compile_triton(fn, signature=signature, constexprs=constexprs, arch=arch),
            )
    for name, (args, archs) in cute_loops.builds().items():
        for arch in archs:
            keep(name, arch, compile_cute(getattr(cute_loops, name), *args, arch=arch))


def keep(name: str, arch: str, artifacts: object, out: Path = OUT) -> None:
    from sassview.toolchain.locate import nvdisasm

    stem = out / f"{name}.{arch}"
    Path(f"{stem}.ptx").write_text(artifacts.ptx)  # type: ignore[attr-defined]
    cubin = Path(f"{stem}.cubin")
    cubin.write_bytes(artifacts.cubin)  # type: ignore[attr-defined]
    listing = subprocess.run(
        [str(nvdisasm()), "-c", "-gi", "-gp", str(cubin)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    Path(f"{stem}.sass.txt").write_text(listing)
    print(f"recorded {name}.{arch}")


if __name__ == "__main__":
    main()
