"""Basic blocks and the edges between them, for one kernel's SASS or one PTX function.

SASS (sm_70 and later, as nvdisasm prints it):

- A block starts at the first instruction, at the target of every BRA/JMP/BRX/JMX/CALL whose
  target is an address in the sequence, and after every control-flow instruction. Predicated
  ordinary instructions (`@P0 IADD3`) do not end a block: they run or not, and control goes on.
  BSSY carries a target but only names a convergence point, so it makes neither a leader nor an
  edge; BSYNC and WARPSYNC are ordinary instructions here.
- A branch is conditional when it is guarded (`@P0 BRA`), when it names a predicate operand
  (`BRA.U !UP0, target` on sm_100/sm_120, `@!P0 BRA P1, target`), or for BRA.DIV/BRA.CONV.
  A conditional branch has a TAKEN and a FALLTHROUGH edge; an unconditional one only TAKEN;
  one that can never run (`@!PT`) only FALLTHROUGH. EXIT (and KILL, RTT, BPT.TRAP) ends a path
  unless guarded.
- CALL to a subroutine inside the kernel's section (`ins.target` set) has a FALLTHROUGH edge to
  the instruction after it and a CALL edge to the subroutine; a RET has RETURN edges to every
  block that follows a CALL of the subroutine it belongs to (the nearest call target at or below
  its address: nvdisasm lays each subroutine out contiguously after the kernel body). A CALL
  without a known target (CALL.ABS to another function) only falls through.
  The CALL and RETURN edges make cycles through a subroutine called from two places; those are
  not loops, and `sassview.graph.loops` ignores both kinds (it treats each subroutine as its own
  procedure), so only FALLTHROUGH and TAKEN edges form loops.
- BRX/JMX (indirect jumps through a register) get no TAKEN edge: their block has
  `unknown_successors=True`. When such a block is reachable, every block without predecessors
  (other than the `BRA self` trap) is taken to be a possible target and counted reachable.
- The padding NOPs after the last instruction join the block before them, so the trailing
  `BRA self` trap nvdisasm prints after the last EXIT is one unreachable block.

How it can be wrong: a branch target computed at run time (BRX through a jump table, a RET whose
return address was not written by a CALL) is not followed; a subroutine entered by a plain BRA
instead of CALL gets no RETURN edges; opcodes of architectures before sm_70 (SSY, BRK, CONT,
SYNC) are treated as falling through.

PTX: a block starts at the first instruction, at the first instruction after each label, and
after every `bra`, `brx`, `ret`, `exit` and `trap`. `call` falls through (the callee is another
function). `start`/`end` of a PTX block are the PTX lines of its first and last instruction.
"""

from __future__ import annotations

import enum
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sassview.gcpause import without_gc
from sassview.ir import OperandKind, PtxFunction, SassInstruction

if TYPE_CHECKING:
    import networkx


class EdgeKind(enum.Enum):
    FALLTHROUGH = "fallthrough"
    TAKEN = "taken"
    CALL = "call"
    RETURN = "return"


@dataclass(frozen=True, slots=True)
class BasicBlock:
    index: int
    first: int  # index of its first instruction in the sequence the CFG was built from
    last: int  # index of its last instruction (inclusive)
    start: int  # SASS address of the first instruction (for a PTX CFG: the PTX line)
    end: int  # SASS: address one past the last instruction; PTX: line of the last instruction
    successors: tuple[int, ...]
    predecessors: tuple[int, ...]
    reachable: bool  # from the entry, over every kind of edge
    unknown_successors: bool = False  # ends in an indirect jump whose targets are not known

    @property
    def size(self) -> int:
        return self.last - self.first + 1


@dataclass(frozen=True, slots=True)
class Edge:
    src: int
    dst: int
    kind: EdgeKind


