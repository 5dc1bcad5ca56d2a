"""Re-record the Triton stages in this folder (needs Triton; no GPU).

`python tests/data/stages/record.py`: the matmul and the unrolled row sum of tests/data/ptx/src/
triton_kernels.py through sassview's Triton frontend, for sm_90a; their TTIR, TTGIR and LLVM IR
with the source folder renamed /src and Triton's package folder /triton, as in tests/data/ptx.
tests/test_stage_lines.py asserts facts read off these files.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "ptx" / "src"


def main() -> None:
    import triton

    from sassview.frontends.triton import compile_triton

    sys.path.insert(0, str(SRC))
    import triton_kernels as tk

    triton_dir = str(Path(triton.__file__).resolve().parent)
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    sig |= {
        s: "i32"
        for s in ("stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")
    }
    art = compile_triton(
        tk.matmul_kernel,
        signature=sig,
        constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
        arch="sm_90a",
    )
    for stage in ("ttir", "ttgir", "llir"):
        text = art.stages[stage].replace(str(SRC), "/src").replace(triton_dir, "/triton")
        (HERE / f"matmul.{stage}").write_text(text)
    # A loop Triton unrolls itself (tl.range(..., loop_unroll_factor=4)): a main loop of four
    # copies and its remainder loop (tests/test_mlir.py).
    art = compile_triton(
        tk.rowsum_kernel,
        signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        constexprs={"BLOCK": 128, "UNROLL": 4},
        arch="sm_90a",
    )
    for stage in ("ttir", "ttgir"):
        text = art.stages[stage].replace(str(SRC), "/src").replace(triton_dir, "/triton")
        (HERE / f"rowsum_unroll4.{stage}").write_text(text)


if __name__ == "__main__":
    main()
