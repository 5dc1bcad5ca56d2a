"""Shared-memory bank conflicts: how many wavefronts one warp-wide execution of each shared
access needs, against the fewest its width allows.

The rule implemented (the CUDA C++ Programming Guide, "Shared Memory" of compute capability
5.x and later, which sm_80 ... sm_120 keep): shared memory has 32 banks; successive 32-bit
words go to successive banks (bank = (byte address / 4) mod 32); the lanes of one request that
touch different words of one bank are served one word per wavefront; lanes that touch the same
word are served together (a broadcast, or one write). Accesses wider than 32 bits are served in
phases (no guide table says so for 5.x+; it is what NVIDIA's engineers describe on their forums
and what Nsight Compute's wavefront counts show): a 64-bit access (LDS.64, STS.64) in two
phases of 16 lanes, a 128-bit one (LDS.128, STS.128) in four phases of 8 lanes, each phase
conflicting only within itself; so the fewest wavefronts are 1, 2 and 4. LDSM/STSM move 8x8
matrices of 16-byte rows, one row address per lane: `.x1` reads lanes 0-7, `.x2` 0-15, `.x4`
all 32, each matrix (8 rows, 128 bytes) a phase. Per phase the wavefronts are the most words
any one bank is asked for; the finding's "n-way" is the worst phase.

Detects, on sm_80 ... sm_120, for LDS/STS/LDSM/STSM, the shared atomics (ATOMS: counted by the
same rule where every lane updates its own word; lanes updating one word are serialised, which
no bank rule counts: unknown) and the generic LD/ST/ATOM whose PTX says .shared: the
wavefronts per warp-wide execution, the ideal, the lane stride; "bank-conflict" at the source
line of an access needing more than the ideal (a WARNING in a loop, a NOTE otherwise), with the
fix: padding, a swizzle, a different thread mapping.

How it can be wrong: the lanes are one warp of the block shape known, those a lane-exact
guard leaves on (see sassview.analyses.coalescing; a phase's lanes are counted by lane
number, the ideal is the phases with a lane on); a wrapped index (`tile[(threadIdx.x + r) &
255]`) is counted at every residue, unknown where the counts differ; the symbolic part of a shared
address (the shared window's base on sm_90+, a loop offset) is taken to be a multiple of 4
bytes, which leaves the count exact, since a uniform shift only renames the banks; where a
real kernel's per-phase merging differs from the rule above (an access whose two half-warps
read the same words), the hardware may need fewer wavefronts than counted. Nsight Compute's
`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` measures it on a GPU.
"""

from __future__ import annotations

from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import MemoryAccess, kernel_accesses, user_locs
from sassview.analyses.param_names import named, program_param_names
from sassview.analyses.records import BankFacts, SharedAccess
from sassview.analyses.warp import (
    block_shape,
    index_of,
    lanes_in,
    loop_addresses,
    pattern_text,
    stride_of,
    warp_model,
)
from sassview.graph.lanes import LaneValue, Unknown, instances
from sassview.ir import SourceLoc

BANKS = 32
_SHARED = frozenset({"LDS", "STS", "LDSM", "STSM", "ATOMS", "LD", "ST", "ATOM"})


_CUDA_HINT = (
    "pad the row by one 32-bit word (`__shared__ float tile[32][33]`), or XOR-swizzle the "
    "column with the row (`tile[r][c ^ r]`), or change which thread reads which element"
)


def hint_for(kind: str) -> str:
    """The fix for a bank conflict, in the terms of the kernel's language."""
    from sassview.frontends.registry import words

    return words(kind).bank_conflict or _CUDA_HINT


