"""A CuTe DSL kernel class that reads the architecture when it is built, as FlashAttention's
kernel classes do, and a kernel.py-style factory that builds it per architecture.

`ArchCopy()` asks the DSL for its target in `__init__`: sm_9x copies 128 bits a thread
(LDG.E.128), sm_10x 256 bits (LDG.E.ENL2.256, which Hopper does not have); anything else is
refused. Built at import, without a GPU, it would always be the sm_100a object.
"""

import cutlass
import cutlass.cute as cute
from cutlass.base_dsl.dsl import BaseDSL

import sassview as sv

THREADS = 128


class ArchCopy:
    def __init__(self, scale: float = 2.0):
        arch = BaseDSL._get_dsl().get_arch_enum()
        assert arch.major in (9, 10), f"ArchCopy supports sm_9x and sm_10x, not {arch}"  # ARCH
        self.bits = 256 if arch.major == 10 else 128
        self.scale = scale

    @cute.jit
    def __call__(self, mA: cute.Tensor, mC: cute.Tensor):
        thr_layout = cute.make_layout(THREADS)
        val_layout = cute.make_layout(self.bits // mA.element_type.width)
        tiler, _ = cute.make_layout_tv(thr_layout, val_layout)
        gA = cute.zipped_divide(mA, tiler)
        gC = cute.zipped_divide(mC, tiler)
        self.kernel(gA, gC, thr_layout, val_layout).launch(
            grid=[cute.size(gC, mode=[1]), 1, 1], block=[THREADS, 1, 1]
        )

    @cute.kernel
    def kernel(self, gA: cute.Tensor, gC: cute.Tensor, thr: cute.Layout, val: cute.Layout):
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        atom = cute.make_copy_atom(
            cute.nvgpu.CopyUniversalOp(), gA.element_type, num_bits_per_copy=self.bits
        )
        part = cute.make_tiled_copy_tv(atom, thr, val).get_slice(tidx)
        src = part.partition_S(gA[(None, bidx)])
        dst = part.partition_D(gC[(None, bidx)])
        frg = cute.make_fragment_like(src)
        cute.copy(atom, src, frg)
        frg.store(frg.load() * self.scale)
        cute.copy(atom, frg, dst)


def fake(n: int = 1 << 20) -> list:
    return [
        cute.runtime.make_fake_compact_tensor(cutlass.Float32, (n,), assumed_align=32)
        for _ in range(2)
    ]


def make_copy(arch: str, scale: float = 2.0):  # noqa: ANN201 - returns (host, *fake args)
    return ArchCopy(scale), *fake()


sv.cute(make_copy, arch=["sm_90a", "sm_100a"], variants={"scale": [2.0, 3.0]})
