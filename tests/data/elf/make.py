"""Re-make the small cubins tests/test_elf.py reads, for what tests/corpus does not cover.

    python tests/data/elf/make.py

Each tests/data/elf/<case>/<arch>/ gets kernel.cubin, ptxas.log (the assembler's -v report),
res-usage.txt (cuobjdump -res-usage, what the ELF reader must agree with) and meta.json. A
"-ptxas12" or "-abi7" directory holds the PTX of NVRTC assembled by the ptxas 12.9 inside Triton
(ELF ABI 7 below sm_100, ABI 8 with the old e_flags `a` bit from sm_100). Needs the pip toolchain
and Triton; no GPU. Sources are in sources/; -lineinfo is left out to keep the files small.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
CUOBJDUMP = BIN / "site-packages/nvidia/cu13/bin/cuobjdump"
PTXAS12 = BIN / "site-packages/triton/backends/nvidia/bin/ptxas"

# (case, output dir, source, extra NVRTC options); a dir ending in -abi7/-ptxas12 uses ptxas 12.9.
CUBINS: list[tuple[str, str, str, list[str]]] = [
    ("devfn", "sm_80", "devfn.cu", ["-rdc=true"]),
    ("stack", "sm_80", "stack.cu", []),
    ("shared3", "sm_90a", "shared3.cu", []),
    ("shared3", "sm_90a-abi7", "shared3.cu", []),
    ("shared3", "sm_120a-ptxas12", "shared3.cu", []),
    ("bounds", "sm_90a", "bounds.cu", []),
    ("reqntid", "sm_90a-abi7", "reqntid.ptx", []),
    ("tcgen05", "sm_100a", "tcgen05.cu", []),
    ("tcgen05", "sm_100f", "tcgen05.cu", []),
    ("globals", "sm_80", "globals.cu", []),
    ("bulk", "sm_90", "bulk.cu", []),
    *[("tiny", a, "tiny.cu", []) for a in ("sm_90", "sm_100f", "sm_103a", "sm_120", "sm_120a")],
]


def nvrtc(source: Path, arch: str, options: list[str]) -> tuple[bytes, str, str]:
    """(cubin, PTX, log) from NVRTC."""
    from cuda.bindings import nvrtc as rt

    _, prog = rt.nvrtcCreateProgram(source.read_bytes(), source.name.encode(), 0, [], [])
    opts = [f"--gpu-architecture={arch}".encode(), b"--ptxas-options=-v"]
    opts += [o.encode() for o in options]
    (err,) = rt.nvrtcCompileProgram(prog, len(opts), opts)
    _, n = rt.nvrtcGetProgramLogSize(prog)
    log = b" " * n
    rt.nvrtcGetProgramLog(prog, log)
    if err != rt.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(log.decode())
    _, n = rt.nvrtcGetCUBINSize(prog)
    cubin = b" " * n
    rt.nvrtcGetCUBIN(prog, cubin)
    _, n = rt.nvrtcGetPTXSize(prog)
    ptx = b" " * n
    rt.nvrtcGetPTX(prog, ptx)
    return cubin, ptx.rstrip(b"\0").decode(), log.rstrip(b"\0").decode()


def ptxas12(ptx: str, arch: str) -> tuple[bytes, str]:
    """Assemble with Triton's ptxas 12.9, which reads PTX up to .version 8.8."""
    ptx = re.sub(r"^\.version .*$", ".version 8.7", ptx, count=1, flags=re.M)
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        run = subprocess.run(
            [str(PTXAS12), f"-arch={arch}", "-v", str(src), "-o", str(out)],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.read_bytes(), run.stdout + run.stderr


def make(case: str, where: str, source: str, options: list[str]) -> None:
    arch = where.split("-")[0]
    path = HERE / "sources" / source
    if path.suffix == ".ptx":
        cubin, log = ptxas12(path.read_text(), arch)
    elif where.endswith(("-abi7", "-ptxas12")):
        _, ptx, _ = nvrtc(path, arch, options)
        cubin, log = ptxas12(ptx, arch)
    else:
        cubin, _, log = nvrtc(path, arch, options)
    out = HERE / case / where
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernel.cubin").write_bytes(cubin)
    (out / "ptxas.log").write_text(log)
    res = subprocess.run(
        [str(CUOBJDUMP), "-res-usage", str(out / "kernel.cubin")],
        capture_output=True,
        text=True,
        check=True,
    )
    (out / "res-usage.txt").write_text(res.stdout)
    meta = {"arch": arch, "source": f"sources/{source}", "options": options}
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{case}/{where}: {len(cubin)} bytes")


if __name__ == "__main__":
    for entry in CUBINS:
        make(*entry)
