"""A Hopper GEMM in the CuTe DSL: `sassview check examples/cute/hopper_gemm.py`.

C = A @ B.T for bf16 A (M x K) and B (N x K), both K-major, accumulated in fp32 and written as
bf16 C (M x N). One CTA of one warpgroup (128 threads) computes a 128 x 128 tile of C:

- TMA copies 128 x 64 tiles of A and B into shared memory (128-byte swizzle, 4 stages);
- an mbarrier pipeline (`PipelineTmaAsync`) tells the warpgroup when a stage has landed and
  tells the loader (warp 0) when all four warps are done reading it;
- WGMMA reads both operands straight from shared memory: per k-tile one commit group of
  8 instructions (4 K-steps of 16 x the tile's two 64-row halves), one group kept in flight.

What the SASS shows (sm_90a, no GPU needed: the tensors are fake, M, N, K are runtime values):

- tensor cores: only `HGMMA.64x128x16.F32.BF16` (path "wgmma"), 16 of them (the peeled first
  k-tile and the loop body), and 2 waits (`WARPGROUP.DEPBAR`), not one per HGMMA;
- `UTMALDG` for the TMA loads (prologue and loop: 4), `SYNCS` for the mbarriers (init,
  try-wait, arrive with the expected byte count);
- no spills: the 128 x 128 fp32 accumulator is 128 of the thread's ~154 registers;
- the epilogue: 64 `F2FP` (fp32 pairs to bf16x2) and 64 32-bit `STG.E`, straight from
  registers (sassview notes them as narrow; a TMA-store epilogue would replace them);
- shared memory: 0 B static, 132,096 B dynamic: the 128 KiB of stages and the pipeline's
  mbarriers, which the DSL sizes after tracing and asks for at launch.

Limits, to stay small: M and N multiples of 128 (the epilogue stores whole tiles unchecked),
K a positive multiple of 8 (TMA wants 16-byte row strides; it zero-fills a ragged last
k-tile), one CTA per output tile, no clusters or multicast.
"""

import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, warpgroup
from cutlass.memory import SmemAllocator

import sassview as sv

BM, BN, BK = 128, 128, 64  # the CTA tile
STAGES = 4  # 4 x (16 KiB of A + 16 KiB of B) of shared memory
THREADS = 128  # one warpgroup: the WGMMA issuers; its warp 0 also issues the TMA loads
DTYPE = cutlass.BFloat16  # of A, B and C; the accumulators are fp32


