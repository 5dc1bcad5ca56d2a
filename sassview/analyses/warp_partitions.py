"""The warp partitions of a warp-specialized Triton kernel, and each one's loops, by role.

Detects, on Triton kernels whose TTGIR holds a `ttg.warp_specialize` (`tl.range(...,
warp_specialize=True)`, Gluon's `gl.warp_specialize`), sm_90a and later: the partitions the
SASS dispatches to, each named by what it does, and which of the kernel's loops run in it.
Triton lowers the op to a loop the worker warps sit in, which jumps through a table (a `BRX`)
to each partition's code; every block a jump-table target dominates is that partition's, the
rest is the default partition's (the warps that started the kernel). ptxas moves the retry
loops of mbarrier waits (`SYNCS.PHASECHK.TRANS64.TRYWAIT` and a branch back) out of line to the
end of the kernel, where they read as a dozen loops of no statement; dominance puts each back
in the partition that waits.

Findings: one `warp-partition` INFO per partition, `mma partition (UTCHMMA) from /*1220*/: 1
loop at line 12; spins: 2 mbarrier waits at line 15`, so the loop census reads per role instead
of one entry per spin loop. Each loop is placed as the census places it (its statement's line in
the Triton source and the calls it is inlined at: `WarpPartitionFacts.named`, once the census
has run), not by the line its SASS carries. Roles: `mma` (tensor-core ops: UTCHMMA/UTCQMMA/
HGMMA/HMMA), `load` (UTMALDG, LDGSTS, UBLKCP), `store` (UTMASTG, STG), else `other`; the
default partition is `default`.

How it can be wrong: a jump table that is not the warp dispatch (a `switch` in the kernel)
would be read as one; jump-table targets that only exit (the dispatch's own "done" state) show
as `other` partitions with no loops and are left out of the findings.
"""

from __future__ import annotations

from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.records import Partition, WarpPartitionFacts, partition_text
from sassview.analyses.records_compute import loop_place
from sassview.analyses.spins import WORKER_DISPATCH, spin_kind
from sassview.graph.dominators import immediate_dominators
from sassview.graph.loops import Loop

_ROLES = (
    ("mma", ("UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA", "HGMMA", "HMMA", "IMMA", "QGMMA")),
    ("load", ("UTMALDG", "LDGSTS", "UBLKCP", "UTMAPF")),
    ("store", ("UTMASTG", "STG", "UBLKRED")),
)


def run(ctx: AnalysisContext) -> Findings:
    art = ctx.program.artifacts
    ttgir = art.stages.get("ttgir", "") if art.kind == "triton" else ""
    if "ttg.warp_specialize" not in ttgir:
        return Findings(facts=WarpPartitionFacts(partitions=[]))
    kernel, cfg = ctx.kernel, ctx.cfg
    entries = _dispatch_targets(ctx)
    if not entries:
        return Findings(facts=WarpPartitionFacts(partitions=[]))
    owner = _owners(ctx, entries)
    partitions: dict[int, dict[str, Any]] = {}

    def slot_of(block: int) -> dict[str, Any]:
        empty: dict[str, Any] = {"opcodes": set(), "loops": [], "spins": {}}
        return partitions.setdefault(owner.get(block, -1), empty)

    for block in cfg.blocks:
        slot_of(block.index)["opcodes"] |= {
            i.opcode for i in kernel.instructions[block.first : block.last + 1]
        }
    dispatch = {cfg.block_at(i.address) for i in kernel.instructions if i.opcode in ("BRX", "JMX")}
    for loop in ctx.loops:
        slot = slot_of(loop.header)
        if any(b is not None and b.index in loop.blocks for b in dispatch):
            slot["spins"].setdefault(WORKER_DISPATCH, []).append(loop)
            continue
        spin = spin_kind(
            kernel.instructions[j]
            for b in loop.blocks
            for j in range(cfg.blocks[b].first, cfg.blocks[b].last + 1)
        )
        if spin is None:
            slot["loops"].append(loop)
        else:
            slot["spins"].setdefault(spin, []).append(loop)
    facts: list[Partition] = []
    annotations: list[Annotation] = []
    for part in sorted(partitions, key=lambda p: (p != -1, p)):
        slot = partitions[part]
        role = "default" if part == -1 else _role(slot["opcodes"])
        if role == "other" and not slot["loops"] and not slot["spins"]:
            continue  # the dispatch's exit state
        found = Partition(
            role=role,
            entry=None if part == -1 else cfg.blocks[part].start,
            loops=[loop.index for loop in slot["loops"]],
            spins={k: [loop.index for loop in v] for k, v in slot["spins"].items()},
        )
        facts.append(found)
        annotations.append(_annotation(found, slot["opcodes"], ctx.loops))
    return Findings(facts=WarpPartitionFacts(partitions=facts), annotations=tuple(annotations))


def _dispatch_targets(ctx: AnalysisContext) -> list[int]:
    """The blocks a jump table sends the worker warps to."""
    out: list[int] = []
    for ins in ctx.kernel.instructions:
        if ins.opcode in ("BRX", "JMX"):
            for address in ins.targets:
                block = ctx.cfg.block_at(address)
                if block is not None and block.index not in out:
                    out.append(block.index)
    return out


def _owners(ctx: AnalysisContext, entries: list[int]) -> dict[int, int]:
    """Block -> the dispatch target that dominates it (blocks of no target are left out)."""
    succ = {b.index: b.successors for b in ctx.cfg.blocks}
    idom = immediate_dominators(succ, ctx.cfg.entry)
    targets = set(entries)
    owner: dict[int, int] = {}
    for block in idom:
        node = block
        while node not in targets and idom.get(node, node) != node:
            node = idom[node]
        if node in targets:
            owner[block] = node
    return owner


def _role(opcodes: set[str]) -> str:
    for role, names in _ROLES:
        if opcodes & set(names):
            return role
    return "other"


def _annotation(part: Partition, opcodes: set[str], loops: tuple[Loop, ...]) -> Annotation:
    """The partition's finding, its loops placed by their own lines here (`loop_place`); the
    inspection places them as the loop census does once it has run (`WarpPartitionFacts.
    named`)."""
    shown = next((sorted(opcodes & set(n)) for r, n in _ROLES if r == part.role), [])
    head = f"{part.role} partition" + (f" ({', '.join(shown)})" if shown else "")
    lines = {lp.index: lp.source.line if lp.source else None for lp in loops}
    where = f" from /*{part.entry:04x}*/" if part.entry is not None else ""
    message = f"{head}{where}: " + partition_text(part, lambda i: loop_place(lines[i], i))
    return Annotation(
        "warp-partition",
        Severity.INFO,
        message,
        loops=(*part.loops, *(i for v in part.spins.values() for i in v)),
        data={"role": part.role},
    )
