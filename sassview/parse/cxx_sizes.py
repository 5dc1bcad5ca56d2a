"""The sizes `sizeof` gives the built-in and CUDA vector types a kernel sizes its loops by
(`for (j = 0; j < sizeof(float4) / sizeof(float); ++j)`: 4 trips), for
`sassview.parse.source_loops.constant_expression`. A table, not the compiler's answer: a
type not in it has no size here (the bound is then unknown, never guessed).
"""

from __future__ import annotations

from collections.abc import Mapping

# sizeof of the types kernels size their loops by (CUDA's vector types: 4 words in a float4)
SIZES: Mapping[str, int] = {
    **dict.fromkeys(("char", "int8_t", "uint8_t", "bool", "__nv_fp8_e4m3", "__nv_fp8_e5m2"), 1),
    **dict.fromkeys(("short", "int16_t", "uint16_t", "half", "__half", "__nv_bfloat16"), 2),
    **dict.fromkeys(("int", "float", "uint", "unsigned", "int32_t", "uint32_t", "half2"), 4),
    **dict.fromkeys(("__half2", "__nv_bfloat162", "char4", "uchar4"), 4),
    **dict.fromkeys(
        ("double", "long", "int64_t", "uint64_t", "size_t", "float2", "int2", "uint2"), 8
    ),
    **dict.fromkeys(("double2", "float4", "int4", "uint4", "longlong2"), 16),
    **{"short4": 8, "ushort4": 8, "char2": 2, "uchar2": 2, "short2": 4, "ushort2": 4},
    **{"double4": 32, "float3": 12, "int3": 12, "uint3": 12},
}
