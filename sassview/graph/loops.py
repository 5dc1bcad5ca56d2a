"""Natural loops of a control-flow graph: headers, bodies, nesting, and the source line of each.

How: dominators (graph/dominators.py, Cooper–Harvey–Kennedy) over the reachable blocks and the
FALLTHROUGH and TAKEN edges only; a back edge is u -> v where v dominates u; the loop of a back
edge is v plus every block that reaches u without passing v; loops with the same header are
merged; a loop nests in the smallest other loop holding its header. CALL and RETURN edges are
left out, so each subroutine is its own procedure: a virtual root enters the kernel entry, every
CALL target and any reachable block nothing else reaches (an indirect jump's targets), which
keeps loops inside a subroutine and loops around a call site both detectable, and makes no loop
of the cycle caller -> subroutine -> RET -> next call site.

Which source line is "the loop": a rotated loop (what NVVM and ptxas produce) tests its
condition at the bottom, so the compare that sets the back-edge branch's predicate is on the
`for`/`while` line (or the `} while` of a do-loop), while the header block usually starts with
the first body statement. The branch itself is not always enough: on sm_100/sm_120 ptxas often
schedules `BRA.U UP0` right after the last body instruction and it inherits that line. So the
candidates are, per back edge (latest first), the instruction that wrote the branch's predicate
(searched back through the latch block, then the loop's earlier blocks, since an inner loop may
sit between compare and branch), the branch, then the header's instructions. Of a candidate's
inline chain the frame taken is the one just inside the frames every instruction of the loop
shares: a loop in an inlined function gets its own `for` line, not the call site (what the
outermost frame would give), and a kernel loop whose condition calls an inlined function gets
the kernel line, not the callee's (what the innermost frame would give). When the caller knows
which lines are loop statements (`is_loop_statement`, e.g. from the source text), the first
candidate frame that is one wins (the unroll analysis passes one through `loop_source`).

How it can be wrong: irreducible control flow (two entries into a cycle, rare in ptxas output)
has no natural loop, so such a cycle is not reported; a loop whose instructions all come from
one line gets that line whatever it says; without `is_loop_statement`, a loop whose compare was
merged with other code reports the line the compare kept; an outer loop's header block can hold
an inner loop's setup code, so with `is_loop_statement` and no compare found it may take the
inner loop's line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sassview.gcpause import without_gc
from sassview.graph.cfg import ControlFlowGraph, EdgeKind
from sassview.ir import PtxFunction, PtxInstruction, SassInstruction, SourceLoc

LoopStatement = Callable[[SourceLoc], bool]
_ROOT = -1


@dataclass(frozen=True, slots=True)
class Loop:
    index: int
    header: int  # block index
    blocks: frozenset[int]
    back_edges: tuple[tuple[int, int], ...]  # (latch block, header)
    depth: int  # 1 = outermost
    parent: int | None  # index of the enclosing loop
    first_address: int
    last_address: int  # of the last instruction in the body (for a PTX loop: lines)
    addresses: tuple[int, ...]  # every SASS address (PTX line) in the body, sorted
    source: SourceLoc | None  # the loop statement: see the module docstring

    @property
    def latches(self) -> tuple[int, ...]:
        return tuple(u for u, _ in self.back_edges)


@without_gc
def find_loops(
    cfg: ControlFlowGraph,
    instructions: Sequence[SassInstruction],
    *,
    is_loop_statement: LoopStatement | None = None,
) -> tuple[Loop, ...]:
    """The natural loops of a SASS CFG, ordered by first address (outer before inner)."""
    exits = _exit_calls(cfg, instructions)
    succ = _intra_successors(cfg, exits)
    if not _goes_back(succ):
        return ()  # before the per-instruction tables below: most kernels end here
    positions = [ins.address for ins in instructions]
    sources = [ins.source for ins in instructions]
    return _find(
        cfg, succ, positions, sources, _sass_condition(instructions), is_loop_statement, exits
    )


@without_gc
def find_ptx_loops(
    cfg: ControlFlowGraph, function: PtxFunction, *, is_loop_statement: LoopStatement | None = None
) -> tuple[Loop, ...]:
    """The natural loops of a PTX CFG; addresses are PTX lines."""
    succ = _intra_successors(cfg)
    if not _goes_back(succ):
        return ()
    ins = function.instructions
    lines = [i.line for i in ins]
    sources = [i.source for i in ins]
    return _find(cfg, succ, lines, sources, _ptx_condition(ins), is_loop_statement)


def loop_source(
    loop: Loop,
    cfg: ControlFlowGraph,
    instructions: Sequence[SassInstruction],
    is_loop_statement: LoopStatement | None = None,
) -> SourceLoc | None:
    """The source line of a SASS loop, again, with a caller's idea of which lines are loops:
    analyses that read the source text use it to re-place loops `find_loops` placed without."""
    sources = [ins.source for ins in instructions]
    return _place(
        loop.header,
        loop.latches,
        loop.blocks,
        cfg,
        sources,
        _sass_condition(instructions),
        is_loop_statement,
    )


# Given the index of a latch's branch and the (first, last) instruction ranges to search (its
# own block first, then the loop's other blocks, latest first): the index of the instruction
# that computed the branch's condition. The compare may sit in an earlier block than the branch
# when an inner loop runs between them.
Condition = Callable[[int, list[tuple[int, int]]], "int | None"]


def _sass_condition(instructions: Sequence[SassInstruction]) -> Condition:
    def find(branch: int, ranges: list[tuple[int, int]]) -> int | None:
        ins = instructions[branch]
        wanted = {
            (r.file, r.index)
            for op in ins.operands
            for r in op.registers[:1]
            if r.file in ("P", "UP") and r.index is not None
        }
        if ins.guard is not None and ins.guard.index is not None:
            wanted.add((ins.guard.file, ins.guard.index))
        for first, last in ranges:
            for j in range(min(last, branch - 1), first - 1, -1):
                ops = instructions[j].operands
                if (
                    ops
                    and ops[0].registers
                    and (ops[0].registers[0].file, ops[0].registers[0].index) in wanted
                ):
                    return j
        return None

    return find


def _ptx_condition(instructions: Sequence[PtxInstruction]) -> Condition:
    def find(branch: int, ranges: list[tuple[int, int]]) -> int | None:
        guard = instructions[branch].guard
        for first, last in ranges:
            for j in range(min(last, branch - 1), first - 1, -1):
                ops = instructions[j].operands
                if guard and ops and guard in ops[0].split("|"):
                    return j
        return None

    return find


def _exit_calls(
    cfg: ControlFlowGraph, instructions: Sequence[SassInstruction]
) -> frozenset[tuple[int, int]]:
    """CALL edges that are ptxas' way out of a loop, not calls: `@P0 CALL.REL.NOINC L` then the
    back-edge `BRA header`, with L the instruction after that BRA (the code after the loop,
    which never returns). Read as calls they make L's block a procedure of its own, whose
    entry no loop header dominates, and the loop around them disappears."""
    out = set()
    for e in cfg.edges:
        if e.kind is EdgeKind.CALL and e.dst == e.src + 2:
            between = cfg.blocks[e.src + 1]
            if between.size == 1 and instructions[between.first].opcode == "BRA":
                out.add((e.src, e.dst))
    return frozenset(out)


def _intra_successors(
    cfg: ControlFlowGraph, exits: frozenset[tuple[int, int]] = frozenset()
) -> dict[int, list[int]]:
    """FALLTHROUGH and TAKEN successors of the reachable blocks, plus a guess at the targets of
    indirect jumps (BRX without its table): each block nothing else enters is given an edge from
    the nearest such jump before it. ptxas lays a jump table's cases out after its BRX, so this
    keeps the header of a loop around a `switch` dominating the cases. Joining every BRX to
    every orphan instead would let one unrolled copy's BRX enter another copy's cases, which
    breaks dominance and hides the loop."""
    succ: dict[int, list[int]] = {b.index: [] for b in cfg.blocks if b.reachable}
    entered = {cfg.entry}
    for e in cfg.edges:
        if e.src in succ and e.dst in succ:
            intra = e.kind in (EdgeKind.FALLTHROUGH, EdgeKind.TAKEN) or (e.src, e.dst) in exits
            if intra and e.dst not in succ[e.src]:
                succ[e.src].append(e.dst)
            entered.add(e.dst)
    jump: int | None = None
    for k in sorted(succ):
        if k not in entered and jump is not None:
            succ[jump].append(k)
        if cfg.blocks[k].unknown_successors:
            jump = k
    return succ


def _goes_back(succ: dict[int, list[int]]) -> bool:
    """Whether any edge goes back (or to itself): blocks are in address order, so a cycle
    needs one."""
    return any(d <= s for s, ds in succ.items() for d in ds)


def _immediate_dominators(
    cfg: ControlFlowGraph, succ: dict[int, list[int]], exits: frozenset[tuple[int, int]]
) -> dict[int, int]:
    from sassview.graph.dominators import immediate_dominators

    return immediate_dominators(_procedures(cfg, succ, exits), _ROOT)


def _procedures(
    cfg: ControlFlowGraph, succ: dict[int, list[int]], exits: frozenset[tuple[int, int]]
) -> dict[int, list[int]]:
    """`succ` plus the virtual root `_ROOT`, which enters each procedure."""
    from sassview.graph.dominators import reachable

    graph = {k: list(ds) for k, ds in succ.items()}
    roots = {cfg.entry} | {
        e.dst
        for e in cfg.edges
        if e.kind is EdgeKind.CALL and e.dst in succ and (e.src, e.dst) not in exits
    }
    entered = {d for ds in succ.values() for d in ds}
    roots |= {k for k in succ if k not in entered}
    graph[_ROOT] = [r for r in roots if r in succ]
    reached = reachable(graph, _ROOT)
    for k in sorted(set(succ) - reached):  # only in a cycle, reached by an indirect jump
        if k not in reached:
            graph[_ROOT].append(k)
            reached |= reachable(graph, k)
    return graph


def _find(
    cfg: ControlFlowGraph,
    succ: dict[int, list[int]],
    positions: Sequence[int],
    sources: Sequence[SourceLoc | None],
    condition: Condition,
    is_loop_statement: LoopStatement | None,
    exits: frozenset[tuple[int, int]] = frozenset(),
) -> tuple[Loop, ...]:
    """The loops of a CFG whose `_intra_successors` are `succ` (with an edge going back)."""
    idom = _immediate_dominators(cfg, succ, exits)
    dominates = _dominance(idom)

    latches: dict[int, list[int]] = {}
    for s, ds in succ.items():
        for d in ds:
            if dominates(d, s):
                latches.setdefault(d, []).append(s)
    preds: dict[int, list[int]] = {}
    for s, ds in succ.items():
        for d in ds:
            preds.setdefault(d, []).append(s)
    bodies: dict[int, set[int]] = {}
    for header, tails in latches.items():
        body = {header}
        stack = [t for t in tails if t != header]
        while stack:
            k = stack.pop()
            if k not in body:
                body.add(k)
                stack.extend(p for p in preds.get(k, ()) if p not in body)
        bodies[header] = body
    return _assemble(cfg, bodies, latches, positions, sources, condition, is_loop_statement)


def _dominance(idom: dict[int, int]) -> Callable[[int, int], bool]:
    """O(1) `a dominates b` from pre/post numbers of the dominator tree."""
    children: dict[int, list[int]] = {}
    for node, parent in idom.items():
        if node != parent:
            children.setdefault(parent, []).append(node)
    enter: dict[int, int] = {}
    leave: dict[int, int] = {}
    clock = 0
    stack: list[tuple[int, bool]] = [(_ROOT, False)]
    while stack:
        node, done = stack.pop()
        if done:
            leave[node] = clock
        else:
            enter[node] = clock
            stack.append((node, True))
            stack.extend((c, False) for c in children.get(node, ()))
        clock += 1

    def dominates(a: int, b: int) -> bool:
        return a in enter and b in enter and enter[a] <= enter[b] and leave[b] <= leave[a]

    return dominates


def _assemble(
    cfg: ControlFlowGraph,
    bodies: dict[int, set[int]],
    latches: dict[int, list[int]],
    positions: Sequence[int],
    sources: Sequence[SourceLoc | None],
    condition: Condition,
    is_loop_statement: LoopStatement | None,
) -> tuple[Loop, ...]:
    # Nesting: biggest first, so a loop's parent is the latest owner of its header.
    owner: dict[int, int] = {}
    parent: dict[int, int | None] = {}
    depth: dict[int, int] = {}
    for header in sorted(bodies, key=lambda h: (-len(bodies[h]), h)):
        up = owner.get(header)
        parent[header] = up
        depth[header] = depth[up] + 1 if up is not None else 1
        for k in bodies[header]:
            owner[k] = header
    blocks = cfg.blocks
    addresses = {
        h: tuple(
            sorted(positions[i] for k in body for i in range(blocks[k].first, blocks[k].last + 1))
        )
        for h, body in bodies.items()
    }
    order = sorted(bodies, key=lambda h: (addresses[h][0], -len(bodies[h])))
    index = {h: i for i, h in enumerate(order)}
    loops = []
    for h in order:
        tails = tuple(sorted(latches[h]))
        up = parent[h]
        loops.append(
            Loop(
                index=index[h],
                header=h,
                blocks=frozenset(bodies[h]),
                back_edges=tuple((t, h) for t in tails),
                depth=depth[h],
                parent=index[up] if up is not None else None,
                first_address=addresses[h][0],
                last_address=addresses[h][-1],
                addresses=addresses[h],
                source=_place(h, tails, bodies[h], cfg, sources, condition, is_loop_statement),
            )
        )
    return tuple(loops)


def loop_candidates(
    loop: Loop, cfg: ControlFlowGraph, instructions: Sequence[SassInstruction]
) -> list[SourceLoc]:
    """The source locations that may name a SASS loop's statement, best first, whole inline
    chains: per back edge (latest first) the instruction that set the branch's predicate and
    the branch, then the header block's instructions (see the module docstring)."""
    sources = [ins.source for ins in instructions]
    found = _candidates(
        loop.header, loop.latches, loop.blocks, cfg, sources, _sass_condition(instructions)
    )
    return [loc for loc in found if loc is not None]