@dataclass(frozen=True, slots=True)
class ControlFlowGraph:
    """Blocks in the order of their instructions (block i+1 follows block i in memory)."""

    blocks: tuple[BasicBlock, ...]
    edges: tuple[Edge, ...]
    entry: int = 0
    unit: str = "sass"  # "sass": start/end are addresses; "ptx": PTX lines
    _firsts: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_firsts", tuple(b.first for b in self.blocks))
        object.__setattr__(self, "_starts", tuple(b.start for b in self.blocks))

    def block_of_index(self, instruction_index: int) -> BasicBlock:
        """The block holding the instruction at this index of the sequence the CFG came from."""
        k = bisect_right(self._firsts, instruction_index) - 1
        if k < 0 or instruction_index > self.blocks[k].last:
            raise IndexError(f"no block holds instruction {instruction_index}")
        return self.blocks[k]

    def block_at(self, address: int) -> BasicBlock | None:
        """The block holding this SASS address (for a PTX CFG: this PTX line), or None."""
        k = bisect_right(self._starts, address) - 1
        if k < 0:
            return None
        block = self.blocks[k]
        inside = address < block.end if self.unit == "sass" else address <= block.end
        return block if inside else None

    def out_edges(self, block: int) -> tuple[Edge, ...]:
        return tuple(e for e in self.edges if e.src == block)

    def to_networkx(self) -> networkx.DiGraph:
        """A DiGraph of block indices; an edge's `kind` is its first kind, `kinds` all of them
        (a conditional branch to the next instruction is both TAKEN and FALLTHROUGH)."""
        import networkx

        graph = networkx.DiGraph(entry=self.entry, unit=self.unit)
        for b in self.blocks:
            graph.add_node(
                b.index,
                first=b.first,
                last=b.last,
                start=b.start,
                end=b.end,
                reachable=b.reachable,
                unknown_successors=b.unknown_successors,
            )
        for e in self.edges:
            if graph.has_edge(e.src, e.dst):
                graph.edges[e.src, e.dst]["kinds"] += (e.kind,)
            else:
                graph.add_edge(e.src, e.dst, kind=e.kind, kinds=(e.kind,))
        return graph


_NEVER, _ALWAYS, _MAYBE = 0, 1, 2
_JUMPS = frozenset({"BRA", "JMP"})
_INDIRECT = frozenset({"BRX", "JMX"})
_TARGETED = _JUMPS | _INDIRECT | {"CALL"}
_ENDS = frozenset({"EXIT", "KILL", "RTT"})
_CONDITIONAL_MODIFIERS = frozenset({"DIV", "CONV"})
# nvdisasm's JSON flags these as control flow, but they only set or wait at convergence points.
_NOT_BRANCHES = frozenset({"BSSY", "BSYNC", "WARPSYNC", "BMOV", "BREAK", "NANOSLEEP", "YIELD"})


def _runs(ins: SassInstruction) -> int:
    """Whether the guard lets the instruction run: @PT always, @!PT never, @P0 maybe."""
    guard = ins.guard
    if guard is None:
        return _ALWAYS
    if guard.index is None:
        return _NEVER if ins.guard_negated else _ALWAYS
    return _MAYBE


def _taken(ins: SassInstruction) -> int:
    """Whether a jump is taken: its guard, its own predicate operand, BRA.DIV."""
    state = _runs(ins)
    if state == _NEVER:
        return _NEVER
    for op in ins.operands:
        if op.kind is OperandKind.REGISTER and op.registers and op.registers[0].file in ("P", "UP"):
            if op.registers[0].index is not None:
                state = _MAYBE
            elif op.negated:
                return _NEVER
    if _CONDITIONAL_MODIFIERS.intersection(ins.modifiers):
        state = _MAYBE
    return state


