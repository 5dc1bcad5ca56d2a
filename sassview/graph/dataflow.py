"""Registers defined and used by each instruction, and register liveness as nvdisasm counts it.

`compute_liveness` reproduces the '#' columns of `nvdisasm -plr -lrm count`: at each instruction,
how many registers of each file (GPR, PRED, UGPR, UPRED) are *occupied* there, which is
|used by it ∪ defined by it ∪ live after it|. tests/test_liveness.py holds it to nvdisasm on
every recorded cubin, instruction by instruction. The rules, read off `-lrm narrow` listings:

- Backward may-liveness over the CFG to a fixpoint, on every block, reachable or not. A
  definition under a P guard (`@P0 MOV R2, ...`) kills nothing — it may not run — and the guard
  is a use; nvdisasm does let a definition under a uniform guard (`@!UP0 UMOV UR9, URZ`) kill.
- R1, the stack pointer, is occupied everywhere, even in the unreachable `BRA self` trap.
- Each subroutine is its own procedure: CALL and RETURN edges are not followed, BPT.TRAP falls
  through. A CALL reads R0 and R1 (and a target register pair) and clobbers the ABI's scratch
  registers — R0, R3..R15, R32+8k..R35+8k, every predicate, UR4..UR35, every uniform predicate —
  whatever the callee does, so to nvdisasm a value kept across a call is dead before it. After a
  RET, R1, R2, R16..R31 and R36+8k..R39+8k (the callee-saved registers) are live.
- Those ABI sets stop at the widest register of each file any function of the cubin names
  (nvdisasm's columns; see `register_columns`), the GPR ones also at the function's register
  count. Pass `columns` and `registers` to match nvdisasm exactly; by default the function's own
  widest names stand in, which changes counts only at CALLs and around RETs.
Bitsets are Python ints (sass_semantics lays out the bits): 65k instructions take well under a
second (benchmarks/bench_liveness.py), dozens of times less than nvdisasm -plr itself.

How it can be wrong: opcodes whose widths or destinations sass_semantics does not know; an
indirect jump whose targets nvdisasm did not name (we let it reach every block nothing else
reaches); sm_8x global accesses in device functions whose descriptor came from the caller;
and nvdisasm itself, which in rare cases ends a live range a few instructions above a guarded
redefinition where the equations keep it (two places in ~80k checked rows; see the tests).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from sassview.gcpause import without_gc
from sassview.graph import sass_semantics as sem
from sassview.ir import SassInstruction
from sassview.memo import Memo

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph

_OPCODE = operator.attrgetter("opcode")
_DEFAULT_COLUMNS = MappingProxyType({"GPR": 255, "PRED": 7, "UGPR": 63, "UPRED": 7})


@dataclass(frozen=True, slots=True)
class RegisterEffects:
    defs: tuple[str, ...]  # registers written: ("R4", "R5") for IMAD.WIDE R4 / LDG.E.64 R4
    uses: tuple[str, ...]  # registers read, address registers, guards and .64 pairs included


@dataclass(frozen=True, slots=True)
class Liveness:
    """Per instruction index, how many registers of each file are occupied (nvdisasm's '#')."""

    counts: Mapping[str, tuple[int, ...]]  # "GPR", "PRED", "UGPR", "UPRED" -> count per index
    peak: int  # the largest GPR count
    peak_index: int  # the first instruction index where it is reached (-1 when there are none)
    _occupied: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def live_at(self, index: int, file: str = "GPR") -> frozenset[str]:
        """Register names of `file` occupied at this instruction (the ones its count counts)."""
        return frozenset(sem.names(self._occupied[index] & sem.MASK[file]))


def caller_saved(columns: Mapping[str, int] = _DEFAULT_COLUMNS) -> int:
    """The registers nvdisasm takes a CALL to clobber, cut at `columns`."""
    gpr = min(columns.get("GPR", 0), 255)
    mask = sem.bits("R", 0) | sem.bits("R", 3, max(0, min(gpr, 16) - 3))
    for start in range(32, gpr, 8):
        mask |= sem.bits("R", start, min(4, gpr - start))
    mask |= sem.bits("P", 0, min(columns.get("PRED", 0), 7))
    mask |= sem.bits("UR", 4, max(0, min(columns.get("UGPR", 0), 36) - 4))
    mask |= sem.bits("UP", 0, min(columns.get("UPRED", 0), 7))
    return mask


def callee_saved(registers: int) -> int:
    """The GPRs nvdisasm keeps live after a RET: R1, R2 and the ABI's callee-saved ones."""
    mask = sem.bits("R", 1, max(0, min(registers, 3) - 1))
    mask |= sem.bits("R", 16, max(0, min(registers, 32) - 16))
    for start in range(36, registers, 8):
        mask |= sem.bits("R", start, min(4, registers - start))
    return mask


# (opcode, modifiers, id(operands)) -> (effects, operands): each entry keeps its operand tuple
# alive, so the id in its key cannot be reused by another tuple while the entry is there.
_effects_cache: Memo[tuple[str, tuple[str, ...], int], tuple[Effects, object]] = Memo(
    f"{__name__}._effects_cache", 200_000
)


def _effects(ins: SassInstruction) -> tuple[int, int, int]:
    """operand_effects plus the guard, memoised: the parsers share one operand tuple per
    distinct operand text, so unrolled code mostly hits."""
    guard = ins.guard
    key = (ins.opcode, ins.modifiers, id(ins.operands))
    entry = _effects_cache.get(key)
    if entry is None:
        entry = _effects_cache[key] = (
            sem.operand_effects(ins.opcode, ins.modifiers, ins.operands),
            ins.operands,
        )
    hit = entry[0]
    if guard is None or guard.index is None:
        return hit
    return hit[0], hit[1] | sem.bits(guard.file, guard.index), hit[2]


def register_effects(
    ins: SassInstruction, *, columns: Mapping[str, int] = _DEFAULT_COLUMNS
) -> RegisterEffects:
    """What one instruction writes and reads, out of context.

    A CALL's clobbers are cut at `columns` (by default every register the ABI lets it clobber);
    a RET's callee-saved registers are left out (they are live after it, not read by it); the
    implicit sm_8x memory descriptor is left out (it takes the surrounding code to find).
    """
    defs, uses, kind = _effects(ins)
    if kind == sem.CALL:
        defs |= caller_saved(columns)
    return RegisterEffects(sem.names(defs), sem.names(uses))


Effects = tuple[int, int, int]  # (defs, uses, kind) bitsets of one instruction; kind: sem.CALL...


def instruction_effects(instructions: Sequence[SassInstruction]) -> list[Effects]:
    """Each instruction's (defs, uses, kind). Both `register_columns` and `compute_liveness`
    need them: a caller doing both computes them once and passes them to each."""
    # _effects, inlined for the cache hits that unrolled code is made of: a call per
    # instruction would cost as much as the lookup.
    get = _effects_cache.get
    out: list[Effects] = []
    for ins in instructions:
        entry = get((ins.opcode, ins.modifiers, id(ins.operands)))
        guard = ins.guard
        if entry is None:
            out.append(_effects(ins))  # computes it, and keeps it for the next ones
        elif guard is None or guard.index is None:
            out.append(entry[0])
        else:
            hit = entry[0]
            out.append((hit[0], hit[1] | sem.bits(guard.file, guard.index), hit[2]))
    return out


def _widest(effects: Iterable[Effects]) -> dict[str, int]:
    seen = 0
    for defs, uses, _ in effects:
        seen |= defs | uses
    return {f: ((seen & sem.MASK[f]) >> sem.FILE_BASE[f]).bit_length() for f in sem.FILES}


def register_columns(
    functions: Iterable[tuple[Sequence[SassInstruction], int | None]]
    | Iterable[tuple[Sequence[SassInstruction], int | None, Sequence[Effects]]],
) -> dict[str, int]:
    """nvdisasm's column count per register file for a cubin: its widest register name.

    `functions` are (instructions, register count) of every function in the cubin, or
    (instructions, register count, instruction_effects(instructions)); a function with a RET
    also names its callee-saved registers up to its register count.
    """
    out = dict.fromkeys(sem.FILES, 0)
    for instructions, registers, *known in functions:
        widest = _widest(known[0] if known else map(_effects, instructions))
        if registers and "RET" in map(_OPCODE, instructions):  # compared in C
            widest["GPR"] = max(widest["GPR"], callee_saved(registers).bit_length())
        for f in sem.FILES:
            out[f] = max(out[f], widest[f])
    return out


@without_gc
def compute_liveness(
    instructions: Sequence[SassInstruction],
    cfg: ControlFlowGraph,
    *,
    registers: int | None = None,
    columns: Mapping[str, int] | None = None,
    effects: Sequence[Effects] | None = None,
) -> Liveness:
    """Occupied-register counts per instruction; see the module docstring for the rules.

    `registers` is the function's register count (Kernel.resources.registers), `columns` what
    `register_columns` says for the whole cubin; both only shape the CALL/RET ABI sets, and
    default to what this function's own instructions name. `effects`: instruction_effects of
    `instructions`, when the caller has them already.
    """
    # No reference cycles, but enough objects to set off a full collection over the whole model
    # midway, which would cost more than the analysis.
    if effects is None:
        effects = instruction_effects(instructions)
    return _liveness(instructions, cfg, registers, columns, effects)


def _liveness(
    instructions: Sequence[SassInstruction],
    cfg: ControlFlowGraph,
    registers: int | None,
    columns: Mapping[str, int] | None,
    effects: Sequence[Effects],
) -> Liveness:
    n = len(instructions)
    if columns is None:
        columns = _widest(effects)
    gpr = columns.get("GPR", 0) if registers is None else min(registers, columns.get("GPR", 0))
    clobber = caller_saved({**columns, "GPR": gpr})
    ret_live = callee_saved(registers if registers is not None else columns.get("GPR", 0))
    implicit = sem.implicit_descriptor(instructions)
    kills = [0] * n
    occ = [0] * n  # what is occupied at each instruction: its defs and uses, R1, what is live
    r1 = sem.R1
    blocks = cfg.blocks
    gen = [0] * len(blocks)
    kill = [0] * len(blocks)
    # One backward walk per block reads each instruction's effects and finds what is live after
    # it as if nothing were live out of the block; live(L) = live(0) | (L minus what the block
    # kills after that point), so the live-out part is added after the fixpoint, only where it
    # is not empty, and only until the block has killed all of it.
    for b in blocks:
        live = k = 0
        for i in range(b.last, b.first - 1, -1):
            d, u, kind = effects[i]
            if implicit is not None:
                u |= implicit[i]
            if kind:
                if kind == sem.CALL:
                    d |= clobber
                else:
                    u |= ret_live  # live after a RET; as it kills nothing, the same as read by it
            occ[i] = d | u | r1 | live
            guard = instructions[i].guard
            # A definition under a P guard may not run, so it kills nothing; nvdisasm lets one
            # under a UP guard kill (and @PT is no guard).
            if (
                guard is None
                or guard.file == "UP"
                or (guard.index is None and not instructions[i].guard_negated)
            ):
                kills[i] = d
                live = (live & ~d) | u
                k |= d
            else:
                live |= u
        gen[b.index], kill[b.index] = live, k
    live_out = _solve(len(blocks), _successors(cfg, instructions), gen, kill)
    for b in blocks:
        extra = live_out[b.index]
        i = b.last
        while extra and i >= b.first:
            occ[i] |= extra
            extra &= ~kills[i]
            i -= 1
    counts = {f: tuple([(m & mask).bit_count() for m in occ]) for f, mask in sem.MASK.items()}
    peak = max(counts["GPR"], default=0)
    peak_index = counts["GPR"].index(peak) if n else -1
    return Liveness(MappingProxyType(counts), peak, peak_index, tuple(occ))


def _successors(cfg: ControlFlowGraph, instructions: Sequence[SassInstruction]) -> list[list[int]]:
    """Each block's successors within its procedure, as nvdisasm's liveness follows them.

    No CALL edges (a call is an instruction with effects) and no RETURN edges (a RET is an
    exit); BPT.TRAP falls through; a block ending in an indirect jump with unknown targets
    reaches every block nothing else reaches.
    """
    blocks = cfg.blocks
    edges = getattr(cfg, "edges", None)
    succ: list[list[int]] = [[] for _ in blocks]
    if edges is not None:
        for e in edges:
            if e.kind.name in ("FALLTHROUGH", "TAKEN") and e.dst not in succ[e.src]:
                succ[e.src].append(e.dst)
    else:  # a CFG without edge kinds: drop edges into CALL targets and out of RETs
        for b in blocks:
            last = instructions[b.last]
            if not (last.opcode == "RET" and last.guard is None):
                keep = [b.index + 1] if last.opcode == "CALL" else b.successors
                succ[b.index] = [s for s in b.successors if s in keep]
    for b in blocks:
        after = b.index + 1
        if (
            instructions[b.last].opcode == "BPT"
            and after < len(blocks)
            and after not in succ[b.index]
        ):
            succ[b.index].append(after)
    if any(getattr(b, "unknown_successors", False) for b in blocks):
        roots = [b.index for b in blocks if not b.predecessors and b.index != 0]
        for b in blocks:
            if getattr(b, "unknown_successors", False):
                succ[b.index] = sorted({*succ[b.index], *roots})
    return succ


def _solve(count: int, succ: list[list[int]], gen: list[int], kill: list[int]) -> list[int]:
    """Live-out of each block: backward may-liveness to a fixpoint (loops), by a worklist
    seeded in reverse block order, so straight-line and forward-branching code converge in one
    sweep; ints are the bitsets."""
    pred: list[list[int]] = [[] for _ in range(count)]
    for k, ss in enumerate(succ):
        for s in ss:
            pred[s].append(k)
    live_in = [0] * count
    live_out = [0] * count
    work = list(range(count))  # popped from the end: the last block first
    queued = [True] * count
    while work:
        k = work.pop()
        queued[k] = False
        out = 0
        for s in succ[k]:
            out |= live_in[s]
        live_out[k] = out
        new_in = gen[k] | (out & ~kill[k])
        if new_in != live_in[k]:
            live_in[k] = new_in
            for p in pred[k]:
                if not queued[p]:
                    queued[p] = True
                    work.append(p)
    return live_out