def _candidates(
    header: int,
    tails: Sequence[int],
    body: frozenset[int] | set[int],
    cfg: ControlFlowGraph,
    sources: Sequence[SourceLoc | None],
    condition: Condition,
) -> list[SourceLoc | None]:
    blocks = cfg.blocks
    candidates: list[SourceLoc | None] = []
    for t in sorted(tails, key=lambda t: -blocks[t].start):
        others = sorted(
            (k for k in body if k != t and blocks[k].first < blocks[t].last), reverse=True
        )
        ranges = [(blocks[t].first, blocks[t].last)] + [
            (blocks[k].first, blocks[k].last) for k in others
        ]
        cond = condition(blocks[t].last, ranges)
        candidates += [sources[cond] if cond is not None else None, sources[blocks[t].last]]
    candidates += sources[blocks[header].first : blocks[header].last + 1]
    return candidates


def _place(
    header: int,
    tails: Sequence[int],
    body: frozenset[int] | set[int],
    cfg: ControlFlowGraph,
    sources: Sequence[SourceLoc | None],
    condition: Condition,
    is_loop_statement: LoopStatement | None,
) -> SourceLoc | None:
    blocks = cfg.blocks
    chains = [
        tuple(loc.frames())
        for k in body
        for loc in sources[blocks[k].first : blocks[k].last + 1]
        if loc is not None
    ]
    if not chains:
        return None
    shared = _shared_outer(chains)
    candidates = _candidates(header, tails, body, cfg, sources, condition)
    frames = []
    for loc in candidates:
        if loc is not None:
            chain = tuple(loc.frames())
            frames.append(chain[max(0, len(chain) - shared - 1)])
    if is_loop_statement is not None:
        found = next((f for f in frames if is_loop_statement(f)), None)
        if found is None:  # the statement may sit at another depth of an inline chain
            found = next(
                (
                    f
                    for loc in candidates
                    if loc is not None
                    for f in loc.frames()
                    if is_loop_statement(f)
                ),
                None,
            )
        if found is not None:
            return found
    return frames[0] if frames else None


def _shared_outer(chains: list[tuple[SourceLoc, ...]]) -> int:
    """How many outermost frames (file and line) every chain has in common."""
    first = chains[0]
    shared = len(first)
    for chain in chains[1:]:
        n = 0
        while n < shared and n < len(chain):
            a, b = first[-1 - n], chain[-1 - n]
            if a.file != b.file or a.line != b.line:
                break
            n += 1
        shared = n
        if not shared:
            break
    return shared
