"""Re-record the parser corpus: compile each source for each architecture, keep what the tools say.

    python tests/corpus/record.py            # everything
    python tests/corpus/record.py vecadd     # one case

For every (case, arch) it writes tests/corpus/<case>/<arch>/:
  kernel.ptx, kernel.cubin, compile.log   NVRTC's output (nvcc's where a case says so; for "-abi7"
                                          dirs, the PTX assembled by the ptxas 12.9 inside
                                          Triton, which writes ELF ABI 7)
  sass.json, sass.txt                     the nvdisasm wheel: -c -json -g -annotate / -c -gi -gp
  sass-13.1.json, sass-13.1.txt           the same from the nvdisasm 13.1 inside Triton
  res-usage.txt                           cuobjdump -res-usage: what the ELF reader must agree with
  cuobjdump-sass.txt                      cuobjdump -sass: the other text listing users bring
  meta.json                               tool versions and options
Parser tests read these files and need no compiler.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ALL = ["sm_80", "sm_90a", "sm_100a", "sm_120"]
CASES: dict[str, dict[str, object]] = {
    "vecadd": {"archs": ALL},
    "tiled": {"archs": ALL},
    "spill": {"archs": ["sm_80", "sm_90a"], "options": ["-maxrregcount=32"]},
    "bounds": {"archs": ALL},
    "mma": {"archs": ["sm_80", "sm_90a", "sm_120"]},
    "wgmma": {"archs": ["sm_90a"]},
    # A whole program (host code, template kernels instantiated by launches), built by nvcc.
    "whole_program": {"archs": ["sm_90a"], "compiler": "nvcc"},
}
# Cases whose PTX is also assembled by Triton's bundled ptxas 12.9 (ELF ABI 7).
ABI7 = {"vecadd": "sm_90a", "tiled": "sm_90a", "bounds": "sm_80"}


def triton_bin(name: str) -> Path | None:
    try:
        import triton
    except ImportError:
        return None
    path = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
    return path if path.exists() else None


def run(argv: list[str | Path]) -> str:
    return subprocess.run([str(a) for a in argv], check=True, capture_output=True, text=True).stdout


def disassemble(out: Path, cubin: Path) -> None:
    from sassview.toolchain.locate import nvdisasm

    nd = nvdisasm()
    (out / "sass.json").write_text(run([nd, "-c", "-json", "-g", "-annotate", cubin]))
    (out / "sass.txt").write_text(run([nd, "-c", "-gi", "-gp", cubin]))
    old = triton_bin("nvdisasm")
    if old is not None:
        # nvdisasm 13.1 has no -annotate (SpillRefill marks are a 13.5 addition).
        (out / "sass-13.1.json").write_text(run([old, "-c", "-json", "-g", cubin]))
        (out / "sass-13.1.txt").write_text(run([old, "-c", "-gi", "-gp", cubin]))


def record(case: str) -> None:
    from sassview.api import BuildOptions
    from sassview.frontends.cuda import compile_cuda
    from sassview.toolchain.locate import cuobjdump, toolchain_versions

    spec = CASES[case]
    source = HERE / "sources" / f"{case}.cu"
    options = list(spec.get("options", []))  # type: ignore[call-overload]
    for arch in spec["archs"]:  # type: ignore[attr-defined]
        compiler = str(spec.get("compiler", "nvrtc"))
        build = BuildOptions.of(options=options, compiler=compiler, compile_commands=False)
        art = compile_cuda(path=source, arch=arch, build=build)
        out = HERE / case / arch
        out.mkdir(parents=True, exist_ok=True)
        (out / "kernel.ptx").write_text(art.ptx or "")
        (out / "kernel.cubin").write_bytes(art.cubin)
        (out / "compile.log").write_text(art.compile_log)
        disassemble(out, out / "kernel.cubin")
        (out / "res-usage.txt").write_text(run([cuobjdump(), "-res-usage", out / "kernel.cubin"]))
        (out / "cuobjdump-sass.txt").write_text(run([cuobjdump(), "-sass", out / "kernel.cubin"]))
        meta = {
            "source": f"sources/{case}.cu",
            "arch": arch,
            "options": list(art.options),
            "compiler": art.compiler,
            "tools": toolchain_versions(),
        }
        (out / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        print(f"recorded {case}/{arch}")
        if ABI7.get(case) == arch:
            record_abi7(case, arch, art.ptx or "")


def record_abi7(case: str, arch: str, ptx: str) -> None:
    """The same PTX through Triton's ptxas 12.9 (which reads PTX up to 8.8, writes ELF ABI 7)."""
    from sassview.toolchain.locate import cuobjdump

    ptxas = triton_bin("ptxas")
    if ptxas is None:
        print("skipped ABI 7 cases: triton is not installed", file=sys.stderr)
        return
    out = HERE / case / f"{arch}-abi7"
    out.mkdir(parents=True, exist_ok=True)
    old_ptx = re.sub(r"^\.version \d+\.\d+", ".version 8.7", ptx, count=1, flags=re.M)
    (out / "kernel.ptx").write_text(old_ptx)
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "k.cubin"
        done = subprocess.run(
            [
                str(ptxas),
                f"-arch={arch}",
                "-lineinfo",
                "-v",
                str(out / "kernel.ptx"),
                "-o",
                str(cubin),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        (out / "kernel.cubin").write_bytes(cubin.read_bytes())
    (out / "compile.log").write_text(done.stdout + done.stderr)
    disassemble(out, out / "kernel.cubin")
    (out / "res-usage.txt").write_text(run([cuobjdump(), "-res-usage", out / "kernel.cubin"]))
    meta = {
        "source": f"sources/{case}.cu",
        "arch": arch,
        "assembler": run([ptxas, "--version"]).strip().splitlines()[-1],
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(f"recorded {case}/{arch}-abi7")


def main() -> None:
    os.environ["SASSVIEW_NO_CACHE"] = "1"
    for case in sys.argv[1:] or list(CASES):
        record(case)


if __name__ == "__main__":
    main()
