"""Re-make the cubins and nvdisasm listings tests/test_liveness.py checks liveness against.

    python tests/data/liveness/make.py            # every case
    python tests/data/liveness/make.py wide       # one case

Each tests/data/liveness/<case>/<arch>/ gets kernel.cubin (NVRTC), sass.txt (`nvdisasm -c`, what
the test parses) and plr.txt (`nvdisasm -c -plr -lrm count`, the '#' columns it must match), both
with runs of blanks squeezed to two: nvdisasm pads every line to the cubin's longest.
Sources are in sources/. Needs the pip toolchain, no GPU. The corpus (tests/corpus) covers the
everyday kernels; these add wide and unusual operands the corpus lacks.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ALL = ["sm_80", "sm_90a", "sm_100a", "sm_120"]
CASES: dict[str, list[str]] = {
    "wide": ALL,
    "tensor": ["sm_80", "sm_90a", "sm_120"],
    "control": ["sm_80", "sm_90a", "sm_120"],
    "hopper": ["sm_90a"],
    "blackwell": ["sm_100a"],
    "switch": ["sm_90a"],
}


def nvdisasm(*args: str | Path) -> str:
    from sassview.toolchain.locate import nvdisasm as locate

    return subprocess.run(
        [locate(), *map(str, args)], check=True, capture_output=True, text=True
    ).stdout


def squeeze(text: str) -> str:
    return "\n".join(re.sub(r"   +", "  ", line.rstrip()) for line in text.splitlines()) + "\n"


def make(case: str) -> None:
    from sassview.frontends.cuda import compile_cuda

    for arch in CASES[case]:
        art = compile_cuda(path=HERE / "sources" / f"{case}.cu", arch=arch)
        out = HERE / case / arch
        out.mkdir(parents=True, exist_ok=True)
        cubin = out / "kernel.cubin"
        cubin.write_bytes(art.cubin)
        (out / "sass.txt").write_text(squeeze(nvdisasm("-c", cubin)))
        (out / "plr.txt").write_text(squeeze(nvdisasm("-c", "-plr", "-lrm", "count", cubin)))
        print(f"made {case}/{arch}")


def main() -> None:
    os.environ["SASSVIEW_NO_CACHE"] = "1"
    for case in sys.argv[1:] or list(CASES):
        make(case)


if __name__ == "__main__":
    main()
