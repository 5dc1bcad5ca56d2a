from badlib.tables import _gather

import sassview as sv

sv.triton(_gather, signature={"x_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32", "n": "i32"}, constexprs={"BLOCK": 1024})  # noqa: E501  # fmt: skip