class _Builder:
    """Collects edges (deduplicated, in order) and turns spans into blocks."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans
        self.edges: dict[tuple[int, int, EdgeKind], None] = {}
        self.unknown: set[int] = set()

    def add(self, src: int, dst: int, kind: EdgeKind) -> None:
        self.edges[(src, dst, kind)] = None

    def finish(
        self, starts: list[int], ends: list[int], unit: str, traps: set[int]
    ) -> ControlFlowGraph:
        count = len(self.spans)
        succ: list[list[int]] = [[] for _ in range(count)]
        pred: list[list[int]] = [[] for _ in range(count)]
        for src, dst, _ in self.edges:
            if dst not in succ[src]:
                succ[src].append(dst)
                pred[dst].append(src)
        reachable = _reach(succ, [0] if count else [])
        if any(reachable[k] for k in self.unknown):
            roots = [k for k in range(count) if not pred[k] and k not in traps]
            reachable = _reach(succ, [0, *roots])
        blocks = tuple(
            BasicBlock(
                k,
                first,
                last,
                starts[k],
                ends[k],
                tuple(succ[k]),
                tuple(pred[k]),
                reachable[k],
                k in self.unknown,
            )
            for k, (first, last) in enumerate(self.spans)
        )
        edges = tuple(Edge(s, d, kind) for s, d, kind in self.edges)
        return ControlFlowGraph(blocks, edges, 0, unit)


def _reach(succ: list[list[int]], roots: list[int]) -> list[bool]:
    seen = [False] * len(succ)
    stack = list(roots)
    while stack:
        k = stack.pop()
        if not seen[k]:
            seen[k] = True
            stack.extend(s for s in succ[k] if not seen[s])
    return seen


def _spans(leaders: set[int], count: int) -> list[tuple[int, int]]:
    ordered = sorted(leaders)
    return [
        (first, (ordered[k + 1] if k + 1 < len(ordered) else count) - 1)
        for k, first in enumerate(ordered)
    ]


@dataclass
class _Walk:
    """What build_cfg's edge phase shares: the instructions, their blocks, what it found."""

    instructions: Sequence[SassInstruction]
    addresses: list[int]
    targets: dict[int, int]  # instruction index of a jump/call -> index of its target
    spans: list[tuple[int, int]]
    block_of: dict[int, int]
    builder: _Builder
    calls: list[tuple[int, int]] = field(default_factory=list)  # (block of a CALL, its address)
    rets: list[int] = field(default_factory=list)
    traps: set[int] = field(default_factory=set)

    def index_of(self, address: int) -> int | None:
        return _index_of(self.addresses, address)


def _index_of(addresses: list[int], address: int) -> int | None:
    k = bisect_left(addresses, address)
    return k if k < len(addresses) and addresses[k] == address else None


@without_gc
def build_cfg(instructions: Sequence[SassInstruction]) -> ControlFlowGraph:
    """The CFG of one kernel's instructions (a whole .text section, subroutines included)."""
    count = len(instructions)
    if not count:
        return ControlFlowGraph((), ())
    addresses = [ins.address for ins in instructions]
    leaders, targets = _leaders(instructions, addresses)
    padding = _padding_start(instructions)
    if padding < count and padding not in targets.values():
        leaders.discard(padding)
    spans = _spans(leaders, count)
    block_of = {first: k for k, (first, _) in enumerate(spans)}
    walk = _Walk(instructions, addresses, targets, spans, block_of, _Builder(spans))
    for k, (first, last) in enumerate(spans):
        if first < padding <= last:
            last = padding - 1  # the block ends at its last instruction before the padding
        falls = _block_exit(walk, k, last)
        if falls and k + 1 < len(spans):
            walk.builder.add(k, k + 1, EdgeKind.FALLTHROUGH)
    _add_returns(walk.builder, instructions, walk.calls, walk.rets)
    starts = [addresses[first] for first, _ in spans]
    ends = [addresses[last] + _width(instructions, last) for _, last in spans]
    return walk.builder.finish(starts, ends, "sass", walk.traps)


def _leaders(
    instructions: Sequence[SassInstruction], addresses: list[int]
) -> tuple[set[int], dict[int, int]]:
    """The indices that start a block, and each direct jump/call's target index."""
    count = len(instructions)
    leaders = {0}
    targets: dict[int, int] = {}
    for i, ins in enumerate(instructions):
        if not (ins.control_flow or ins.target is not None) or ins.opcode in _NOT_BRANCHES:
            continue
        if ins.target is not None and ins.opcode in _TARGETED and ins.opcode not in _INDIRECT:
            t = _index_of(addresses, ins.target)
            if t is not None:
                targets[i] = t
                leaders.add(t)
        for address in ins.targets:  # a BRX jump table that nvdisasm resolved
            t = _index_of(addresses, address)
            if t is not None:
                leaders.add(t)
        if ins.control_flow and i + 1 < count:
            leaders.add(i + 1)
    return leaders, targets


def _padding_start(instructions: Sequence[SassInstruction]) -> int:
    """The index of the first NOP of the trailing padding (len(instructions) when none)."""
    padding = len(instructions)
    while padding > 1 and instructions[padding - 1].opcode == "NOP":
        padding -= 1
    return padding


