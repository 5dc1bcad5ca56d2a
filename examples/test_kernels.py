"""What the compiler made of the example kernels, pinned down as tests. Copy this file next to
your own kernels and edit the claims: CI then fails when a change (yours, or a new compiler)
loses a 128-bit load, wgmma or an unroll, or starts to spill. No GPU needed.

    pip install sassview                   # the plugin comes with it
    pytest examples/test_kernels.py        # each test runs for sm_90a (the default)
    pytest examples/test_kernels.py --sassview-arch sm_80,sm_90a   # ... once per arch
    pytest examples/test_kernels.py --sassview-update              # accept changed snapshots

`sassview_kernel(path, kernel=...)` compiles a file once per test session (paths are relative to
this file) and returns a KernelUnderTest; its assert_* methods fail with the slice of SASS that
proves it, next to your source lines.
"""

import pytest


def test_float4_loads_and_stores_are_128_bit(sassview_kernel):
    k = sassview_kernel("vecadd.cu", kernel="add_f4")
    k.assert_load_width(128, lines=7)  # float4 x = a[i], y = b[i];
    k.assert_store_width(128, lines=8)
    k.assert_count("LDG.E.128*", 2)  # * also matches LDG.E.128.CONSTANT
    k.assert_no_spills()
    k.assert_max_registers(32)


def test_scalar_add_stays_32_bit(sassview_kernel):
    k = sassview_kernel("vecadd.cu", kernel="add_scalar")
    k.assert_load_width(32)
    k.assert_count("LDG.E.128*", 0)


def test_float4_gather_is_one_load_per_thread(sassview_kernel):
    k = sassview_kernel("gather.cu", kernel="sum4")
    k.assert_count("LDG", 1)  # an opcode alone matches any modifiers
    k.assert_load_width(">=128")


def test_scalar_gather_is_four_narrow_loads(sassview_kernel):
    # The claim a test would normally make is assert_load_width(128); it fails, and says why:
    # "near miss: 4 x LDG.E.CONSTANT at offsets 0x0, 0x4, 0x8, 0xc from one base ..." with the
    # hint about alignment and __restrict__. Here we pin what the compiler does instead.
    k = sassview_kernel("gather.cu", kernel="sum4_scalar")
    k.assert_count("LDG.E*", 4, lines=12)
    with pytest.raises(AssertionError, match="near miss: 4 x LDG"):
        k.assert_load_width(128)


def test_runtime_loop_is_unrolled_by_4(sassview_kernel):
    k = sassview_kernel("tiled.cu")
    k.assert_unrolled(line=9, factor=4)  # #pragma unroll 4, trip count known only at run time
    loop = k.loop(line=9)
    k.assert_count("LDS", 4, loop=loop)  # four iterations' loads per trip
    k.assert_count("FADD", 4, loop=loop)


@pytest.mark.sassview(arch="sm_90a")  # wgmma exists only on sm_90a, whatever --sassview-arch says
def test_warpgroup_mma(sassview_kernel):
    k = sassview_kernel("wgmma.cu")
    k.assert_uses("wgmma")
    k.assert_count("HGMMA.64x8x16*", 1)


@pytest.mark.sassview(path="pressure.cu", options=["-maxrregcount=32"])
def test_register_cap_makes_it_spill(sassview_kernel):
    k = sassview_kernel()  # path and options from the marker
    k.assert_uses("spills")
    k.assert_max_registers(32)


def test_without_a_cap_it_fits(sassview_kernel):
    k = sassview_kernel("pressure.cu")
    k.assert_no_spills()
    k.assert_unrolled(line=6, factor="full")  # #pragma unroll over a constant trip count


def test_sass_filecheck(sassview_kernel):
    # LLVM FileCheck over the SASS listing (`k.sass_text()` shows it); errors point here.
    sassview_kernel("vecadd.cu", kernel="add_f4").filecheck("""
        CHECK-LABEL: add_f4:
        CHECK:       LDG.E.128{{(\\.CONSTANT)?}} [[A:R[0-9]+]],
        CHECK:       LDG.E.128{{.*}} [[B:R[0-9]+]],
        CHECK-NOT:   STL
        CHECK-COUNT-4: FADD
        CHECK:       STG.E.128 {{.*}}, [[A]] ;
        CHECK-NEXT:  EXIT
    """)


def test_ptx_filecheck(sassview_kernel):
    sassview_kernel("vecadd.cu", kernel="add_f4").filecheck(
        """
        CHECK-DAG: ld.global.nc.v4.f32
        CHECK-DAG: st.global.v4.f32
        CHECK-NOT: ld.global.f32
    """,
        on="ptx",
    )


def test_listing_snapshot(sassview_kernel):
    # Normalised (registers renamed, labels renumbered, addresses dropped) and kept in
    # __snapshots__/test_kernels/: the first run writes it (and says so), to review and commit.
    sassview_kernel("vecadd.cu", kernel="add_f4").snapshot()
