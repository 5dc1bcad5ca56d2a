"""The CUDA C++ matmul progression, declared for sassview:
`sassview check examples/matmul/kernel.py`.

Each step is a .cu file beside this one; the comment at the top of each says what its SASS
should show, and tests/test_examples.py checks that it does.
"""

import sassview as sv

sv.cuda_file("01_naive.cu", arch=["sm_80", "sm_90a"])
sv.cuda_file("02_smem_tiled.cu", arch=["sm_80", "sm_90a"])
sv.cuda_file("03_register_blocking.cu", arch=["sm_80", "sm_90a"])
sv.cuda_file("04_warp_tiling.cu", arch=["sm_80", "sm_90a"])
sv.cuda_file("05_wgmma_tma.cu", arch="sm_90a")