def _block_exit(walk: _Walk, k: int, last: int) -> bool:
    """Add block k's edges out by its last instruction; whether it also falls through."""
    ins = walk.instructions[last]
    op = ins.opcode
    if not ((ins.control_flow and op not in _NOT_BRANCHES) or last in walk.targets):
        return True
    state = _taken(ins) if op in _JUMPS else _runs(ins)
    if state == _NEVER:
        return True
    target = walk.block_of.get(walk.targets[last]) if last in walk.targets else None
    if op in _INDIRECT and ins.targets:
        for address in ins.targets:
            dst = walk.block_of.get(walk.index_of(address) or -1)
            if dst is not None:
                walk.builder.add(k, dst, EdgeKind.TAKEN)
    elif op in _JUMPS or op in _INDIRECT:
        _jump(walk, k, ins, target, state)
    elif op == "CALL":
        if target is not None:
            walk.builder.add(k, target, EdgeKind.CALL)
            walk.calls.append((k, walk.spans[target][0]))
        return True
    elif op == "RET":
        walk.rets.append(k)
    elif not (op in _ENDS or (op == "BPT" and "TRAP" in ins.modifiers)):
        return True
    return state == _MAYBE


def _jump(walk: _Walk, k: int, ins: SassInstruction, target: int | None, state: int) -> None:
    if target is None or ins.opcode in _INDIRECT:
        walk.builder.unknown.add(k)
        return
    walk.builder.add(k, target, EdgeKind.TAKEN)
    if state == _ALWAYS and target == k and ins.target == ins.address:
        walk.traps.add(k)


def _width(instructions: Sequence[SassInstruction], index: int) -> int:
    if index + 1 < len(instructions):
        return instructions[index + 1].address - instructions[index].address
    return 16  # every architecture from sm_70 on


def _add_returns(
    builder: _Builder,
    instructions: Sequence[SassInstruction],
    calls: list[tuple[int, int]],
    rets: list[int],
) -> None:
    """RETURN edges from each RET to the block after each CALL of the subroutine it ends."""
    if not calls or not rets:
        return
    entries = sorted({address for _, address in calls})
    for k in rets:
        address = instructions[builder.spans[k][1]].address
        j = bisect_right(entries, address) - 1
        if j < 0:
            continue  # a RET in the kernel body: a device function listed on its own
        for block, called in calls:
            if called == entries[j] and block + 1 < len(builder.spans):
                builder.add(k, block + 1, EdgeKind.RETURN)


_PTX_JUMPS = frozenset({"bra", "brx"})
_PTX_ENDS = frozenset({"ret", "exit", "trap"})


@without_gc
def build_ptx_cfg(function: PtxFunction) -> ControlFlowGraph:
    """The CFG of one PTX function; block start/end are PTX lines."""
    instructions = function.instructions
    count = len(instructions)
    if not count:
        return ControlFlowGraph((), (), unit="ptx")
    lines = [ins.line for ins in instructions]
    labels = {}
    for name, line in function.labels.items():
        k = bisect_left(lines, line)
        if k < count:
            labels[name] = k
    leaders = {0, *labels.values()}
    for i, ins in enumerate(instructions):
        if (ins.opcode in _PTX_JUMPS or ins.opcode in _PTX_ENDS) and i + 1 < count:
            leaders.add(i + 1)
    spans = _spans(leaders, count)
    block_of = {first: k for k, (first, _) in enumerate(spans)}
    builder = _Builder(spans)
    for k, (_, last) in enumerate(spans):
        ins = instructions[last]
        guarded = ins.guard is not None
        falls = True
        if ins.opcode == "bra":
            target = labels.get(ins.operands[0]) if ins.operands else None
            if target is None:
                builder.unknown.add(k)
            else:
                builder.add(k, block_of[target], EdgeKind.TAKEN)
            falls = guarded
        elif ins.opcode == "brx":
            builder.unknown.add(k)
            falls = guarded
        elif ins.opcode in _PTX_ENDS:
            falls = guarded
        if falls and k + 1 < len(spans):
            builder.add(k, k + 1, EdgeKind.FALLTHROUGH)
    starts = [lines[first] for first, _ in spans]
    ends = [lines[last] for _, last in spans]
    return builder.finish(starts, ends, "ptx", set())
