"""A warp-specialised Hopper GEMM in the CuTe DSL (sm_90a): one producer warpgroup, one
consumer warpgroup, an mbarrier pipeline between them. The shape of CUTLASS's Hopper
warp-specialised kernels, cut to the bone (examples/cute/hopper_gemm.py is the unspecialised
one it comes from):

- warps 0-3, the producer: give registers back (setmaxnreg.dec 40); warp 0 waits for an empty
  stage, arms its full barrier and starts the TMA loads of the next k-tile, STAGES ahead;
- warps 4-7, the consumer: take registers (setmaxnreg.inc 232); wait for a full stage, run its
  WGMMAs, release it, and write C from registers at the end.
"""

import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, warpgroup
from cutlass.memory import SmemAllocator

import sassview as sv

BM, BN, BK = 128, 128, 64
STAGES = 4
THREADS = 256  # two warpgroups
DTYPE = cutlass.BFloat16


@cute.jit
def ws_gemm(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    atom = warpgroup.make_smem_layout_atom(warpgroup.SmemLayoutAtomKind.K_SW128, DTYPE)
    sA_layout = cute.tile_to_shape(atom, (BM, BK, STAGES), order=(0, 1, 2))
    sB_layout = cute.tile_to_shape(atom, (BN, BK, STAGES), order=(0, 1, 2))
    mma_op = warpgroup.MmaF16BF16Op(
        DTYPE,
        cutlass.Float32,
        (64, BN, 16),
        warpgroup.OperandSource.SMEM,
        OperandMajorMode.K,
        OperandMajorMode.K,
    )
    tiled_mma = cute.make_tiled_mma(cute.make_mma_atom(mma_op), (1, 1, 1))
    g2s = cpasync.CopyBulkTensorTileG2SOp()
    tma_a, tma_mA = cpasync.make_tiled_tma_atom(g2s, mA, sA_layout, (BM, BK))
    tma_b, tma_mB = cpasync.make_tiled_tma_atom(g2s, mB, sB_layout, (BN, BK))
    grid = (cute.ceil_div(mC.shape[0], BM), cute.ceil_div(mC.shape[1], BN), 1)
    ws_gemm_kernel(tiled_mma, tma_a, tma_mA, tma_b, tma_mB, mC, sA_layout, sB_layout).launch(
        grid=grid,
        block=(THREADS, 1, 1),
        min_blocks_per_mp=1,  # lets ptxas honour setmaxnreg
    )


@cute.kernel
def ws_gemm_kernel(
    tiled_mma: cute.TiledMma,
    tma_a: cute.CopyAtom,
    mA: cute.Tensor,
    tma_b: cute.CopyAtom,
    mB: cute.Tensor,
    mC: cute.Tensor,
    sA_layout: cute.ComposedLayout,
    sB_layout: cute.ComposedLayout,
):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, bidy, _ = cute.arch.block_idx()
    warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())

    smem = SmemAllocator()
    sA = smem.allocate_tensor(DTYPE, sA_layout.outer, 1024, sA_layout.inner)
    sB = smem.allocate_tensor(DTYPE, sB_layout.outer, 1024, sB_layout.inner)
    stage_bytes = cute.size_in_bytes(DTYPE, cute.slice_(sA_layout, (None, None, 0)))
    stage_bytes += cute.size_in_bytes(DTYPE, cute.slice_(sB_layout, (None, None, 0)))
    mainloop = pipeline.PipelineTmaAsync.create(
        num_stages=STAGES,
        producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 4),  # 4 consumer warps
        tx_count=stage_bytes,
    )
    tile = (BM, BN, BK)
    gA = cute.local_tile(mA, tile, (bidx, bidy, None), proj=(1, None, 1))
    gB = cute.local_tile(mB, tile, (bidx, bidy, None), proj=(None, 1, 1))
    gC = cute.local_tile(mC, tile, (bidx, bidy, None), proj=(1, 1, None))
    k_tiles = cute.size(gA, mode=[2])

    if warp_idx < 4:  # PRODUCER
        cute.arch.setmaxregister_decrease(40)
        if warp_idx == 0:
            tAsA, tAgA = cpasync.tma_partition(
                tma_a,
                0,
                cute.make_layout(1),
                cute.group_modes(sA, 0, 2),
                cute.group_modes(gA, 0, 2),
            )
            tBsB, tBgB = cpasync.tma_partition(
                tma_b,
                0,
                cute.make_layout(1),
                cute.group_modes(sB, 0, 2),
                cute.group_modes(gB, 0, 2),
            )
            producer = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, STAGES)
            for _ in cutlass.range(k_tiles, unroll=1):  # PRODUCER LOOP
                mainloop.producer_acquire(producer)
                full = mainloop.producer_get_barrier(producer)
                k, stage = producer.count, producer.index
                cute.copy(tma_a, tAgA[(None, k)], tAsA[(None, stage)], tma_bar_ptr=full)
                cute.copy(tma_b, tBgB[(None, k)], tBsB[(None, stage)], tma_bar_ptr=full)
                producer.advance()
            mainloop.producer_tail(producer)
    else:  # CONSUMER
        cute.arch.setmaxregister_increase(232)
        thr_mma = tiled_mma.get_slice(tidx - 128)
        tCrA = tiled_mma.make_fragment_A(thr_mma.partition_A(sA))
        tCrB = tiled_mma.make_fragment_B(thr_mma.partition_B(sB))
        tCgC = thr_mma.partition_C(gC)
        acc = tiled_mma.make_fragment_C(tCgC)
        acc.fill(0.0)
        tiled_mma.set(warpgroup.Field.ACCUMULATE, True)
        reader = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, STAGES)
        for _ in cutlass.range(k_tiles, unroll=1):  # CONSUMER LOOP
            mainloop.consumer_wait(reader)
            warpgroup.fence()
            for k in range(cute.size(tCrA, mode=[2])):
                cute.gemm(
                    tiled_mma,
                    acc,
                    tCrA[(None, None, k, reader.index)],
                    tCrB[(None, None, k, reader.index)],
                    acc,
                )
            warpgroup.commit_group()
            warpgroup.wait_group(0)
            mainloop.consumer_release(reader)
            reader.advance()
        out = cute.make_rmem_tensor_like(acc, DTYPE)
        out.store(acc.load().to(DTYPE))
        cute.autovec_copy(out, tCgC)


def fake(rows: cute.typing.SymInt, k: cute.typing.SymInt) -> cute.Tensor:
    return cute.runtime.make_fake_compact_tensor(
        DTYPE, (rows, k), stride_order=(1, 0), assumed_align=16
    )


M, N, K = cute.sym_int32(divisibility=BM), cute.sym_int32(divisibility=BN), cute.sym_int32(8)
sv.cute(ws_gemm, fake(M, K), fake(N, K), fake(M, N), arch="sm_90a")
