"""Re-record the PTX files in this folder (needs the pip NVRTC and Triton; no GPU).

Run from anywhere: `python tests/data/ptx/record.py`. The tests assert exact facts about these
files (line numbers, counts), so re-recording with another compiler means updating those facts.
The sources' folder is renamed /src (and Triton's package folder /triton) in .file directives,
so the recordings do not depend on where the repository or the virtualenv lives.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"

CUDA = {
    # output name: (source, arch, extra options)
    "vecadd_sm80": ("vecadd.cu", "sm_80", []),
    "nounroll_sm90": ("nounroll.cu", "sm_90", []),
    "inlined_sm90": ("inlined.cu", "sm_90", []),
    "bounds_sm90": ("bounds.cu", "sm_90", []),
    "inline_asm_sm90": ("inline_asm.cu", "sm_90", []),
    "wgmma_sm90a": ("wgmma.cu", "sm_90a", []),
    "extern_func_sm90": ("extern_func.cu", "sm_90", ["--relocatable-device-code=true"]),
    "recursive_sm90": ("recursive.cu", "sm_90", []),
}


def nvrtc_ptx(source: str, arch: str, extra: list[str]) -> str:
    from cuda.bindings import nvrtc

    name = f"/src/{source}".encode()  # NVRTC keeps an absolute name as given
    err, prog = nvrtc.nvrtcCreateProgram((SRC / source).read_bytes(), name, 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
    opts = [f"--gpu-architecture={arch}".encode(), b"-lineinfo", *(o.encode() for o in extra)]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, n = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise SystemExit(log.decode(errors="replace"))
    _, n = nvrtc.nvrtcGetPTXSize(prog)
    buf = b" " * n
    nvrtc.nvrtcGetPTX(prog, buf)
    return buf.rstrip(b"\0").decode()


def triton_ptx() -> dict[str, str]:
    import triton
    from triton.backends.compiler import GPUTarget

    sys.path.insert(0, str(SRC))
    import triton_kernels as tk

    target = GPUTarget("cuda", 90, 32)
    add = triton.compiler.ASTSource(
        fn=tk.add_kernel,
        signature={
            "x_ptr": "*fp32",
            "y_ptr": "*fp32",
            "out_ptr": "*fp32",
            "n_elements": "i32",
            "BLOCK": "constexpr",
        },
        constexprs={"BLOCK": 1024},
    )
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    sig |= {
        s: "i32"
        for s in ("stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")
    }
    sig |= {"BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
    mm = triton.compiler.ASTSource(
        fn=tk.matmul_kernel,
        signature=sig,
        constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
    )
    nested = triton.compiler.ASTSource(
        fn=tk.nested_kernel,
        signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 256},
    )
    out = {}
    kernels = (("triton_add_sm90", add), ("triton_matmul_sm90", mm), ("triton_nested_sm90", nested))
    triton_dir = str(Path(triton.__file__).resolve().parent)
    for name, src in kernels:
        ptx = triton.compile(src, target=target).asm["ptx"]
        # Triton writes absolute paths of the kernel file and its own library.
        out[name] = ptx.replace(str(SRC) + os.sep, "/src/").replace(triton_dir + os.sep, "/triton/")
    return out


def cute_ptx() -> dict[str, str]:
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor

    sys.path.insert(0, str(SRC))
    import cute_kernels as ck

    t = make_fake_compact_tensor(cutlass.Float32, (128, 64))
    with tempfile.TemporaryDirectory() as dump:  # --keep-ptx also writes the PTX to a file
        opts = f"--keep-ptx --generate-line-info --dump-dir={dump}"
        compiled = cute.compile(ck.add, t, t, t, options=opts)
    return {"cute_add_sm90a": compiled.__ptx__.replace(str(SRC) + os.sep, "/src/")}


def cute_gemm_ptx() -> dict[str, str]:
    """The Hopper GEMM example's PTX, as sassview compiles it: LLVM numbers the lines of its
    inline asm (mbarrier waits, wgmma) from the calling statement."""
    import sassview

    example = HERE.parents[2] / "examples" / "cute" / "hopper_gemm.py"
    _, (program,) = sassview.load_kernel_file(example)
    assert program.artifacts.ptx is not None
    return {"cute_gemm_sm90a": program.artifacts.ptx.replace(str(example), "/src/hopper_gemm.py")}


def main() -> None:
    for out, (source, arch, extra) in CUDA.items():
        (HERE / f"{out}.ptx").write_text(nvrtc_ptx(source, arch, extra))
    for out, text in (triton_ptx() | cute_ptx() | cute_gemm_ptx()).items():
        (HERE / f"{out}.ptx").write_text(text)


if __name__ == "__main__":
    main()
