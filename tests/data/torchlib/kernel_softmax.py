from kernlib.ops.softmax import _softmax_kernel

import sassview as sv

sv.triton(_softmax_kernel, args=dict(out_ptr=sv.tensor("fp32", (4096, 1024)), in_ptr=sv.tensor("fp32", (4096, 1024)), in_row_stride=1024, out_row_stride=1024, n_rows=4096, n_cols=1024, BLOCK_SIZE=1024, num_stages=4), num_warps=8)  # noqa: E501  # fmt: skip
