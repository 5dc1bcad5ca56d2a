"""The issue schedule ptxas committed to in each loop: cycles per trip and waits.

From the control codes of the loop body's instructions (sassview.binary.control), per loop, on
sm_70 and later (a loop with inner loops: its own code outside them):
  - issue cycles per trip per warp: the stall counts summed over the body, every instruction of
    the loop's blocks once, in address order. A body that branches (an `if` inside the loop)
    counts both arms, so the sum is an upper bound for a trip that takes one; a branch costs the
    stall written on it, like any instruction; a yield hint adds nothing (it lets the scheduler
    switch warps, it does not stall this one). A diverged-warp fallback copy inside the loop
    (graph/divergence: the second copy of a warp-synchronous step, taken by a BRA.DIV only
    when the warp arrives diverged) is left out: a trip runs one copy or the other, and the
    fast path's is the one counted;
  - the share of those cycles spent on the math the loop exists for (FP32/FP16/FP64 and tensor
    core instructions: their own stall counts over the total);
  - the waits: each instruction that waits on a scoreboard set by a variable-latency
    instruction (a load, MUFU, a conversion, a tensor-core op, ...), the instruction that set it
    most recently (in this trip, or in the trip before: `carried`), and the issue cycles of
    other work ptxas placed between the two — the latency the schedule hides.

How it can be wrong: this is the compiler's plan, not a measurement. A stall is the least the
warp waits; the hardware adds the scoreboard waits (a global load takes hundreds of cycles,
which other warps hide), bank conflicts, and the cycles the other warps take. A scoreboard is a
counter that several instructions may share: a wait is charged to the latest of them. Loops
with inner loops are read outside them: their own code per trip, the inner loops' left out
(how often an inner loop runs per outer trip is not known here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.records_compute import LoopFact, ScheduleFacts, loop_place
from sassview.graph.cfg import ControlFlowGraph, EdgeKind
from sassview.graph.divergence import Fallback, fallbacks
from sassview.graph.loops import Loop
from sassview.ir import ControlCode, Kernel, SassInstruction
from sassview.opcodes import instruction_category

MATH = frozenset({"fp32", "fp16", "fp64", "tensor"})


@dataclass(frozen=True, slots=True)
class Wait:
    address: int  # the instruction that waits
    scoreboard: int
    producer: int  # the address of the instruction that set the scoreboard
    opcode: str  # the producer's mnemonic
    kind: str  # the producer's category: global, shared, special, tensor, ...
    cycles_between: int  # issue cycles from the producer's issue to the wait
    carried: bool  # the producer ran in the trip before
    on: str  # "result": its write scoreboard; "sources": its read scoreboard (a store's data)


@dataclass(frozen=True, slots=True)
class LoopSchedule:
    loop: int
    source_line: int | None
    instructions: int
    issue_cycles: int
    math_cycles: int
    branches: bool  # the body has more than one block: both arms are counted
    waits: tuple[Wait, ...]
    inner_loops: int = 0  # loops directly inside it, whose code is not counted

    @property
    def math_share(self) -> float:
        return round(self.math_cycles / self.issue_cycles, 3) if self.issue_cycles else 0.0


def _body(
    kernel: Kernel, loop: Loop, skip: frozenset[int] = frozenset()
) -> list[tuple[SassInstruction, ControlCode]]:
    out = []
    for address in loop.addresses:
        if address in skip:
            continue
        ins, code = kernel.instruction_at(address), kernel.control_at(address)
        if ins is not None and code is not None:
            out.append((ins, code))
    return out


def _waits(body: list[tuple[SassInstruction, ControlCode]]) -> tuple[Wait, ...]:
    """Two passes over the body: the first sets the scoreboards a trip leaves behind, the
    second (the steady state) records each wait and its latest producer."""
    pending: dict[int, tuple[int, int, str]] = {}  # scoreboard -> (step, clock at issue, on)
    clock = 0
    found: list[Wait] = []
    n = len(body)
    for step in range(2 * n):
        ins, code = body[step % n]
        for board in code.waits:
            set_by = pending.pop(board, None)
            if set_by is not None and step >= n:
                producer = body[set_by[0] % n][0]
                found.append(
                    Wait(
                        ins.address,
                        board,
                        producer.address,
                        producer.mnemonic,
                        instruction_category(producer),
                        clock - set_by[1],
                        set_by[0] < n,
                        set_by[2],
                    )
                )
        for sets, on in ((code.write, "result"), (code.read, "sources")):
            if sets is not None:
                pending[sets] = (step, clock, on)
        clock += code.stall
    return tuple(sorted(found, key=lambda w: w.address))


def loop_schedule(
    kernel: Kernel,
    loop: Loop,
    inner: Sequence[Loop] = (),
    diverged: Sequence[Fallback] = (),
    cfg: ControlFlowGraph | None = None,
) -> LoopSchedule | None:
    """The schedule of one trip of `loop`; with `inner` (the loops directly inside it), of
    its own code outside them: an outer loop's trip runs its inner loops' trips a number of
    times no count here knows, so they are left out, not summed. The blocks of `diverged`
    (the kernel's fallback copies, found on `cfg`) are left out too: see the module
    docstring."""
    copies = [f for f in diverged if f.blocks & loop.blocks]
    ins = kernel.instructions
    skip = frozenset(a for lp in inner for a in lp.addresses)
    skip |= frozenset(ins[i].address for f in copies for i in f.instructions)
    branches = len(loop.blocks) > 1 and not inner
    if copies and cfg is not None:
        branches = branches and _branches(cfg, loop.blocks.difference(*(f.blocks for f in copies)))
    body = _body(kernel, loop, skip)
    if not body:
        return None
    return LoopSchedule(
        loop=loop.index,
        source_line=loop.source.line if loop.source else None,
        instructions=len(body),
        issue_cycles=sum(code.stall for _, code in body),
        math_cycles=sum(code.stall for ins, code in body if instruction_category(ins) in MATH),
        branches=branches,
        waits=_waits(body),
        inner_loops=len(inner),
    )


def _branches(cfg: ControlFlowGraph, blocks: frozenset[int]) -> bool:
    """Whether a body without its fallback copies still chooses between paths: a block with
    two ways on inside it. The BRA.DIV (or BRA.CONV) choosing a copy leaves one way once the
    copy is set aside, so a body whose only choice it was is one path (sm_80's
    shfl_runtime_loop in tests/data/analyses/sources/warp_fallbacks.cu)."""
    ways: dict[int, set[int]] = {}
    for e in cfg.edges:
        if e.kind in (EdgeKind.FALLTHROUGH, EdgeKind.TAKEN) and e.src in blocks and e.dst in blocks:
            ways.setdefault(e.src, set()).add(e.dst)
    return any(len(dsts) > 1 for dsts in ways.values())


def describe(s: LoopSchedule) -> str:
    """`line 9: 52 issue cycles per trip, 38% on math; the tightest wait: LDG.E 12 cycles
    before its use`: the one wording of a loop's schedule."""
    text = f"{loop_place(s.source_line, s.loop)}: {s.issue_cycles} issue cycles per trip"
    text += " (both arms of its branches)" if s.branches else ""
    if s.inner_loops:
        plural = "s" if s.inner_loops > 1 else ""
        text += f" outside its {s.inner_loops} inner loop{plural}"
    text += f", {round(100 * s.math_share)}% on math"
    memory = [
        w
        for w in s.waits
        if w.on == "result" and w.kind in ("global", "local", "shared", "texture", "async")
    ]
    if memory:
        tight = min(memory, key=lambda w: w.cycles_between)
        text += f"; tightest load wait: {tight.opcode} {tight.cycles_between} cycles before use"
    return text + " (ptxas' plan)"


# A loop "exists for its math" from this share of its issue cycles on, and a global load's
# result used within this many issue cycles of the load, in the same trip, is unhidden by the
# schedule: a global load takes hundreds of cycles (L2 hits ~200, DRAM more), so 64 cycles of
# other work hide a small part of it at best; only other warps can cover the rest. Measured on
# the bundled matmuls: their non-pipelined loops use the load 2-25 cycles after it.
MATH_LOOP_SHARE = 0.25
EXPOSED_CYCLES = 64
EXPOSED_HINT = (
    "software-pipeline the loop: load the next trip's data before this trip's math (double "
    "buffering through shared memory, cp.async or TMA; in Triton num_stages, in the CuTe DSL "
    "more pipeline stages), or give each trip more independent work (more accumulators)"
)
_PIPELINED_HINT = (
    "compiled with num_stages={stages}, this loop is still not software-pipelined, so the"
    " launch's num_stages is not what it lacks (a loop with tl.dot is pipelined by it): ask on"
    " the loop, `tl.range(..., num_stages={stages})` (a source edit, untried here), or give each"
    " trip more independent work"
)


def exposed_hint(kind: str, options: tuple[str, ...]) -> str:
    """The words for an exposed load: a Triton kernel already at num_stages >= 2 is told that
    stages did not pipeline it, never to raise them (advice it has already taken)."""
    stages = next((o.split("=", 1)[1] for o in options if o.startswith("num_stages=")), "")
    if kind in ("triton", "gluon") and stages.isdigit() and int(stages) >= 2:
        return _PIPELINED_HINT.format(stages=stages)
    return EXPOSED_HINT


def exposed_load(s: LoopSchedule) -> Wait | None:
    """The tightest same-trip wait on a global load's result in a math loop, or None."""
    if s.math_share < MATH_LOOP_SHARE:
        return None
    waits = [
        w
        for w in s.waits
        if w.on == "result" and w.kind == "global" and not w.carried
        and w.cycles_between < EXPOSED_CYCLES
    ]  # fmt: skip
    return min(waits, key=lambda w: w.cycles_between, default=None)


def _exposed_note(s: LoopSchedule, hint: str = EXPOSED_HINT) -> Annotation | None:
    wait = exposed_load(s)
    if wait is None:
        return None
    place = loop_place(s.source_line, s.loop)
    return Annotation(
        kind="exposed-load",
        severity=Severity.NOTE,
        message=(
            f"{place}: a trip waits on {wait.opcode} {wait.cycles_between} "
            f"issue cycles after issuing it ({round(100 * s.math_share)}% of the loop's cycles "
            "are math): nothing else is scheduled over the load's latency, so each trip stalls "
            "unless other warps run meanwhile (ptxas' plan, not a measurement)"
        ),
        hint=hint,
        addresses=(wait.producer, wait.address),
        loops=(s.loop,),
        data={"cycles_between": wait.cycles_between, "producer": wait.producer},
    )


def run(ctx: AnalysisContext) -> Findings:
    if not ctx.kernel.control:
        return Findings(facts=ScheduleFacts(loops=[]))
    children: dict[int, list[Loop]] = {}
    for lp in ctx.loops:
        if lp.parent is not None:
            children.setdefault(lp.parent, []).append(lp)
    ins = ctx.kernel.instructions
    diverged = fallbacks(ctx.cfg, ins) if ctx.loops and ctx.cfg is not None else ()
    schedules = [
        s
        for lp in ctx.loops
        if (s := loop_schedule(ctx.kernel, lp, children.get(lp.index, ()), diverged, ctx.cfg))
        is not None
    ]
    # Only an innermost loop's trip is all of its work: the note reads those alone.
    art = ctx.program.artifacts
    hint = exposed_hint(art.kind, art.options)
    notes = tuple(
        n for s in schedules if not s.inner_loops and (n := _exposed_note(s, hint)) is not None
    )
    return Findings(facts=ScheduleFacts(loops=[_facts(s) for s in schedules]), annotations=notes)


def _facts(s: LoopSchedule) -> LoopFact:
    return {
        "loop": s.loop,
        "source_line": s.source_line,
        "instructions": s.instructions,
        "issue_cycles": s.issue_cycles,
        "math_cycles": s.math_cycles,
        "math_share": s.math_share,
        "branches": s.branches,
        "inner_loops": s.inner_loops,
        "waits": [
            {
                "address": w.address,
                "scoreboard": w.scoreboard,
                "producer": w.producer,
                "opcode": w.opcode,
                "kind": w.kind,
                "cycles_between": w.cycles_between,
                "carried": w.carried,
                "on": w.on,
            }
            for w in s.waits
        ],
        "text": describe(s),
    }