def phases(opcode: str, bits: int, active: int) -> tuple[int, int, int]:
    """(bytes per lane, lanes per phase, lanes taking part) of a shared access."""
    if opcode in ("LDSM", "STSM"):
        matrices = max(1, bits // 32)
        return 16, 8, min(active, 8 * matrices)
    nbytes = max(1, bits // 8)
    per_phase = 32 if nbytes <= 4 else 16 if nbytes == 8 else 8
    return nbytes, per_phase, active


def wavefronts(
    lanes: tuple[int, ...] | list[int], nbytes: int, per_phase: int, mask: int = (1 << 32) - 1
) -> list[int]:
    """Wavefronts of each phase: the most distinct words one bank is asked for, by the lanes
    in `mask` (a phase none of whose lanes runs needs none)."""
    out = []
    for start in range(0, len(lanes), per_phase):
        on = [a for n, a in enumerate(lanes[start : start + per_phase], start) if mask >> n & 1]
        if not on:
            continue
        banks: dict[int, set[int]] = {}
        for a in on:
            for word in range(a >> 2, (a + nbytes - 1 >> 2) + 1):
                banks.setdefault(word % BANKS, set()).add(word)
        out.append(max((len(w) for w in banks.values()), default=1))
    return out


def run(ctx: AnalysisContext) -> Findings:
    picked = [
        a
        for a in ctx.shared(kernel_accesses)
        if a.space == "shared" and a.instruction.opcode in _SHARED and isinstance(a.bits, int)
    ]
    facts: list[SharedAccess] = []
    if picked:
        model = warp_model(ctx)
        index = index_of(ctx)
        in_loop = loop_addresses(ctx)
        for acc, loc in zip(picked, user_locs([a.instruction for a in picked]), strict=True):
            ins = acc.instruction
            value = (
                model.address(index[ins.address], acc.operand)
                if acc.operand is not None
                else Unknown("no address operand")
            )
            mask = model.active(index[ins.address])
            facts.append(_fact(acc, loc, value, mask, ins.address in in_loop))
        names = program_param_names(ctx.program, ctx.kernel)
        for fact in facts:  # `c[0x0][0x224]` by its parameter's name where known
            if fact["unknown"] and names:
                fact["unknown"] = named(fact["unknown"], names)
    summary = BankFacts(
        block=block_shape(ctx).describe(),
        accesses=facts,
        conflicted=sum(1 for f in facts if (f["ways"] or 1) > 1),
        unknown=sum(1 for f in facts if f["wavefronts"] is None),
        worst_ways=max((f["ways"] or 1 for f in facts), default=1),
    )
    hint = hint_for(ctx.program.artifacts.kind)
    return Findings(facts=summary, annotations=tuple(_findings(picked, facts, hint)))


def _fact(
    acc: MemoryAccess, loc: SourceLoc | None, value: LaneValue | Unknown, mask: int, looped: bool
) -> SharedAccess:
    ins = acc.instruction
    assert isinstance(acc.bits, int)
    nbytes, per_phase, taking_part = phases(ins.opcode, acc.bits, 32)
    if ins.opcode not in ("LDSM", "STSM"):  # LDSM: every row address is read, guard or not
        taking_part = max((n + 1 for n in lanes_in(mask)), default=0)
    on = lanes_in(mask)
    ideal = max(1, len({n // per_phase for n in on if n < taking_part}))
    fact = SharedAccess(
        address=ins.address,
        opcode=ins.mnemonic,
        direction=acc.direction,
        bits=acc.bits,
        source_line=loc.line if loc is not None else None,
        in_loop=looped,
        wavefronts=None,
        ideal=ideal,
        ways=None,
        stride=None,
        pattern=None,
        unknown=None,
    )
    if isinstance(value, LaneValue) and value.scaled:
        names = ", ".join(s for s, _ in value.scaled)
        fact["unknown"] = f"the banks depend on {names}, a stride known at run time"
        return fact
    if isinstance(value, Unknown):
        fact["unknown"] = value.reason
        return fact
    if not on:
        fact["unknown"] = (
            "no lane of the warp runs it (a guard on the lane index or the block's shape)"
        )
        return fact
    every = instances(value, 4)
    if every is None:
        assert value.wrap is not None
        fact["unknown"] = f"too many positions of the ring to count ({value.wrap.residue})"
        return fact
    if ins.opcode in ("LDSM", "STSM"):
        mask = (1 << 32) - 1
    counts = {tuple(wavefronts(lanes[:taking_part], nbytes, per_phase, mask)) for lanes in every}
    if len(counts) > 1:
        assert value.wrap is not None
        totals = sorted(sum(c) for c in counts)
        fact["unknown"] = (
            f"the wavefronts depend on {value.wrap.residue}: {totals[0]} to {totals[-1]}"
        )
        return fact
    (per,) = counts
    lanes = [value.lanes[n] for n in on if n < taking_part]
    if acc.direction == "atomic" and len(set(lanes)) < len(lanes):
        fact["unknown"] = (
            f"{len(lanes) - len(set(lanes)) + 1} or more lanes update one word: shared "
            "atomics on one address are serialised, which the bank rule does not count"
        )
        return fact
    fact["wavefronts"] = sum(per)
    fact["ways"] = max(per)
    fact["stride"] = stride_of(lanes)
    pattern = pattern_text(lanes)
    wrap = value.wrap
    if wrap is not None:
        pattern += f", wrapping every {abs(wrap.modulus * wrap.coefficient)} bytes"
    fact["pattern"] = pattern
    return fact


def _findings(picked: list[MemoryAccess], facts: list[SharedAccess], hint: str) -> list[Annotation]:
    """One `bank-conflict` finding per (source line, direction), for its worst access."""
    groups: dict[tuple[Any, str], list[tuple[MemoryAccess, SharedAccess]]] = {}
    for acc, f in zip(picked, facts, strict=True):
        if (f["ways"] or 1) > 1:
            loc = acc.instruction.source
            outer = loc.outermost if loc is not None else None
            where = (outer.file, outer.line) if outer is not None else None
            groups.setdefault((where, f["direction"]), []).append((acc, f))
    out = []
    for (_where, direction), members in groups.items():
        worst_acc, worst = max(members, key=lambda m: m[1]["ways"] or 0)
        loc = worst_acc.instruction.source
        outer = loc.outermost if loc is not None else None
        line = f"line {outer.line}" if outer is not None else f"/*{worst['address']:04x}*/"
        looped = any(f["in_loop"] for _, f in members)
        count = len(members)
        message = (
            f"{line}: shared {direction} is a {worst['ways']}-way bank conflict "
            f"({worst['wavefronts']} wavefronts per warp where {worst['ideal']} would do; "
            f"{worst['pattern']}"
            + (f"; {count} accesses" if count > 1 else "")
            + (", in a loop)" if looped else ")")
        )
        out.append(
            Annotation(
                kind="bank-conflict",
                severity=Severity.WARNING if looped else Severity.NOTE,
                message=message,
                hint=hint,
                addresses=tuple(f["address"] for _, f in members),
                source=(outer,) if outer is not None else (),
                data={
                    "line": outer.line if outer is not None else None,
                    "direction": direction,
                    "ways": worst["ways"],
                    "wavefronts": worst["wavefronts"],
                    "ideal": worst["ideal"],
                    "stride": worst["stride"],
                    "accesses": count,
                },
            )
        )
    out.sort(key=lambda a: a.addresses[0])
    return out
