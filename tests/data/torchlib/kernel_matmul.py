from kernlib.ops.matmul import _matmul_kernel

import sassview as sv

sv.triton(_matmul_kernel, args=dict(a_ptr=sv.tensor("fp16", (4096, 4096)), b_ptr=sv.tensor("fp16", (4096, 4096)), c_ptr=sv.tensor("fp16", (4096, 4096)), M=4096, N=4096, K=4096, stride_am=4096, stride_ak=1, stride_bk=4096, stride_bn=1, stride_cm=4096, stride_cn=1))  # noqa: E501  # fmt: skip
