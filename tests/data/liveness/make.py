"""Re-make the cubins and nvdisasm listings tests/test_liveness.py checks liveness against.

    python tests/data/liveness/make.py            # every case
    python tests/data/liveness/make.py wide       # one case

Each tests/data/liveness/<case>/<arch>/ gets kernel.cubin (NVRTC or Triton), sass.txt
(`nvdisasm -c`, what the test parses) and plr.txt (`nvdisasm -c -plr -lrm count`, the '#' columns
it must match), both with runs of blanks squeezed to two: nvdisasm pads every line to the cubin's
longest. Sources are in sources/, except the Triton case: the matmul of
examples/triton/kernel.py as sassview compiles it there (LDGSTS whose shared destination's next
register is otherwise dead), for sm_90a only (Triton's sm_80 cubin has ELF ABI 7, on which
nvdisasm 13 refuses dataflow). Needs the pip toolchain (and Triton for that case), no GPU. The
corpus (tests/corpus) covers the everyday kernels; these add wide and unusual operands it lacks.
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
    "triton": ["sm_90a"],
}
# Cases compiled by Triton rather than NVRTC: (kernel.py declaring it, the kernel's name).
TRITON = {"triton": (HERE.parents[2] / "examples" / "triton" / "kernel.py", "matmul")}


def nvdisasm(*args: str | Path) -> str:
    from sassview.toolchain.locate import nvdisasm as locate

    return subprocess.run(
        [locate(), *map(str, args)], check=True, capture_output=True, text=True
    ).stdout


def squeeze(text: str) -> str:
    return "\n".join(re.sub(r"   +", "  ", line.rstrip()) for line in text.splitlines()) + "\n"


def compile_case(case: str, arch: str) -> bytes:
    if case in TRITON:
        import sassview as sv

        path, name = TRITON[case]
        _, programs = sv.load_kernel_file(path)
        return next(
            p.artifacts.cubin
            for p in programs
            if p.arch == arch and [k.name for k in p.kernels] == [name]
        )
    from sassview.frontends.cuda import compile_cuda

    return compile_cuda(path=HERE / "sources" / f"{case}.cu", arch=arch).cubin


def make(case: str) -> None:
    for arch in CASES[case]:
        out = HERE / case / arch
        out.mkdir(parents=True, exist_ok=True)
        cubin = out / "kernel.cubin"
        cubin.write_bytes(compile_case(case, arch))
        (out / "sass.txt").write_text(squeeze(nvdisasm("-c", cubin)))
        (out / "plr.txt").write_text(squeeze(nvdisasm("-c", "-plr", "-lrm", "count", cubin)))
        print(f"made {case}/{arch}")


def main() -> None:
    os.environ["SASSVIEW_NO_CACHE"] = "1"
    for case in sys.argv[1:] or list(CASES):
        make(case)


if __name__ == "__main__":
    main()
