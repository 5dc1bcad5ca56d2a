from kernlib.ops.rmsnorm import _rms_norm_fwd

import sassview as sv

sv.triton(_rms_norm_fwd, signature={"X": "*fp16", "Y": "*fp16", "W": "*fp16", "RSTD": "*fp32", "stride_x": "i32", "stride_y": "i32", "N": "i32", "eps": "fp32"}, constexprs={"BLOCK_SIZE": 4096}, divisibility=["X", "Y", "W", "RSTD", "stride_x", "stride_y", "N"], num_warps=16)  # noqa: E501  # fmt: skip