@cute.jit
def hopper_gemm(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    # Shared-memory tiles, K-major with the 128-byte swizzle (64 bf16 = 128 B per row) that
    # TMA writes and WGMMA reads without bank conflicts; the last mode is the stage.
    atom = warpgroup.make_smem_layout_atom(warpgroup.SmemLayoutAtomKind.K_SW128, DTYPE)
    sA_layout = cute.tile_to_shape(atom, (BM, BK, STAGES), order=(0, 1, 2))
    sB_layout = cute.tile_to_shape(atom, (BN, BK, STAGES), order=(0, 1, 2))

    # One WGMMA atom: 64 x BN x 16, A and B from shared memory, fp32 accumulators.
    mma_op = warpgroup.MmaF16BF16Op(
        DTYPE,
        cutlass.Float32,
        (64, BN, 16),
        warpgroup.OperandSource.SMEM,
        OperandMajorMode.K,
        OperandMajorMode.K,
    )
    tiled_mma = cute.make_tiled_mma(cute.make_mma_atom(mma_op), (1, 1, 1))

    # TMA descriptors: each copy moves one (BM, BK) stage of A or one (BN, BK) stage of B.
    g2s = cpasync.CopyBulkTensorTileG2SOp()
    tma_a, tma_mA = cpasync.make_tiled_tma_atom(g2s, mA, sA_layout, (BM, BK))
    tma_b, tma_mB = cpasync.make_tiled_tma_atom(g2s, mB, sB_layout, (BN, BK))

    grid = (cute.ceil_div(mC.shape[0], BM), cute.ceil_div(mC.shape[1], BN), 1)
    gemm_kernel(tiled_mma, tma_a, tma_mA, tma_b, tma_mB, mC, sA_layout, sB_layout).launch(
        grid=grid, block=(THREADS, 1, 1)
    )


@cute.kernel
def gemm_kernel(
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
    if warp_idx == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    # Shared memory: the staged operand tiles (1024-byte aligned for the swizzle) and, made by
    # the pipeline, a "full" and an "empty" mbarrier per stage. Full: TMA has written the
    # stage (the barrier counts the expected bytes). Empty: all 4 warps have read it.
    smem = SmemAllocator()
    sA = smem.allocate_tensor(DTYPE, sA_layout.outer, 1024, sA_layout.inner)
    sB = smem.allocate_tensor(DTYPE, sB_layout.outer, 1024, sB_layout.inner)
    stage_bytes = cute.size_in_bytes(DTYPE, cute.slice_(sA_layout, (None, None, 0)))
    stage_bytes += cute.size_in_bytes(DTYPE, cute.slice_(sB_layout, (None, None, 0)))
    mainloop = pipeline.PipelineTmaAsync.create(
        num_stages=STAGES,
        producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),  # one elected thread
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, THREADS // 32),
        tx_count=stage_bytes,
    )

    # This CTA's tiles: gA is (BM, BK, k_tiles), gB (BN, BK, k_tiles), gC (BM, BN).
    tile = (BM, BN, BK)
    gA = cute.local_tile(mA, tile, (bidx, bidy, None), proj=(1, None, 1))
    gB = cute.local_tile(mB, tile, (bidx, bidy, None), proj=(None, 1, 1))
    gC = cute.local_tile(mC, tile, (bidx, bidy, None), proj=(1, 1, None))
    k_tiles = cute.size(gA, mode=[2])

    # TMA partitions: tAgA[(None, k)] is the k-th tile in global memory, tAsA[(None, s)] the
    # s-th stage in shared memory (one CTA, so no multicast: CTA coordinate 0 of 1).
    tAsA, tAgA = cpasync.tma_partition(
        tma_a, 0, cute.make_layout(1), cute.group_modes(sA, 0, 2), cute.group_modes(gA, 0, 2)
    )
    tBsB, tBgB = cpasync.tma_partition(
        tma_b, 0, cute.make_layout(1), cute.group_modes(sB, 0, 2), cute.group_modes(gB, 0, 2)
    )

    # MMA partitions: WGMMA descriptors over the shared-memory stages, and this thread's
    # accumulators and elements of C.
    thr_mma = tiled_mma.get_slice(tidx)
    tCrA = tiled_mma.make_fragment_A(thr_mma.partition_A(sA))  # (MMA, MMA_M, MMA_K, STAGE)
    tCrB = tiled_mma.make_fragment_B(thr_mma.partition_B(sB))  # (MMA, MMA_N, MMA_K, STAGE)
    tCgC = thr_mma.partition_C(gC)
    acc = tiled_mma.make_fragment_C(tCgC)  # fp32, (MMA, MMA_M, MMA_N)

    producer = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, STAGES)
    reader = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, STAGES)
    releaser = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, STAGES)

    # Prologue: warp 0 starts the loads of the first STAGES k-tiles.
    if warp_idx == 0:
        for _ in cutlass.range(cutlass.min(STAGES, k_tiles), unroll=1):
            load_k_tile(mainloop, producer, tma_a, tAgA, tAsA, tma_b, tBgB, tBsB)
            producer.advance()

    # Main loop: multiply the stage that has landed while the next stages are in flight. The
    # first k-tile is peeled: its first WGMMA overwrites acc, and every later iteration finds
    # one WGMMA group in flight. (As one loop with `if k_tile > 0`, ptxas serializes the
    # WGMMAs instead: C7514, a WARPGROUP.DEPBAR after every HGMMA.)
    tiled_mma.set(warpgroup.Field.ACCUMULATE, False)
    mainloop.consumer_wait(reader)
    mma_k_tile(tiled_mma, acc, tCrA, tCrB, reader.index)
    reader.advance()
    for _ in cutlass.range(1, k_tiles, unroll=1):
        mainloop.consumer_wait(reader)
        mma_k_tile(tiled_mma, acc, tCrA, tCrB, reader.index)
        # Wait for the previous k-tile's WGMMAs only (this one's keep running): its stage is
        # free, so release it and have warp 0 load the k-tile STAGES ahead into it.
        warpgroup.wait_group(1)
        mainloop.consumer_release(releaser)
        releaser.advance()
        if warp_idx == 0 and producer.count < k_tiles:
            load_k_tile(mainloop, producer, tma_a, tAgA, tAsA, tma_b, tBgB, tBsB)
            producer.advance()
        reader.advance()
    warpgroup.wait_group(0)

    # Epilogue: fp32 accumulators -> bf16 -> global memory, straight from registers.
    out = cute.make_rmem_tensor_like(acc, DTYPE)
    out.store(acc.load().to(DTYPE))
    cute.autovec_copy(out, tCgC)


def mma_k_tile(tiled_mma, acc, tCrA, tCrB, stage):
    """One k-tile's WGMMAs as one commit group: 4 K-steps of 16 x the tile's two 64-row halves,
    reading both operands from shared-memory stage `stage`."""
    warpgroup.fence()
    for k in range(cute.size(tCrA, mode=[2])):  # plain Python: unrolled while tracing
        cute.gemm(tiled_mma, acc, tCrA[(None, None, k, stage)], tCrB[(None, None, k, stage)], acc)
        tiled_mma.set(warpgroup.Field.ACCUMULATE, True)
    warpgroup.commit_group()


def load_k_tile(mainloop, producer, tma_a, tAgA, tAsA, tma_b, tBgB, tBsB):
    """Wait until the producer's stage is empty, arm its full barrier with the stage's byte
    count and start the TMA copies of k-tile `producer.count` into stage `producer.index`."""
    mainloop.producer_acquire(producer)
    full = mainloop.producer_get_barrier(producer)
    k, stage = producer.count, producer.index
    cute.copy(tma_a, tAgA[(None, k)], tAsA[(None, stage)], tma_bar_ptr=full)
    cute.copy(tma_b, tBgB[(None, k)], tBsB[(None, stage)], tma_bar_ptr=full)


def fake(rows: cute.typing.SymInt, k: cute.typing.SymInt) -> cute.Tensor:
    """A row-major (K-contiguous) bf16 matrix of a runtime shape, 16-byte aligned for TMA."""
    return cute.runtime.make_fake_compact_tensor(
        DTYPE, (rows, k), stride_order=(1, 0), assumed_align=16
    )


# Runtime M, N, K: tiles of 128 for M and N, multiples of 8 elements (16 B) for K.
M, N, K = cute.sym_int32(divisibility=BM), cute.sym_int32(divisibility=BN), cute.sym_int32(8)
sv.cute(hopper_gemm, fake(M, K), fake(N, K), fake(M, N), arch="sm_90a")
