"""Re-record the loop-shapes corpus: compile the kernels of triton_shapes.py and cute_shapes.py
for each architecture, keep what the tools say.

    python tests/data/loops/record_python_shapes.py [kernel ...]

For every kernel and arch it writes tests/data/loops/python_shapes/<kernel>.<arch>.{ptx,cubin},
<kernel>.<arch>.sass.txt (nvdisasm -c -gi -gp: the listing the docstring labels were read from)
and, for Triton, <kernel>.<arch>.ttir (the TTIR the census reads Triton's own unrolling from)
and <kernel>.<arch>.options (the compile's options: its constexprs bound the loops).
Tests read these files and need nvdisasm only.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "python_shapes"
TRITON_ARCHS = ("sm_80", "sm_90a")


def main(only: list[str]) -> None:
    sys.path[:0] = [str(HERE.parents[2]), str(HERE)]
    import cute_shapes
    import triton_shapes
    from record_python import keep

    from sassview.frontends.cute import compile_cute
    from sassview.frontends.triton import compile_triton

    OUT.mkdir(exist_ok=True)
    for name, (signature, constexprs, stages) in triton_shapes.BUILDS.items():
        if only and name not in only:
            continue
        for arch in TRITON_ARCHS:
            fn = getattr(triton_shapes, name)
            art = compile_triton(
                fn, signature=signature, constexprs=constexprs, arch=arch, num_stages=stages
            )
            keep(name, arch, art, OUT)
            (OUT / f"{name}.{arch}.ttir").write_text(art.stages["ttir"])
            (OUT / f"{name}.{arch}.options").write_text("\n".join(art.options) + "\n")
    for name, (args, archs) in cute_shapes.builds().items():
        if only and name not in only:
            continue
        for arch in archs:
            keep(name, arch, compile_cute(getattr(cute_shapes, name), *args, arch=arch), OUT)


if __name__ == "__main__":
    main(sys.argv[1:])
