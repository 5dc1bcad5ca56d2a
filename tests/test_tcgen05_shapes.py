"""tcgen05 MMA shapes from constant instruction descriptors (analyses/tcgen05_idesc.py).

tests/data/analyses/sources/tcgen05_shapes.cu writes each descriptor by its fields, so every
shape below is known by construction; ptxas materialises them as `UMOV URx, imm`."""

from __future__ import annotations

import pytest
from analyses_data import MODES, program

from sassview.analyses.tcgen05_idesc import Tcgen05Shape, decode_idesc
from sassview.inspection import inspect_kernel


def _ops(mode: str, kernel: str) -> list[dict[str, object]]:
    prog = program(mode, "tcgen05_shapes", "sm_100a")
    return list(inspect_kernel(prog, prog.kernel(kernel)).facts("tensor_cores")["ops"])


@pytest.mark.parametrize("mode", MODES)
def test_constant_descriptors_give_the_shapes_the_source_wrote(mode: str) -> None:
    got = [
        (o["mnemonic"], o["shape"], o["accumulator"], o["inputs"]) for o in _ops(mode, "tc_const")
    ]
    assert got == [
        ("UTCHMMA", "m128n256k16", "F32", "BF16"),
        ("UTCQMMA", "m64n64k32", "F32", "E4M3.E5M2"),
        ("UTCIMMA", "m128n32k32", "S32", "S8.U8"),
        # The last descriptor is loaded from memory: no shape, the PTX kind as before.
        ("UTCHMMA", None, None, "kind::f16"),
    ]
    assert [o["descriptor"] for o in _ops(mode, "tc_const")] == [
        "0x8400490",
        "0x4100410",
        "0x80800a0",
        None,
    ]


@pytest.mark.parametrize("mode", MODES)
def test_a_cta_pair_mma_has_the_pairs_m(mode: str) -> None:
    (op,) = _ops(mode, "tc_pair")
    assert (op["mnemonic"], op["shape"], op["inputs"], op["cta_group"]) == (
        "UTCHMMA.2CTA",
        "m256n128k8",
        "TF32",
        2,
    )


def test_decode_reads_each_field() -> None:
    value = (8 << 24) | (32 << 17) | (1 << 16) | (1 << 10) | (1 << 7) | (1 << 4)
    assert decode_idesc(value, "kind::f16") == Tcgen05Shape(
        m=128,
        n=256,
        k=16,
        accumulator="F32",
        inputs="BF16",
        sparse=False,
        a_mn_major=False,
        b_mn_major=True,
    )
    sparse = decode_idesc((4 << 24) | (8 << 17) | (1 << 2) | (1 << 4), "kind::f16")
    assert sparse is not None and (sparse.shape, sparse.sparse) == ("m64n64k32", True)


@pytest.mark.parametrize(
    ("value", "kind", "group"),
    [
        ((3 << 24) | (8 << 17) | (1 << 4), "kind::f16", 1),  # M = 48: no such shape
        ((8 << 24) | (1 << 17) | (1 << 4), "kind::f16", 1),  # N = 8 with M = 128: too narrow
        ((16 << 24) | (8 << 17) | (1 << 4), "kind::f16", 1),  # M = 256 needs a CTA pair
        ((8 << 24) | (8 << 17) | (3 << 4), "kind::f16", 1),  # D type 3 does not exist
        ((8 << 24) | (8 << 17) | (1 << 4), "kind::mxf8f6f4", 1),  # block-scaled: other layout
        ((8 << 24) | (8 << 17) | (1 << 4), None, 1),  # kind unknown (no PTX)
    ],
)
def test_a_descriptor_that_makes_no_shape_is_unknown_not_guessed(
    value: int, kind: str | None, group: int
) -> None:
    assert decode_idesc(value, kind, group) is None
